"""Run gpucheck's Keras training benchmarks on one device, in this process, and print results.

argv[1] is the run's JSON spec. Progress lines ("PROGRESS {...}") and the result
("RESULT {...}") go to stdout. The parent hides GPUs (CUDA_VISIBLE_DEVICES=-1) for a CPU run,
so the two devices cannot warm, slow or pollute each other.

Timing: the model is built and compiled on the device; the first step (tracing and compiling)
and the warm-up steps are timed separately and never mixed into throughput; then `repeats`
timed windows (Keras epochs) of `steps` steps each over a prefetched tf.data pipeline. Each
window's clock stops in on_epoch_end, after Keras has turned the epoch's metrics into Python
numbers, which waits for the device's work.

Standard library, NumPy and TensorFlow only; Python 3.8+.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from typing import Any

SEED = 1234


def emit(kind: str, payload: dict[str, Any]) -> None:
    sys.stdout.write(f"{kind} {json.dumps(payload)}\n")
    sys.stdout.flush()


def build(tf: Any, workload: str) -> Any:
    keras = tf.keras
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


def dataset(tf: Any, np: Any, workload: str, batch_size: int, batches: int) -> Any:
    rng = np.random.default_rng(SEED)
    shape = (784,) if workload == "mlp" else (32, 32, 3)
    x = rng.random((batch_size * 8, *shape), dtype=np.float32)
    y = rng.integers(0, 10, size=(batch_size * 8,)).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(batch_size, drop_remainder=True)
    return ds.take(batches).prefetch(tf.data.AUTOTUNE)


class WindowClock:
    """A Keras callback that records each epoch's wall time (one epoch = one timed window)."""

    def __init__(self, tf: Any, on_window: Any) -> None:
        self.tf = tf
        self.windows: list[float] = []
        self._start = 0.0
        self._on_window = on_window

    def callback(self) -> Any:
        clock = self

        class _Callback(self.tf.keras.callbacks.Callback):  # type: ignore[misc,name-defined]
            def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
                clock._start = time.perf_counter()

            def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
                # Keras has converted the epoch's loss to a Python float: the device work is done.
                clock.windows.append(time.perf_counter() - clock._start)
                clock._on_window(len(clock.windows))

        return _Callback()


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
    tf: Any,
    np: Any,
    spec: dict[str, Any],
    workload: str,
    device: str,
    strategy: Any = None,
    batch_size: int | None = None,
) -> dict[str, Any]:
    """``batch_size`` is the global batch; under a strategy it is split across the replicas."""
    batch = batch_size or spec["batch_size"]
    steps, repeats, warmup = spec["steps"], spec["repeats"], spec["warmup_steps"]
    tf.keras.utils.set_random_seed(SEED)
    with strategy.scope() if strategy is not None else tf.device(device):
        model = build(tf, workload)
        model.compile(
            optimizer="adam",
            loss="sparse_categorical_crossentropy",
            jit_compile=spec["jit_compile"],
        )
    flops = forward_flops(model) * 3  # forward + backward (about twice the forward) per sample

    def progress(done: int) -> None:
        emit("PROGRESS", {"workload": workload, "done": done, "total": repeats})

    begin = time.perf_counter()
    model.fit(dataset(tf, np, workload, batch, 1), epochs=1, steps_per_epoch=1, verbose=0)
    first_step = time.perf_counter() - begin
    begin = time.perf_counter()
    model.fit(dataset(tf, np, workload, batch, warmup), epochs=1, steps_per_epoch=warmup, verbose=0)
    warmup_s = time.perf_counter() - begin
    clock = WindowClock(tf, progress)
    model.fit(
        dataset(tf, np, workload, batch, steps * repeats),
        epochs=repeats,
        steps_per_epoch=steps,
        verbose=0,
        callbacks=[clock.callback()],
    )
    result = summarise(clock.windows, steps, batch)
    # The input pipeline alone, for the same number of batches: is training input-bound?
    begin = time.perf_counter()
    for _ in dataset(tf, np, workload, batch, steps):
        pass
    input_rate = steps * batch / (time.perf_counter() - begin)
    result.update(
        {
            "first_step_s": first_step,
            "warmup_s": warmup_s,
            "warmup_steps": warmup,
            "flops_per_sample": flops,
            "gflops": result["samples_per_s"] * flops / 1e9,
            "input_samples_per_s": input_rate,
            "bound": "input" if input_rate < 1.2 * result["samples_per_s"] else "compute",
            "jit_compile": bool(getattr(model, "jit_compile", False)),
        }
    )
    return result


def run_matmul(tf: Any, spec: dict[str, Any], device: str) -> dict[str, Any]:
    n = spec["matmul_n"]
    repeats = max(5, spec["repeats"])
    with tf.device(device):
        a = tf.random.stateless_uniform((n, n), seed=(1, 2), dtype=tf.float32)
        b = tf.random.stateless_uniform((n, n), seed=(3, 4), dtype=tf.float32)
        begin = time.perf_counter()
        float(tf.reduce_sum(tf.matmul(a, b)).numpy())
        first = time.perf_counter() - begin
        windows = []
        for i in range(repeats):
            begin = time.perf_counter()
            float(tf.reduce_sum(tf.matmul(a, b)).numpy())  # .numpy() waits for the device
            windows.append(time.perf_counter() - begin)
            emit("PROGRESS", {"workload": "matmul", "done": i + 1, "total": repeats})
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


def main() -> None:
    spec = json.loads(sys.argv[1])
    import numpy as np
    import tensorflow as tf

    if spec.get("mixed_precision"):
        tf.keras.mixed_precision.set_global_policy(spec["mixed_precision"])
    kind = spec["device"].upper()
    if spec.get("cpu_devices") and kind == "CPU":
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(spec["cpu_devices"])]
        )
    devices = tf.config.list_logical_devices(kind)
    if not devices:
        emit(
            "RESULT",
            {"status": "unavailable", "reason": f"TensorFlow sees no {kind} device", "results": []},
        )
        return
    device = devices[0].name
    results: list[dict[str, Any]] = []
    ceiling: float | None = None
    for workload in spec["workloads"]:
        emit("PROGRESS", {"workload": workload, "done": 0, "total": spec["repeats"]})
        meta = {
            "workload": workload,
            "device": spec["device"],
            "device_name": device,
            "status": "ok",
            "reason": None,
        }
        if workload == "matmul":
            entry = run_matmul(tf, spec, device)
            ceiling = entry["gflops"]
            results.append({**entry, **meta, "batch_size": None})
            continue
        if spec.get("sweep"):
            for batch in spec["sweep"]:
                emit(
                    "PROGRESS",
                    {"workload": f"{workload} batch {batch}", "done": 0, "total": spec["repeats"]},
                )
                entry = run_training(tf, np, spec, workload, device, batch_size=batch)
                results.append({**entry, **meta, "batch_size": batch, "sweep": True})
            continue
        entry = run_training(tf, np, spec, workload, device)
        results.append({**entry, **meta, "batch_size": spec["batch_size"]})
        if spec.get("strategy") == "mirrored":
            names = [d.name for d in devices]
            strategy = tf.distribute.MirroredStrategy(names)
            replicas = strategy.num_replicas_in_sync
            mirrored = run_training(tf, np, spec, workload, device, strategy=strategy)
            efficiency = mirrored["samples_per_s"] / (entry["samples_per_s"] * replicas)
            results.append(
                {
                    **mirrored,
                    **meta,
                    "device_name": ",".join(names),
                    "batch_size": spec["batch_size"],
                    "strategy": "mirrored",
                    "replicas": replicas,
                    "scaling_efficiency": efficiency,
                }
            )
    for entry in results:
        if ceiling and entry["workload"] != "matmul":
            entry["share_of_ceiling"] = entry["gflops"] / ceiling
    emit(
        "RESULT",
        {
            "status": "ok",
            "reason": None,
            "results": results,
            "tf_version": tf.__version__,
            "build": {k: str(v) for k, v in tf.sysconfig.get_build_info().items()},
        },
    )


if __name__ == "__main__":
    main()
