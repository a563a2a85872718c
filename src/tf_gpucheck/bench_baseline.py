"""A benchmark against an earlier one (``gpucheck bench --baseline FILE``): the same machine and
setup, the same rows, each compared within a tolerance; what changed in the device's ceiling."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tf_gpucheck.bench import RESULTS_SCHEMA_VERSION, BenchReport, plain_runs
from tf_gpucheck.errors import GpucheckError


@dataclass(frozen=True)
class Regression:
    backend: str
    device: str
    workload: str
    batch_size: int | None
    baseline: float
    """The baseline's figure in ``measure``."""
    current: float
    measure: str
    """``ceiling_normalised`` (normally), ``share_of_ceiling`` for runs without it, or
    ``samples_per_s`` when either run has neither."""
    baseline_samples_per_s: float
    current_samples_per_s: float

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
    from tf_gpucheck._textfile import JsonFileProblem, read_json_file

    try:
        data = read_json_file(Path(path))
    except JsonFileProblem as exc:
        raise GpucheckError(
            f"--baseline {path!r} {exc.words}",
            reference="baseline-missing" if exc.kind == "missing" else "baseline-invalid",
            hint="write one with: gpucheck bench --output baseline.json",
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


MACHINE_KEYS = ("cpu_model", "gpu_names", "driver")


def _baseline_backends(baseline: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The baseline's backends; a schema-1 baseline ran TensorFlow only."""
    theirs = baseline["fingerprint"]
    backends = theirs.get("backends")
    if isinstance(backends, dict):
        return {str(k): v for k, v in backends.items() if isinstance(v, dict)}
    return {"tensorflow": {"version": theirs.get("tensorflow")}}


def _baseline_rows(baseline: dict[str, Any]) -> dict[tuple[Any, ...], dict[str, Any]]:
    return {
        (r.get("backend", "tensorflow"), r.get("device"), r.get("workload"), r.get("batch_size")): r
        for r in baseline["results"]
        if isinstance(r, dict)
        and r.get("status") == "ok"
        and not r.get("sweep")
        and not r.get("strategy")
    }


def compare(report: BenchReport, baseline: dict[str, Any], tolerance: float) -> list[Regression]:
    """Workloads that got slower than the baseline by more than ``tolerance``: same machine, same
    backend versions, same device, workload and batch only.

    The measure is ceiling-normalised throughput: each model's GFLOP/s over the device's matmul
    GFLOP/s measured around its own timed windows (``ceiling_normalised``; for runs without it,
    the share of the run's matmul ceiling). A machine that is busy or throttled slows the matmul
    and the model alike, so only a model that lost more than the tolerance of that figure and
    of its samples/s is a regression. Runs with neither are compared in samples/s."""
    theirs = baseline["fingerprint"]
    mine = report.fingerprint
    for key in MACHINE_KEYS:
        if theirs.get(key) != mine.get(key):
            raise _other_setup(f"{key}: {theirs.get(key)!r} there, {mine.get(key)!r} here")
    their_backends = _baseline_backends(baseline)
    for name, facts in (mine.get("backends") or {}).items():
        other = their_backends.get(name)
        if other is None:
            continue
        for key in ("version", "cuda"):
            if key in other and other.get(key) != facts.get(key):
                raise _other_setup(
                    f"{name} {key}: {other.get(key)!r} there, {facts.get(key)!r} here"
                )
    before = _baseline_rows(baseline)
    out = []
    matched = 0
    for r in plain_runs(report.results):
        old = before.get((r.backend, r.device, r.workload, r.batch_size))
        if r.workload == "matmul" or old is None:
            continue
        old_rate = old.get("samples_per_s")
        if not isinstance(old_rate, (int, float)) or old_rate <= 0 or r.samples_per_s is None:
            continue
        matched += 1
        figures: tuple[float, float, str] = (float(old_rate), r.samples_per_s, "samples_per_s")
        for measure in ("ceiling_normalised", "share_of_ceiling"):
            then, now = old.get(measure), getattr(r, measure)
            if isinstance(then, (int, float)) and then > 0 and now:
                figures = (float(then), float(now), measure)
                break
        then_value, now_value, _measure = figures
        # both must have dropped by more than the tolerance: a throttled machine lowers
        # samples/s but not the normalised figure; a jittery probe lowers the normalised
        # figure but not samples/s; a slower model lowers both
        slower = now_value < then_value * (1 - tolerance)
        slower = slower and r.samples_per_s < old_rate * (1 - tolerance)
        if slower:
            out.append(
                Regression(
                    r.backend,
                    r.device,
                    r.workload,
                    r.batch_size,
                    *figures,
                    float(old_rate),
                    r.samples_per_s,
                )
            )
    if not matched and plain_runs(report.results):
        raise GpucheckError(
            "the baseline has no run of the same backend, device, workload and batch size as this one",
            reference="baseline-nothing-to-compare",
            hint="compare runs made with the same --backend, --device, --workload and --batch-size",
        )
    return out


def ceiling_changes(report: BenchReport, baseline: dict[str, Any]) -> list[str]:
    """How each matmul ceiling moved since the baseline ("jax/cpu: 95 GFLOP/s, was 120, -21%")."""
    before = _baseline_rows(baseline)
    out = []
    for r in plain_runs(report.results):
        old = before.get((r.backend, r.device, "matmul", None))
        if r.workload != "matmul" or old is None or not r.gflops:
            continue
        old_gflops = old.get("gflops")
        if isinstance(old_gflops, (int, float)) and old_gflops > 0:
            out.append(
                f"{r.backend}/{r.device}: {r.gflops:,.0f} GFLOP/s, was {old_gflops:,.0f} "
                f"({r.gflops / old_gflops - 1:+.0%})"
            )
    return out


def _other_setup(difference: str) -> GpucheckError:
    return GpucheckError(
        f"the baseline comes from another machine or setup ({difference})",
        reference="baseline-other-machine",
        hint="compare runs of the same machine, driver and backend versions",
    )
