"""Benchmark baselines: the comparison, bad files, and what counts as a regression."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SnapshotProbes, scenario
from tf_gpucheck.bench import (
    BenchPlan,
    BenchReport,
    BenchResult,
    compare,
    load_baseline,
)
from tf_gpucheck.errors import GpucheckError


def _report(rate: float, fingerprint: dict[str, Any] | None = None) -> BenchReport:
    result = BenchResult("cpu", "mlp", "ok", batch_size=128, samples_per_s=rate)
    return BenchReport(
        fingerprint or {"cpu_model": "x", "gpu_names": [], "driver": None, "tensorflow": "2.21.0"},
        BenchPlan(),
        (result,),
        (),
        (),
        None,
    )


def test_baseline_comparison(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text(json.dumps(_report(20_000).to_data()))
    baseline = load_baseline(str(path))
    assert compare(_report(19_000), baseline, 0.10) == []
    (slow,) = compare(_report(17_000), baseline, 0.10)
    assert slow.change == pytest.approx(-0.15)
    with pytest.raises(GpucheckError, match="another machine"):
        compare(
            _report(
                20_000, {"cpu_model": "y", "gpu_names": [], "driver": None, "tensorflow": "2.21.0"}
            ),
            baseline,
            0.1,
        )


@pytest.mark.parametrize(
    "content",
    ["", "{", "[]", '{"results": 3}', '{"schema_version": 9, "results": [], "fingerprint": {}}'],
)
def test_bad_baseline_files(tmp_path: Path, content: str) -> None:
    path = tmp_path / "base.json"
    path.write_text(content)
    with pytest.raises(GpucheckError) as caught:
        load_baseline(str(path))
    assert caught.value.exit_code == 2


def test_cli_bench_bad_baseline_and_tolerance(run_cli: Any, tmp_path: Path) -> None:
    probes = SnapshotProbes(scenario("two-a100"))
    missing = run_cli(["bench", "--baseline", str(tmp_path / "nope.json")], probes)
    assert missing.exit_code == 2
    assert "does not exist" in missing.stderr
    bad = run_cli(["bench", "--tolerance", "lots"], probes)
    assert bad.exit_code == 2
    assert "--tolerance 'lots'" in bad.stderr


def _run_of(
    backend: str,
    rate: float,
    share: float,
    ceiling: float,
    version: str = "0.10.2",
    paired: float | None = None,
) -> dict[str, Any]:
    model = BenchResult(
        "cpu",
        "mlp",
        "ok",
        batch_size=128,
        samples_per_s=rate,
        share_of_ceiling=share,
        backend=backend,
        ceiling_normalised=paired,
    )
    matmul = BenchResult("cpu", "matmul", "ok", samples_per_s=10.0, gflops=ceiling, backend=backend)
    fingerprint: dict[str, Any] = {
        "cpu_model": "x",
        "gpu_names": [],
        "driver": None,
        "tensorflow": None,
        "backends": {backend: {"version": version, "cuda": None}},
    }
    return BenchReport(fingerprint, BenchPlan(), (model, matmul), (), (), None).to_data()


def _as_report(data: dict[str, Any]) -> BenchReport:
    from tf_gpucheck.bench import _result

    return BenchReport(
        data["fingerprint"], BenchPlan(), tuple(_result(r) for r in data["results"]), (), (), None
    )


def test_baseline_compares_the_share_of_the_ceiling_not_raw_samples() -> None:
    from tf_gpucheck.bench import ceiling_changes

    baseline = _run_of("jax", 28_700, 0.36, 120.0)
    # the whole machine 25% slower (a busy or throttled runner): raw -25%, share unchanged
    throttled = _as_report(_run_of("jax", 21_500, 0.355, 90.0))
    assert compare(throttled, baseline, 0.10) == []
    assert ceiling_changes(throttled, baseline) == ["jax/cpu: 90 GFLOP/s, was 120 (-25%)"]
    # the model itself 20% slower on an unchanged machine: a regression
    (slow,) = compare(_as_report(_run_of("jax", 23_000, 0.288, 120.0)), baseline, 0.10)
    assert (slow.backend, slow.measure) == ("jax", "share_of_ceiling")
    assert slow.change == pytest.approx(-0.2)
    assert slow.baseline_samples_per_s == 28_700
    # another jax release is another setup
    with pytest.raises(GpucheckError, match=r"jax version: '0.10.2' there, '0.4.30' here"):
        compare(_as_report(_run_of("jax", 28_000, 0.36, 120.0, "0.4.30")), baseline, 0.10)
    # nothing alike to compare: bad input, not a silent pass
    with pytest.raises(GpucheckError, match="no run of the same backend") as caught:
        compare(_as_report(_run_of("torch", 28_000, 0.36, 120.0)), baseline, 0.10)
    assert caught.value.exit_code == 2


def test_the_normalised_figure_around_the_windows_is_preferred_and_jitter_alone_is_no_regression() -> (
    None
):
    baseline = _run_of("torch", 15_000, 0.35, 100.0, paired=0.30)
    # the probes around the windows read 30% lower, samples/s did not move: no regression
    assert (
        compare(_as_report(_run_of("torch", 15_100, 0.35, 100.0, paired=0.21)), baseline, 0.1) == []
    )
    (slow,) = compare(_as_report(_run_of("torch", 12_000, 0.30, 100.0, paired=0.24)), baseline, 0.1)
    assert (slow.measure, slow.baseline, slow.current) == ("ceiling_normalised", 0.30, 0.24)


def test_a_schema_1_baseline_compares_with_tensorflow_runs() -> None:
    old = _report(20_000).to_data()
    old["schema_version"] = 1
    for row in old["results"]:
        del row["backend"]
    (slow,) = compare(_report(17_000), old, 0.10)
    assert (slow.backend, slow.measure) == ("tensorflow", "samples_per_s")
