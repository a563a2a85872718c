"""CPU-vs-GPU Keras training benchmarks: plan, one child process per device, results, verdict."""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tf_gpucheck.errors import GpucheckError
from tf_gpucheck.matrix import version_at_least
from tf_gpucheck.snapshot import Snapshot

WORKLOADS = ("mlp", "cnn", "matmul")
DEVICES = ("cpu", "gpu", "all")
BACKENDS = ("tensorflow", "jax", "torch")
"""Keras 3 backends, in the order they run and are shown."""
BACKEND_NAMES = {"tensorflow": "TensorFlow", "jax": "JAX", "torch": "PyTorch"}
PRECISIONS = ("mixed_float16", "mixed_bfloat16")
NOISY_CV = 0.10
SWEEP_BATCHES = (32, 64, 128, 256, 512, 1024, 2048, 4096)
SATURATION = 0.10
"""Throughput "stops growing" when doubling the batch adds less than this."""
RESULTS_SCHEMA_VERSION = 2
"""2 added ``backend`` to each result and speedup, and ``backends`` to the fingerprint."""


@dataclass(frozen=True)
class BenchPlan:
    workloads: tuple[str, ...] = ("mlp", "cnn")
    backends: tuple[str, ...] = ("tensorflow",)
    devices: tuple[str, ...] = ("cpu", "gpu")
    batch_size: int = 128
    steps: int = 50
    repeats: int = 5
    warmup_steps: int = 10
    mixed_precision: str | None = None
    xla: bool | None = None
    """None: Keras' own default (jit_compile="auto")."""
    quick: bool = False
    sweep: tuple[int, ...] | None = None
    """Batch sizes to sweep (each a full timed run) instead of the one --batch-size."""
    strategy: str | None = None
    """"mirrored": also run under MirroredStrategy across all devices of the kind."""
    cpu_devices: int | None = None
    """Logical CPU devices for the CPU run (MirroredStrategy without GPUs)."""

    def spec(self, device: str, backend: str = "tensorflow") -> dict[str, Any]:
        workloads = list(self.workloads)
        if "matmul" not in workloads:
            workloads.append(
                "matmul"
            )  # the device's ceiling, for the share of it each model reaches
        return {
            "device": device,
            "backend": backend,
            "workloads": workloads,
            "batch_size": self.batch_size,
            "steps": self.steps,
            "repeats": self.repeats,
            "warmup_steps": self.warmup_steps,
            "jit_compile": "auto" if self.xla is None else self.xla,
            "mixed_precision": self.mixed_precision,
            "matmul_n": 2048 if device == "cpu" else 8192,
            "probe_n": 1024 if device == "cpu" else 4096,
            "sweep": list(self.sweep) if self.sweep else None,
            "strategy": self.strategy,
            "cpu_devices": self.cpu_devices,
        }


def make_plan(
    *,
    workloads: list[str] | None,
    device: str,
    batch_size: int | None,
    steps: int | None,
    repeats: int | None,
    mixed_precision: str | None,
    xla: bool | None,
    quick: bool,
    sweep: bool = False,
    strategy: str | None = None,
    cpu_devices: int | None = None,
    backend: str = "tensorflow",
) -> BenchPlan:
    chosen: list[str] = []
    for item in workloads or []:
        for name in item.split(","):
            if name.strip() not in WORKLOADS:
                raise _bad(f"--workload {name.strip()!r}: expected one of {', '.join(WORKLOADS)}")
            chosen.append(name.strip())
    if device not in DEVICES:
        raise _bad(f"--device {device!r}: expected cpu, gpu or all")
    if backend not in (*BACKENDS, "all"):
        raise _bad(f"--backend {backend!r}: expected tensorflow, jax, torch or all")
    backends = BACKENDS if backend == "all" else (backend,)
    if strategy is not None and backends != ("tensorflow",):
        raise _bad(
            "--strategy mirrored is TensorFlow's MirroredStrategy: give it with --backend tensorflow"
        )
    if mixed_precision is not None and mixed_precision not in PRECISIONS:
        raise _bad(f"--mixed-precision {mixed_precision!r}: expected {' or '.join(PRECISIONS)}")
    for flag, value in (("--batch-size", batch_size), ("--steps", steps), ("--repeats", repeats)):
        if value is not None and value < 1:
            raise _bad(f"{flag} {value}: must be at least 1")
    if repeats is not None and repeats < 2:
        raise _bad(f"--repeats {repeats}: at least 2 windows are needed for a spread")
    if strategy is not None and strategy != "mirrored":
        raise _bad(f"--strategy {strategy!r}: expected mirrored")
    if cpu_devices is not None and cpu_devices < 2:
        raise _bad(f"--cpu-devices {cpu_devices}: MirroredStrategy needs at least 2")
    if cpu_devices is not None and strategy is None:
        raise _bad("--cpu-devices only matters with --strategy mirrored")
    if sweep and strategy is not None:
        raise _bad("--sweep and --strategy are separate runs: give one of them")
    base = BenchPlan(steps=30, repeats=3, warmup_steps=10, quick=True) if quick else BenchPlan()
    return BenchPlan(
        workloads=tuple(dict.fromkeys(chosen)) or base.workloads,
        backends=backends,
        devices=("cpu", "gpu") if device == "all" else (device,),
        batch_size=batch_size or base.batch_size,
        steps=steps or base.steps,
        repeats=repeats or base.repeats,
        warmup_steps=base.warmup_steps,
        mixed_precision=mixed_precision,
        xla=xla,
        quick=quick,
        sweep=SWEEP_BATCHES if sweep else None,
        strategy=strategy,
        cpu_devices=cpu_devices,
    )


def _bad(message: str) -> GpucheckError:
    return GpucheckError(
        message, reference="bench-option-invalid", hint="gpucheck benchmark --help"
    )


@dataclass(frozen=True)
class BenchResult:
    device: str
    workload: str
    status: str
    """ok or unavailable."""
    reason: str | None = None
    batch_size: int | None = None
    samples_per_s: float | None = None
    """Median over the timed windows (for matmul: products per second)."""
    samples_per_s_min: float | None = None
    samples_per_s_max: float | None = None
    cv: float | None = None
    step_time_s: float | None = None
    first_step_s: float | None = None
    warmup_s: float | None = None
    gflops: float | None = None
    share_of_ceiling: float | None = None
    input_samples_per_s: float | None = None
    bound: str | None = None
    windows_s: tuple[float, ...] = ()
    backend: str = "tensorflow"
    ceiling_normalised: float | None = None
    """The model's GFLOP/s in each timed window over the device's matmul GFLOP/s measured right
    before and after that window (outside it); the median. What --baseline compares."""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Speedup:
    workload: str
    median: float
    low: float
    high: float
    backend: str = "tensorflow"


@dataclass(frozen=True)
class Ranking:
    """The backends side by side on one device and workload, fastest first."""

    device: str
    workload: str
    backends: tuple[str, ...]
    samples_per_s: tuple[float, ...]
    clear: bool
    """The fastest's slowest window beats the runner-up's fastest window (not within noise)."""

    @property
    def fastest(self) -> str:
        return self.backends[0]


@dataclass(frozen=True)
class BenchReport:
    fingerprint: dict[str, Any]
    plan: BenchPlan
    results: tuple[BenchResult, ...]
    speedups: tuple[Speedup, ...]
    noisy: tuple[str, ...]
    gpu_reason: str | None
    rankings: tuple[Ranking, ...] = ()

    def to_data(self) -> dict[str, Any]:
        from tf_gpucheck._codec import to_data

        return {
            "schema_version": RESULTS_SCHEMA_VERSION,
            "fingerprint": self.fingerprint,
            "plan": to_data(self.plan),
            "results": [_result_data(r) for r in self.results],
            "speedups": to_data(self.speedups),
            "noisy": list(self.noisy),
            "gpu_reason": self.gpu_reason,
            "rankings": to_data(self.rankings),
        }


def _result_data(result: BenchResult) -> dict[str, Any]:
    from tf_gpucheck._codec import to_data

    data: dict[str, Any] = to_data(result)
    data.update(data.pop("extra"))
    return data


_KNOWN = {f for f in BenchResult.__dataclass_fields__ if f != "extra"}


def _result(entry: dict[str, Any]) -> BenchResult:
    known = {k: v for k, v in entry.items() if k in _KNOWN}
    known["windows_s"] = tuple(known.get("windows_s") or ())
    extra = {k: v for k, v in entry.items() if k not in _KNOWN}
    return BenchResult(**known, extra=extra)


def fingerprint(snapshot: Snapshot, backends: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The machine and each backend that ran (version, the CUDA it was built with, Keras)."""
    tf = backends.get("tensorflow") or {}
    return {
        "cpu_model": snapshot.system.cpu_model,
        "cpu_count": snapshot.system.cpu_count,
        "gpu_names": [g.name for g in snapshot.nvml.gpus],
        "driver": snapshot.nvml.driver_version,
        "tensorflow": tf.get("version"),
        "tensorflow_build": tf.get("build"),
        "backends": {
            name: {k: v for k, v in facts.items() if k != "build"}
            for name, facts in backends.items()
        },
    }


def gpu_unavailable_reason(snapshot: Snapshot, backend: str = "tensorflow") -> str | None:
    """Why ``backend`` cannot use a GPU here (None when it may), shown instead of GPU figures.

    For TensorFlow, doctor's first cause: the whole diagnosis, not only the driver (a CPU-only
    TensorFlow build or a missing TensorFlow is the reason before any driver). For JAX and
    PyTorch only what the driver shows: TensorFlow's diagnosis says nothing about them (on a
    real H200 with no TensorFlow, a doctor cause held their GPU runs back), and their own child
    says when the backend sees no GPU."""
    from tf_gpucheck.checks.diagnosis import EXPLAINS
    from tf_gpucheck.checks.facts import no_gpu_reason, visible_gpus
    from tf_gpucheck.examine import examine
    from tf_gpucheck.installer.commands import rerun

    if backend != "tensorflow":
        return no_gpu_reason(snapshot)

    report = examine(snapshot=snapshot, prove_wait_s=None).report
    first = report.first_fix
    no_gpu = EXPLAINS["gpu_required"]
    if visible_gpus(snapshot)[0] and (first is None or first.cause not in no_gpu):
        return None
    if first is None:
        return "no GPU is visible"
    return f"{first.summary} [{first.cause}]; the fix: {rerun(snapshot, 'doctor')}"


_NEEDS = {"tensorflow": ("tensorflow",), "jax": ("jax", "jaxlib"), "torch": ("torch",)}


def backend_missing(snapshot: Snapshot, backend: str, python: str) -> str | None:
    """Why ``backend`` cannot run in the target environment, from its installed distributions
    (None when it can, or when the packages could not be read: then the child says)."""
    from tf_gpucheck.installer.commands import main_distributions

    packages = snapshot.packages
    if packages.error:
        return None
    if backend == "tensorflow":
        if not main_distributions(snapshot):
            return f"tensorflow is not installed in {python}"
        return None
    if packages.other_frameworks is None:
        return None
    installed = {d.name for d in packages.other_frameworks}
    for name in _NEEDS[backend]:
        if name not in installed:
            return f"{name} is not installed in {python}"
    if packages.keras is None:
        return f"keras is not installed in {python}"
    if not version_at_least(packages.keras, "3"):
        return f"keras {packages.keras} runs on TensorFlow only; the {BACKEND_NAMES[backend]} backend needs Keras 3"
    return None


def child_environment(backend: str, device: str) -> dict[str, str]:
    """The user's environment, with the Keras backend set and, for a CPU run, the GPUs hidden
    in the way the backend honours."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", KERAS_BACKEND=backend)
    if device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = "-1"  # the CPU run cannot touch (or be helped by) a GPU
        if backend == "jax":
            env["JAX_PLATFORMS"] = "cpu"  # JAX would still look for (and warn about) CUDA
    return env


Progress = Callable[[str, str, int, int], None]
"""(device, workload, done, total); the device reads "jax cpu" when the plan has other backends."""


def run(
    plan: BenchPlan,
    snapshot: Snapshot,
    *,
    gpu_reason: str | Mapping[str, str | None] | None,
    python: str | None = None,
    timeout_s: float = 600.0,
    progress: Progress | None = None,
) -> BenchReport:
    """Run every (backend, device) of the plan in its own child; a device or backend that cannot
    run is a result, not an error. ``gpu_reason``: why the GPU is not run, for every backend or
    by backend (:func:`gpu_unavailable_reason`)."""
    from tf_gpucheck._children import script
    from tf_gpucheck._process import describe_exit, run_child_streaming

    interpreter = python or sys.executable
    reasons = (
        dict(gpu_reason)
        if isinstance(gpu_reason, Mapping)
        else dict.fromkeys(plan.backends, gpu_reason)
    )
    results: list[BenchResult] = []
    described: dict[str, dict[str, Any]] = {}
    for backend in plan.backends:
        missing = backend_missing(snapshot, backend, interpreter)
        if missing is not None:
            results += [
                BenchResult(d, w, "skipped", missing, backend=backend)
                for d in plan.devices
                for w in plan.workloads
            ]
            continue
        for device in plan.devices:
            backend_reason = reasons.get(backend)
            if device == "gpu" and backend_reason is not None:
                results += [
                    BenchResult("gpu", w, "unavailable", backend_reason, backend=backend)
                    for w in plan.workloads
                ]
                continue
            label = device if plan.backends == ("tensorflow",) else f"{backend} {device}"
            payload: dict[str, Any] = {}

            def on_line(line: str, label: str = label, payload: dict[str, Any] = payload) -> None:
                kind, _, body = line.partition(" ")
                if kind == "PROGRESS" and progress is not None:
                    event = json.loads(body)
                    progress(label, event["workload"], event["done"], event["total"])
                elif kind == "RESULT":
                    payload.update(json.loads(body))

            outcome = run_child_streaming(
                [interpreter, script("bench_run"), json.dumps(plan.spec(device, backend))],
                timeout_s=timeout_s,
                on_line=on_line,
                env=child_environment(backend, device),
            )
            if not payload or outcome.returncode != 0:
                tail = (outcome.stderr.strip().splitlines() or [""])[-1]
                why = f"the benchmark child {describe_exit(outcome.returncode)}: {tail}".strip()
                results += [
                    BenchResult(device, w, "unavailable", why, backend=backend)
                    for w in plan.workloads
                ]
                continue
            if payload["status"] != "ok":
                results += [
                    BenchResult(device, w, "unavailable", payload["reason"], backend=backend)
                    for w in plan.workloads
                ]
                continue
            facts = dict(payload.get("backend") or {})
            if payload.get("build"):
                facts["build"] = payload["build"]
            described[backend] = facts
            results += [_result(entry) for entry in payload["results"]]
    return BenchReport(
        fingerprint=fingerprint(snapshot, described),
        plan=plan,
        results=tuple(results),
        speedups=tuple(speedups(results)),
        noisy=tuple(run_label(r, plan) for r in results if r.cv is not None and r.cv > NOISY_CV),
        gpu_reason=(
            None
            if any(r.device == "gpu" and r.status == "ok" for r in results)
            else next((reasons[b] for b in plan.backends if reasons.get(b)), None)
        ),
        rankings=tuple(rankings(results)),
    )


def run_label(result: BenchResult, plan: BenchPlan) -> str:
    """ "cpu/mlp", or "jax/cpu/mlp" when the plan has a backend other than TensorFlow."""
    if plan.backends == ("tensorflow",):
        return f"{result.device}/{result.workload}"
    return f"{result.backend}/{result.device}/{result.workload}"


def plain_runs(results: list[BenchResult] | tuple[BenchResult, ...]) -> list[BenchResult]:
    """Single-device training and matmul runs (not sweeps, not MirroredStrategy)."""
    return [
        r
        for r in results
        if r.status == "ok" and not r.extra.get("sweep") and not r.extra.get("strategy")
    ]


def speedups(results: list[BenchResult]) -> list[Speedup]:
    """GPU over CPU per backend and workload: the ratio of medians, and the range from the
    windows' extremes. Training compares samples/s; matmul compares GFLOP/s, since each device
    multiplies matrices of its own size (products per second of n=8192 against n=2048 said
    "0.6x" for an H200 running 50 TFLOP/s against a CPU's 1.2)."""
    by_key = {(r.backend, r.device, r.workload): r for r in plain_runs(results)}
    out = []
    for (backend, device, workload), gpu in by_key.items():
        cpu = by_key.get((backend, "cpu", workload))
        if device != "gpu" or cpu is None:
            continue
        rates = (
            gpu.samples_per_s,
            gpu.samples_per_s_min,
            gpu.samples_per_s_max,
            cpu.samples_per_s,
            cpu.samples_per_s_min,
            cpu.samples_per_s_max,
        )
        if not all(rates):
            continue
        g, g_min, g_max, c, c_min, c_max = (float(r or 0) for r in rates)
        scale = 1.0
        if workload == "matmul":  # FLOP per product on each device: its own n
            if not (gpu.gflops and cpu.gflops):
                continue
            scale = (gpu.gflops / g) / (cpu.gflops / c)
        out.append(
            Speedup(workload, g / c * scale, g_min / c_max * scale, g_max / c_min * scale, backend)
        )
    return out


def rankings(results: list[BenchResult] | tuple[BenchResult, ...]) -> list[Ranking]:
    """Per device and training workload, the backends that ran, fastest (median samples/s) first."""
    plain = [r for r in plain_runs(results) if r.workload != "matmul" and r.samples_per_s]
    out = []
    for device, workload in dict.fromkeys((r.device, r.workload) for r in plain):
        rows = sorted(
            (r for r in plain if (r.device, r.workload) == (device, workload)),
            key=lambda r: -(r.samples_per_s or 0),
        )
        if len(rows) < 2:
            continue
        first, second = rows[0], rows[1]
        clear = (first.samples_per_s_min or 0) > (second.samples_per_s_max or float("inf"))
        out.append(
            Ranking(
                device,
                workload,
                tuple(r.backend for r in rows),
                tuple(float(r.samples_per_s or 0) for r in rows),
                clear,
            )
        )
    return out


@dataclass(frozen=True)
class SweepSummary:
    workload: str
    device: str
    saturates_at: int | None
    """The first batch size after which doubling adds less than SATURATION throughput."""
    backend: str = "tensorflow"


def sweep_summary(
    results: tuple[BenchResult, ...] | list[BenchResult],
) -> tuple[list[SweepSummary], dict[tuple[str, str], int | None]]:
    """Per backend, device and workload where throughput stops growing; per backend and workload
    where the GPU overtakes the CPU (keyed by (backend, workload))."""
    swept = [r for r in results if r.status == "ok" and r.extra.get("sweep") and r.samples_per_s]
    summaries = []
    crossover: dict[tuple[str, str], int | None] = {}
    for backend, workload in dict.fromkeys((r.backend, r.workload) for r in swept):
        mine = [r for r in swept if (r.backend, r.workload) == (backend, workload)]
        for device in ("cpu", "gpu"):
            rows = sorted((r for r in mine if r.device == device), key=lambda r: r.batch_size or 0)
            if not rows:
                continue
            saturates = None
            for small, big in itertools.pairwise(rows):
                if (big.samples_per_s or 0) < (small.samples_per_s or 0) * (1 + SATURATION):
                    saturates = small.batch_size
                    break
            summaries.append(SweepSummary(workload, device, saturates, backend))
        cpu = {r.batch_size or 0: r.samples_per_s or 0 for r in mine if r.device == "cpu"}
        gpu = {r.batch_size or 0: r.samples_per_s or 0 for r in mine if r.device == "gpu"}
        if cpu and gpu:
            crossover[(backend, workload)] = next(
                (b for b in sorted(gpu) if b in cpu and gpu[b] > cpu[b]), None
            )
    return summaries, crossover


# the baseline comparison lives in bench_baseline; these names stay importable from here
from tf_gpucheck.bench_baseline import (  # noqa: E402
    MACHINE_KEYS,
    Regression,
    ceiling_changes,
    compare,
    load_baseline,
    parse_tolerance,
)

__all__ = [
    "MACHINE_KEYS",
    "BenchPlan",
    "BenchReport",
    "BenchResult",
    "Ranking",
    "Regression",
    "Speedup",
    "SweepSummary",
    "backend_missing",
    "ceiling_changes",
    "child_environment",
    "compare",
    "fingerprint",
    "gpu_unavailable_reason",
    "load_baseline",
    "make_plan",
    "parse_tolerance",
    "rankings",
    "run",
    "run_label",
    "speedups",
    "sweep_summary",
]
