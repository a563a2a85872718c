"""CPU-vs-GPU Keras training benchmarks: plan, one child process per device, results, verdict."""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpucheck.errors import GpucheckError
from gpucheck.snapshot import Snapshot

WORKLOADS = ("mlp", "cnn", "matmul")
DEVICES = ("cpu", "gpu", "all")
PRECISIONS = ("mixed_float16", "mixed_bfloat16")
NOISY_CV = 0.10
SWEEP_BATCHES = (32, 64, 128, 256, 512, 1024, 2048, 4096)
SATURATION = 0.10
"""Throughput "stops growing" when doubling the batch adds less than this."""
RESULTS_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class BenchPlan:
    workloads: tuple[str, ...] = ("mlp", "cnn")
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

    def spec(self, device: str) -> dict[str, Any]:
        workloads = list(self.workloads)
        if "matmul" not in workloads:
            workloads.append(
                "matmul"
            )  # the device's ceiling, for the share of it each model reaches
        return {
            "device": device,
            "workloads": workloads,
            "batch_size": self.batch_size,
            "steps": self.steps,
            "repeats": self.repeats,
            "warmup_steps": self.warmup_steps,
            "jit_compile": "auto" if self.xla is None else self.xla,
            "mixed_precision": self.mixed_precision,
            "matmul_n": 2048 if device == "cpu" else 8192,
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
) -> BenchPlan:
    chosen: list[str] = []
    for item in workloads or []:
        for name in item.split(","):
            if name.strip() not in WORKLOADS:
                raise _bad(f"--workload {name.strip()!r}: expected one of {', '.join(WORKLOADS)}")
            chosen.append(name.strip())
    if device not in DEVICES:
        raise _bad(f"--device {device!r}: expected cpu, gpu or all")
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
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Speedup:
    workload: str
    median: float
    low: float
    high: float


@dataclass(frozen=True)
class BenchReport:
    fingerprint: dict[str, Any]
    plan: BenchPlan
    results: tuple[BenchResult, ...]
    speedups: tuple[Speedup, ...]
    noisy: tuple[str, ...]
    gpu_reason: str | None

    def to_data(self) -> dict[str, Any]:
        from gpucheck._codec import to_data

        return {
            "schema_version": RESULTS_SCHEMA_VERSION,
            "fingerprint": self.fingerprint,
            "plan": to_data(self.plan),
            "results": [_result_data(r) for r in self.results],
            "speedups": to_data(self.speedups),
            "noisy": list(self.noisy),
            "gpu_reason": self.gpu_reason,
        }


def _result_data(result: BenchResult) -> dict[str, Any]:
    from gpucheck._codec import to_data

    data: dict[str, Any] = to_data(result)
    data.update(data.pop("extra"))
    return data


_KNOWN = {f for f in BenchResult.__dataclass_fields__ if f != "extra"}


def _result(entry: dict[str, Any]) -> BenchResult:
    known = {k: v for k, v in entry.items() if k in _KNOWN}
    known["windows_s"] = tuple(known.get("windows_s") or ())
    extra = {k: v for k, v in entry.items() if k not in _KNOWN}
    return BenchResult(**known, extra=extra)


def fingerprint(
    snapshot: Snapshot, tf_version: str | None, build: dict[str, Any] | None
) -> dict[str, Any]:
    return {
        "cpu_model": snapshot.system.cpu_model,
        "cpu_count": snapshot.system.cpu_count,
        "gpu_names": [g.name for g in snapshot.nvml.gpus],
        "driver": snapshot.nvml.driver_version,
        "tensorflow": tf_version,
        "tensorflow_build": build,
    }


def gpu_unavailable_reason(snapshot: Snapshot) -> str | None:
    """Doctor's one-line reason when no GPU is visible (None when one is): shown instead of GPU figures."""
    from gpucheck.doctor import run_checks
    from gpucheck.doctor.facts import visible_gpus
    from gpucheck.matrix import load_matrix

    if visible_gpus(snapshot)[0]:
        return None
    report = run_checks(
        snapshot, load_matrix(), checks=["platform", "nvidia_driver", "gpu_visibility"]
    )
    first = report.first_fix
    return first.summary if first else "no GPU is visible"


Progress = Callable[[str, str, int, int], None]
"""(device, workload, done, total)"""


def run(
    plan: BenchPlan,
    snapshot: Snapshot,
    *,
    gpu_reason: str | None,
    python: str | None = None,
    timeout_s: float = 600.0,
    progress: Progress | None = None,
) -> BenchReport:
    """Run every device of the plan in its own child; a GPU that cannot run is a result, not an error."""
    from gpucheck._children import script
    from gpucheck._process import describe_exit, run_child_streaming

    results: list[BenchResult] = []
    tf_version = build = None
    for device in plan.devices:
        if device == "gpu" and gpu_reason is not None:
            results += [BenchResult("gpu", w, "unavailable", gpu_reason) for w in plan.workloads]
            continue
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
        if device == "cpu":
            env["CUDA_VISIBLE_DEVICES"] = "-1"  # the CPU run cannot touch (or be helped by) a GPU
        payload: dict[str, Any] = {}

        def on_line(line: str, device: str = device, payload: dict[str, Any] = payload) -> None:
            kind, _, body = line.partition(" ")
            if kind == "PROGRESS" and progress is not None:
                event = json.loads(body)
                progress(device, event["workload"], event["done"], event["total"])
            elif kind == "RESULT":
                payload.update(json.loads(body))

        outcome = run_child_streaming(
            [python or sys.executable, script("bench_run"), json.dumps(plan.spec(device))],
            timeout_s=timeout_s,
            on_line=on_line,
            env=env,
        )
        if not payload or outcome.returncode != 0:
            tail = (outcome.stderr.strip().splitlines() or [""])[-1]
            why = f"the benchmark child {describe_exit(outcome.returncode)}: {tail}".strip()
            results += [BenchResult(device, w, "unavailable", why) for w in plan.workloads]
            continue
        if payload["status"] != "ok":
            results += [
                BenchResult(device, w, "unavailable", payload["reason"]) for w in plan.workloads
            ]
            continue
        tf_version = payload.get("tf_version") or tf_version
        build = payload.get("build") or build
        results += [_result(entry) for entry in payload["results"]]
    return BenchReport(
        fingerprint=fingerprint(snapshot, tf_version, build),
        plan=plan,
        results=tuple(results),
        speedups=tuple(speedups(results)),
        noisy=tuple(
            f"{r.device}/{r.workload}" for r in results if r.cv is not None and r.cv > NOISY_CV
        ),
        gpu_reason=gpu_reason,
    )


def speedups(results: list[BenchResult]) -> list[Speedup]:
    """GPU over CPU per workload: the ratio of medians, and the range from the windows' extremes."""
    by_key = {
        (r.device, r.workload): r
        for r in results
        if r.status == "ok" and not r.extra.get("sweep") and not r.extra.get("strategy")
    }
    out = []
    for (device, workload), gpu in by_key.items():
        cpu = by_key.get(("cpu", workload))
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
        out.append(Speedup(workload, g / c, g_min / c_max, g_max / c_min))
    return out


@dataclass(frozen=True)
class SweepSummary:
    workload: str
    device: str
    saturates_at: int | None
    """The first batch size after which doubling adds less than SATURATION throughput."""


def sweep_summary(
    results: tuple[BenchResult, ...] | list[BenchResult],
) -> tuple[list[SweepSummary], dict[str, int | None]]:
    """Per device and workload where throughput stops growing; per workload where the GPU overtakes the CPU."""
    swept = [r for r in results if r.status == "ok" and r.extra.get("sweep") and r.samples_per_s]
    summaries = []
    crossover: dict[str, int | None] = {}
    for workload in dict.fromkeys(r.workload for r in swept):
        for device in ("cpu", "gpu"):
            rows = sorted(
                (r for r in swept if r.workload == workload and r.device == device),
                key=lambda r: r.batch_size or 0,
            )
            if not rows:
                continue
            saturates = None
            for small, big in itertools.pairwise(rows):
                if (big.samples_per_s or 0) < (small.samples_per_s or 0) * (1 + SATURATION):
                    saturates = small.batch_size
                    break
            summaries.append(SweepSummary(workload, device, saturates))
        cpu = {
            r.batch_size or 0: r.samples_per_s or 0
            for r in swept
            if r.workload == workload and r.device == "cpu"
        }
        gpu = {
            r.batch_size or 0: r.samples_per_s or 0
            for r in swept
            if r.workload == workload and r.device == "gpu"
        }
        if cpu and gpu:
            crossover[workload] = next(
                (b for b in sorted(gpu) if b in cpu and gpu[b] > cpu[b]), None
            )
    return summaries, crossover


@dataclass(frozen=True)
class Regression:
    device: str
    workload: str
    batch_size: int | None
    baseline: float
    current: float

    @property
    def change(self) -> float:
        return self.current / self.baseline - 1


def parse_tolerance(value: str) -> float:
    """ "10%" or "0.1" -> 0.1."""
    text = value.strip()
    try:
        number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise GpucheckError(
            f"--tolerance {value!r}: expected a share such as 10% or 0.1",
            reference="bench-option-invalid",
        ) from None
    if not 0 <= number < 1:
        raise GpucheckError(
            f"--tolerance {value!r}: must be between 0% and 100%", reference="bench-option-invalid"
        )
    return number


def load_baseline(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        raise GpucheckError(
            f"--baseline {path!r} does not exist",
            reference="baseline-missing",
            hint="write one with: gpucheck bench --output baseline.json",
        ) from None
    except (OSError, ValueError) as exc:
        raise GpucheckError(
            f"--baseline {path!r} is not readable JSON: {exc}", reference="baseline-invalid"
        ) from None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("results"), list)
        or not isinstance(data.get("fingerprint"), dict)
    ):
        raise GpucheckError(
            f"--baseline {path!r} is not a gpucheck bench result",
            reference="baseline-invalid",
            hint="write one with: gpucheck bench --output baseline.json",
        )
    version = data.get("schema_version")
    if not isinstance(version, int) or version > RESULTS_SCHEMA_VERSION:
        raise GpucheckError(
            f"--baseline {path!r} has schema_version {version!r}; this gpucheck reads "
            f"{RESULTS_SCHEMA_VERSION}",
            reference="baseline-invalid",
        )
    return data


FINGERPRINT_KEYS = ("cpu_model", "gpu_names", "driver", "tensorflow")


def compare(report: BenchReport, baseline: dict[str, Any], tolerance: float) -> list[Regression]:
    """Workloads that got slower than the baseline by more than ``tolerance`` (same machine only)."""
    theirs = baseline["fingerprint"]
    differs = [k for k in FINGERPRINT_KEYS if theirs.get(k) != report.fingerprint.get(k)]
    if differs:
        key = differs[0]
        raise GpucheckError(
            f"the baseline comes from another machine or setup ({key}: {theirs.get(key)!r} there, "
            f"{report.fingerprint.get(key)!r} here)",
            reference="baseline-other-machine",
            hint="compare runs of the same machine, driver and TensorFlow",
        )
    before = {
        (r.get("device"), r.get("workload"), r.get("batch_size")): r.get("samples_per_s")
        for r in baseline["results"]
        if isinstance(r, dict) and r.get("status") == "ok"
    }
    out = []
    for r in report.results:
        old = before.get((r.device, r.workload, r.batch_size))
        if (
            r.status == "ok"
            and isinstance(old, (int, float))
            and old > 0
            and r.samples_per_s is not None
            and r.samples_per_s < old * (1 - tolerance)
        ):
            out.append(Regression(r.device, r.workload, r.batch_size, float(old), r.samples_per_s))
    return out
