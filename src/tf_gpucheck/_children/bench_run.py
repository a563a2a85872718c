"""Run gpucheck's Keras training benchmarks on one device and one Keras backend, and print results.

argv[1] is the run's JSON spec. Progress lines ("PROGRESS {...}") and the result
("RESULT {...}") go to stdout. The parent sets KERAS_BACKEND and hides GPUs for a CPU run
(CUDA_VISIBLE_DEVICES=-1, and JAX_PLATFORMS=cpu for JAX), so the runs cannot warm, slow or
pollute each other.

Timing: the model is built and compiled on the device; the first step (tracing and compiling)
and the warm-up steps are timed separately and never mixed into throughput; then `repeats`
timed windows (Keras epochs) of `steps` steps each. Each window's clock stops in on_epoch_end,
after Keras has turned the epoch's loss into a Python number, which waits for the device's
work on every backend.

Feeding, native to each backend: TensorFlow reads a prefetched tf.data pipeline; JAX and
PyTorch (whose environments may have no TensorFlow) read a Python generator of NumPy batches
held in memory, which Keras converts to the backend's arrays at each step. Measured on a
2-core CPU, that generator feeds Keras-on-JAX faster than `model.fit(x, y)` on the arrays
(whose per-epoch shuffle gathers every batch). The input-bound hint times the same feeding
alone, conversion to the device included.

The matmul ceiling uses each backend's own matmul: tf.matmul (.numpy() waits), a jitted
jnp.matmul (block_until_ready), torch.matmul (torch.cuda.synchronize on a GPU).

Standard library, NumPy and the backend only; Python 3.8+.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import time
from typing import Any

SEED = 1234
DISTINCT_BATCHES = 8
"""Batches of synthetic data kept in memory and cycled (as the tf.data pipeline repeats)."""


def emit(kind: str, payload: dict[str, Any]) -> None:
    sys.stdout.write(f"{kind} {json.dumps(payload)}\n")
    sys.stdout.flush()


def build(keras: Any, workload: str) -> Any:
    if workload == "mlp":
        return keras.Sequential(
            [
                keras.Input((784,)),
                keras.layers.Dense(512, activation="relu"),
                keras.layers.Dense(512, activation="relu"),
                keras.layers.Dense(10, activation="softmax"),
            ]
        )
    if workload == "cnn":
        return keras.Sequential(
            [
                keras.Input((32, 32, 3)),
                keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
                keras.layers.MaxPooling2D(),
                keras.layers.Conv2D(64, 3, padding="same", activation="relu"),
                keras.layers.MaxPooling2D(),
                keras.layers.Flatten(),
                keras.layers.Dense(128, activation="relu"),
                keras.layers.Dense(10, activation="softmax"),
            ]
        )
    raise ValueError(f"unknown workload {workload!r}")


def forward_flops(model: Any) -> int:
    """Multiply-adds x 2 per sample of the Dense and Conv2D layers (the rest is negligible)."""
    total = 0
    for layer in model.layers:
        kind = type(layer).__name__
        if kind == "Dense":
            total += 2 * int(layer.kernel.shape[0]) * int(layer.kernel.shape[1])
        elif kind == "Conv2D":
            kh, kw, cin, cout = (int(d) for d in layer.kernel.shape)
            _, oh, ow, _ = (int(d) if d is not None else 1 for d in layer.output.shape)
            total += 2 * oh * ow * kh * kw * cin * cout
    return total


def synthetic(np: Any, workload: str, batch_size: int) -> tuple[Any, Any]:
    """Seeded inputs and labels for DISTINCT_BATCHES batches, in host memory."""
    rng = np.random.default_rng(SEED)
    shape = (784,) if workload == "mlp" else (32, 32, 3)
    x = rng.random((batch_size * DISTINCT_BATCHES, *shape), dtype=np.float32)
    y = rng.integers(0, 10, size=(batch_size * DISTINCT_BATCHES,)).astype("int32")
    return x, y


class Backend:
    """What differs between Keras backends: the module, devices, feeding, the matmul ceiling."""

    name = ""
    pipeline = ""
    """How training is fed, in words (for the input-bound hint)."""

    def __init__(self, np: Any) -> None:
        self.np = np
        self.keras: Any = None

    def setup(self, spec: dict[str, Any]) -> None:
        """Configure devices before any is used (the TensorFlow backend splits the CPU)."""

    def devices(self, kind: str) -> tuple[list[str], str | None]:
        """The device names of ``kind`` (CPU or GPU), or the backend's own reason for none."""
        raise NotImplementedError

    def scope(self, device: str, strategy: Any = None) -> Any:
        """Where the model is built."""
        return self.keras.device(device)

    def fit_scope(self, device: str) -> Any:
        """Where model.fit runs."""
        return self.keras.device(device)

    def dataset(self, workload: str, batch_size: int, batches: int) -> Any:
        x, y = synthetic(self.np, workload, batch_size)
        xs = [x[i * batch_size : (i + 1) * batch_size] for i in range(DISTINCT_BATCHES)]
        ys = [y[i * batch_size : (i + 1) * batch_size] for i in range(DISTINCT_BATCHES)]

        def batches_of() -> Any:
            for i in range(batches):
                yield xs[i % DISTINCT_BATCHES], ys[i % DISTINCT_BATCHES]

        return batches_of()

    def input_rate(self, workload: str, batch_size: int, steps: int, device: str) -> float:
        """Samples per second of the feeding alone, converted to the device as Keras does."""
        begin = time.perf_counter()
        last = None
        for x, y in self.dataset(workload, batch_size, steps):
            last = self.to_device(x, device), self.to_device(y, device)
        self.wait(last)
        return steps * batch_size / (time.perf_counter() - begin)

    def to_device(self, array: Any, device: str) -> Any:
        raise NotImplementedError

    def wait(self, value: Any) -> None:
        """Block until the device has finished computing ``value``."""

    def product(self, n: int, device: str) -> Any:
        """A function that computes one n x n float32 matrix product on ``device`` and returns
        when the device has finished it (the first call also traces and compiles)."""
        raise NotImplementedError

    def matmul(self, n: int, device: str, repeats: int) -> tuple[float, list[float]]:
        """The first product's seconds, and each timed product's seconds."""
        once = self.product(n, device)
        begin = time.perf_counter()
        once()
        first = time.perf_counter() - begin
        windows = []
        for i in range(repeats):
            begin = time.perf_counter()
            once()
            windows.append(time.perf_counter() - begin)
            emit("PROGRESS", {"workload": "matmul", "done": i + 1, "total": repeats})
        return first, windows

    def describe(self) -> dict[str, Any]:
        """The backend's version and the CUDA it was built with, for the fingerprint."""
        raise NotImplementedError


class TensorflowBackend(Backend):
    name = "tensorflow"
    pipeline = "the tf.data pipeline"

    def __init__(self, np: Any) -> None:
        super().__init__(np)
        import tensorflow as tf

        self.tf: Any = tf
        self.keras = tf.keras

    def setup(self, spec: dict[str, Any]) -> None:
        tf = self.tf
        if spec.get("cpu_devices") and spec["device"] == "cpu":
            cpu = tf.config.list_physical_devices("CPU")[0]
            tf.config.set_logical_device_configuration(
                cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(spec["cpu_devices"])]
            )

    def devices(self, kind: str) -> tuple[list[str], str | None]:
        names = [d.name for d in self.tf.config.list_logical_devices(kind.upper())]
        return names, None if names else f"TensorFlow sees no {kind.upper()} device"

    def scope(self, device: str, strategy: Any = None) -> Any:
        return strategy.scope() if strategy is not None else self.tf.device(device)

    def fit_scope(self, device: str) -> Any:
        return contextlib.nullcontext()  # the variables decide, as in a plain model.fit

    def dataset(self, workload: str, batch_size: int, batches: int) -> Any:
        tf = self.tf
        x, y = synthetic(self.np, workload, batch_size)
        ds = (
            tf.data.Dataset.from_tensor_slices((x, y))
            .repeat()
            .batch(batch_size, drop_remainder=True)
        )
        return ds.take(batches).prefetch(tf.data.AUTOTUNE)

    def input_rate(self, workload: str, batch_size: int, steps: int, device: str) -> float:
        begin = time.perf_counter()
        for _ in self.dataset(workload, batch_size, steps):
            pass
        return steps * batch_size / (time.perf_counter() - begin)

    def product(self, n: int, device: str) -> Any:
        tf = self.tf
        with tf.device(device):
            a = tf.random.stateless_uniform((n, n), seed=(1, 2), dtype=tf.float32)
            b = tf.random.stateless_uniform((n, n), seed=(3, 4), dtype=tf.float32)

        def once() -> None:
            with tf.device(device):
                float(tf.reduce_sum(tf.matmul(a, b)).numpy())  # .numpy() waits for the device

        return once

    def describe(self) -> dict[str, Any]:
        build = {k: str(v) for k, v in self.tf.sysconfig.get_build_info().items()}
        return {
            "version": self.tf.__version__,
            "cuda": build.get("cuda_version"),
            "keras": getattr(self.keras, "__version__", None),
            "build": build,
            "matmul_precision": "tf32 allowed"
            if self.tf.config.experimental.tensor_float_32_execution_enabled()
            else "float32",
        }


def keep_tensorflow_out() -> None:
    """Keras' set_random_seed imports TensorFlow whenever it is installed (to seed tf.data):
    a JAX or PyTorch run does not need it, nor its import time and threads."""
    if "tensorflow" not in sys.modules:
        sys.modules["tensorflow"] = None  # type: ignore[assignment]


class JaxBackend(Backend):
    name = "jax"
    pipeline = "the NumPy batches, converted to jax arrays,"

    def __init__(self, np: Any) -> None:
        super().__init__(np)
        keep_tensorflow_out()
        import jax
        import keras

        self.jax: Any = jax
        self.keras = keras

    def devices(self, kind: str) -> tuple[list[str], str | None]:
        try:
            found = self.jax.devices(kind)
        except RuntimeError as exc:  # "Unknown backend: 'gpu' requested, but no platforms ..."
            return [], f"JAX sees no {kind.upper()}: {exc}"
        return [f"{kind}:{d.id}" for d in found], None

    def _device(self, device: str) -> Any:
        kind, _, index = device.partition(":")
        return self.jax.devices(kind)[int(index or 0)]

    def to_device(self, array: Any, device: str) -> Any:
        return self.jax.device_put(array, self._device(device))

    def wait(self, value: Any) -> None:
        self.jax.block_until_ready(value)

    def product(self, n: int, device: str) -> Any:
        jax = self.jax
        rng = self.np.random.default_rng(SEED)
        where = self._device(device)
        a = jax.device_put(rng.random((n, n), dtype=self.np.float32), where)
        b = jax.device_put(rng.random((n, n), dtype=self.np.float32), where)
        multiply = jax.jit(jax.numpy.matmul)

        def once() -> None:
            multiply(a, b).block_until_ready()

        return once

    def describe(self) -> dict[str, Any]:
        return {
            "version": self.jax.__version__,
            "cuda": jax_cuda(),
            "keras": self.keras.__version__,
            "matmul_precision": str(self.jax.config.jax_default_matmul_precision or "default"),
        }


def jax_cuda() -> str | None:
    """The CUDA runtime jaxlib's CUDA plugin was built with ("12.8"), or None without one."""
    try:
        from jax._src.lib import cuda_versions  # only present with a CUDA plugin

        if cuda_versions is None:
            return None
        version = int(cuda_versions.cuda_runtime_build_version())
        return f"{version // 1000}.{version % 1000 // 10}"
    except Exception:
        return None


class TorchBackend(Backend):
    name = "torch"
    pipeline = "the NumPy batches, converted to torch tensors,"

    def __init__(self, np: Any) -> None:
        super().__init__(np)
        keep_tensorflow_out()
        import keras
        import torch

        self.torch: Any = torch
        self.keras = keras

    def devices(self, kind: str) -> tuple[list[str], str | None]:
        torch = self.torch
        if kind == "cpu":
            return ["cpu"], None
        if torch.cuda.is_available():
            return [f"cuda:{i}" for i in range(torch.cuda.device_count())], None
        try:
            torch.cuda.init()  # raises with PyTorch's own reason ("Found no NVIDIA driver ...")
        except Exception as exc:
            return [], f"PyTorch sees no GPU: {exc}"
        return [], "PyTorch sees no GPU: torch.cuda.is_available() is False"

    def to_device(self, array: Any, device: str) -> Any:
        return self.torch.as_tensor(array).to(device)

    def wait(self, value: Any) -> None:
        if self.torch.cuda.is_available():
            self.torch.cuda.synchronize()

    def product(self, n: int, device: str) -> Any:
        torch = self.torch
        generator = torch.Generator().manual_seed(SEED)
        a = torch.rand((n, n), generator=generator, dtype=torch.float32).to(device)
        b = torch.rand((n, n), generator=generator, dtype=torch.float32).to(device)
        on_gpu = device.startswith("cuda")

        def once() -> None:
            with torch.no_grad():
                torch.matmul(a, b)
                if on_gpu:
                    torch.cuda.synchronize()  # kernels are asynchronous: wait for them

        return once

    def describe(self) -> dict[str, Any]:
        return {
            "version": self.torch.__version__,
            "cuda": self.torch.version.cuda,
            "keras": self.keras.__version__,
            "matmul_precision": self.torch.get_float32_matmul_precision(),
        }


BACKENDS = {"tensorflow": TensorflowBackend, "jax": JaxBackend, "torch": TorchBackend}


class WindowClock:
    """A Keras callback that records each epoch's wall time (one epoch = one timed window), and
    the matmul throughput of the device right before and right after each window, outside it."""

    def __init__(self, keras: Any, on_window: Any, probe: Any = None) -> None:
        self.keras = keras
        self.windows: list[float] = []
        self.probes: list[tuple[float, float]] = []
        """GFLOP/s of one probe product before and after each window."""
        self._start = 0.0
        self._before = 0.0
        self._on_window = on_window
        self._probe = probe

    def callback(self) -> Any:
        clock = self

        class _Callback(self.keras.callbacks.Callback):  # type: ignore[misc,name-defined]
            def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
                if clock._probe is not None:
                    clock._before = clock._probe()
                clock._start = time.perf_counter()

            def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
                # Keras has turned the epoch's loss into a Python number (float() makes sure):
                # the device work is done.
                float((logs or {}).get("loss", 0.0))
                clock.windows.append(time.perf_counter() - clock._start)
                if clock._probe is not None:
                    clock.probes.append((clock._before, clock._probe()))
                clock._on_window(len(clock.windows))

        return _Callback()


def probe_for(backend: Backend, n: int, device: str) -> Any:
    """One timed matrix product: the device's throughput at this moment, in GFLOP/s."""
    once = backend.product(n, device)
    once()  # compile and warm outside any measurement

    def probe() -> float:
        begin = time.perf_counter()
        once()
        return 2 * n**3 / (time.perf_counter() - begin) / 1e9

    return probe


def summarise(windows: list[float], steps: int, batch_size: int) -> dict[str, Any]:
    rates = [steps * batch_size / w for w in windows]
    median = statistics.median(rates)
    cv = statistics.pstdev(rates) / statistics.fmean(rates) if len(rates) > 1 else 0.0
    return {
        "samples_per_s": median,
        "samples_per_s_min": min(rates),
        "samples_per_s_max": max(rates),
        "cv": cv,
        "step_time_s": statistics.median(windows) / steps,
        "windows_s": windows,
    }


def run_training(
    backend: Backend,
    spec: dict[str, Any],
    workload: str,
    device: str,
    strategy: Any = None,
    batch_size: int | None = None,
) -> dict[str, Any]:
    """``batch_size`` is the global batch; under a strategy it is split across the replicas."""
    keras = backend.keras
    batch = batch_size or spec["batch_size"]
    steps, repeats, warmup = spec["steps"], spec["repeats"], spec["warmup_steps"]
    keras.utils.set_random_seed(SEED)
    with backend.scope(device, strategy):
        model = build(keras, workload)
        model.compile(
            optimizer="adam",
            loss="sparse_categorical_crossentropy",
            jit_compile=spec["jit_compile"],
        )
    flops = forward_flops(model) * 3  # forward + backward (about twice the forward) per sample

    def progress(done: int) -> None:
        emit("PROGRESS", {"workload": workload, "done": done, "total": repeats})

    with backend.fit_scope(device):
        begin = time.perf_counter()
        model.fit(
            backend.dataset(workload, batch, 1),
            epochs=1,
            steps_per_epoch=1,
            verbose=0,
            shuffle=False,
        )
        first_step = time.perf_counter() - begin
        begin = time.perf_counter()
        model.fit(
            backend.dataset(workload, batch, warmup),
            epochs=1,
            steps_per_epoch=warmup,
            verbose=0,
            shuffle=False,
        )
        warmup_s = time.perf_counter() - begin
        probe = (
            probe_for(backend, spec.get("probe_n") or 1024, device) if strategy is None else None
        )
        clock = WindowClock(keras, progress, probe)
        model.fit(
            backend.dataset(workload, batch, steps * repeats),
            epochs=repeats,
            steps_per_epoch=steps,
            verbose=0,
            shuffle=False,  # the data is a generator or a tf.data pipeline: nothing to shuffle
            callbacks=[clock.callback()],
        )
        result = summarise(clock.windows, steps, batch)
        # The feeding alone, for the same number of batches: is training input-bound?
        input_rate = backend.input_rate(workload, batch, steps, device)
    if clock.probes:
        # This window's model GFLOP/s over the device's matmul GFLOP/s around it: a busy or
        # throttled machine slows both alike, so this moves less than samples/s between runs.
        paired = [
            steps * batch / w * flops / 1e9 / (sum(clock.probes[i]) / 2)
            for i, w in enumerate(clock.windows)
        ]
        result["ceiling_normalised"] = statistics.median(paired)
        result["probe_gflops"] = [round((b + a) / 2, 3) for b, a in clock.probes]
    result.update(
        {
            "first_step_s": first_step,
            "warmup_s": warmup_s,
            "warmup_steps": warmup,
            "flops_per_sample": flops,
            "gflops": result["samples_per_s"] * flops / 1e9,
            "input_samples_per_s": input_rate,
            "input_pipeline": backend.pipeline,
            "bound": "input" if input_rate < 1.2 * result["samples_per_s"] else "compute",
            "jit_compile": bool(getattr(model, "jit_compile", False)),
        }
    )
    return result


def run_matmul(backend: Backend, spec: dict[str, Any], device: str) -> dict[str, Any]:
    n = spec["matmul_n"]
    repeats = max(5, spec["repeats"])
    first, windows = backend.matmul(n, device, repeats)
    rates = [2 * n**3 / w / 1e9 for w in windows]
    return {
        "samples_per_s": statistics.median([1 / w for w in windows]),
        "samples_per_s_min": min(1 / w for w in windows),
        "samples_per_s_max": max(1 / w for w in windows),
        "cv": statistics.pstdev(rates) / statistics.fmean(rates),
        "step_time_s": statistics.median(windows),
        "first_step_s": first,
        "gflops": statistics.median(rates),
        "matmul_n": n,
        "windows_s": windows,
    }


def unavailable(reason: str) -> None:
    emit("RESULT", {"status": "unavailable", "reason": reason, "results": []})


def main() -> None:
    spec = json.loads(sys.argv[1])
    name = spec.get("backend", "tensorflow")
    import numpy as np

    backend = BACKENDS[name](np)
    actual = getattr(getattr(backend.keras, "backend", None), "backend", lambda: name)()
    if actual != name:
        unavailable(
            f"Keras runs on {actual}, not {name} (KERAS_BACKEND={os.environ.get('KERAS_BACKEND')!r}); "
            "Keras 3 is needed for the JAX and PyTorch backends"
        )
        return
    if spec.get("mixed_precision"):
        backend.keras.mixed_precision.set_global_policy(spec["mixed_precision"])
    backend.setup(spec)
    devices, reason = backend.devices(spec["device"])
    if not devices:
        unavailable(reason or f"{name} sees no {spec['device'].upper()} device")
        return
    device = devices[0]
    results: list[dict[str, Any]] = []
    ceiling: float | None = None
    for workload in spec["workloads"]:
        emit("PROGRESS", {"workload": workload, "done": 0, "total": spec["repeats"]})
        meta = {
            "backend": name,
            "workload": workload,
            "device": spec["device"],
            "device_name": device,
            "status": "ok",
            "reason": None,
        }
        if workload == "matmul":
            entry = run_matmul(backend, spec, device)
            ceiling = entry["gflops"]
            results.append({**entry, **meta, "batch_size": None})
            continue
        if spec.get("sweep"):
            for batch in spec["sweep"]:
                emit(
                    "PROGRESS",
                    {"workload": f"{workload} batch {batch}", "done": 0, "total": spec["repeats"]},
                )
                entry = run_training(backend, spec, workload, device, batch_size=batch)
                results.append({**entry, **meta, "batch_size": batch, "sweep": True})
            continue
        entry = run_training(backend, spec, workload, device)
        results.append({**entry, **meta, "batch_size": spec["batch_size"]})
        if spec.get("strategy") == "mirrored" and isinstance(backend, TensorflowBackend):
            strategy = backend.tf.distribute.MirroredStrategy(devices)
            replicas = strategy.num_replicas_in_sync
            mirrored = run_training(backend, spec, workload, device, strategy=strategy)
            efficiency = mirrored["samples_per_s"] / (entry["samples_per_s"] * replicas)
            results.append(
                {
                    **mirrored,
                    **meta,
                    "device_name": ",".join(devices),
                    "batch_size": spec["batch_size"],
                    "strategy": "mirrored",
                    "replicas": replicas,
                    "scaling_efficiency": efficiency,
                }
            )
    for entry in results:
        if ceiling and entry["workload"] != "matmul":
            entry["share_of_ceiling"] = entry["gflops"] / ceiling
    described = backend.describe()
    emit(
        "RESULT",
        {
            "status": "ok",
            "reason": None,
            "results": results,
            "backend": {k: v for k, v in described.items() if k != "build"},
            "tf_version": described["version"] if name == "tensorflow" else None,
            "build": described.get("build"),
        },
    )


if __name__ == "__main__":
    main()
