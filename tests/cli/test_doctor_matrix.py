"""`gpucheck doctor` and `gpucheck matrix` through the CLI: output contracts and exit codes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SNAPSHOTS, SnapshotProbes, scenario
from tf_gpucheck.checks import check_ids

FINDING_KEYS = {"check", "status", "summary", "details", "fix", "cause"}


def test_doctor_no_driver_fails_with_the_plain_reason(run_cli: Any) -> None:
    result = run_cli(["doctor"], SnapshotProbes(scenario("real-cpu-only-tf-2.21-no-driver")))
    assert result.exit_code == 1
    first_line = result.stdout.splitlines()[0]
    assert first_line.startswith(
        "FAIL  no NVIDIA driver: its NVML library (libnvidia-ml.so.1) was not found"
    )
    assert "cause: no_nvidia_driver" in result.stdout
    assert "first fix:" in result.stdout
    for check in check_ids():
        assert check in result.stdout


def test_doctor_all_good_exits_0(run_cli: Any) -> None:
    result = run_cli(["doctor"], SnapshotProbes(scenario("two-a100")))
    assert result.exit_code == 0
    assert result.stdout.startswith("OK  every check passed: TensorFlow can use the GPU")


def test_doctor_json_contract(run_cli: Any) -> None:
    result = run_cli(["doctor", "--json"], SnapshotProbes(scenario("cuda-libs-missing")))
    assert result.exit_code == 1
    data = result.json()
    assert data["schema_version"] == 1
    assert data["verdict"] == "fail"
    assert data["exit_code"] == 1
    assert data["first_fix"]["cause"] == "cuda_libs_missing"
    assert [f["check"] for f in data["findings"]] == check_ids()
    for finding in data["findings"]:
        assert set(finding) - {"plan"} == FINDING_KEYS
        if "plan" in finding:  # the fix as data beside the line written from it
            assert finding["fix"], finding
            assert set(finding["plan"]) == {"steps", "note"}
            assert all(
                set(step)
                in (
                    {"install", "options"},
                    {"uninstall"},
                    {"set_aside"},
                    {"remove"},
                    {"restore_pip"},
                    {"fresh_environment", "python", "clear"},
                    {"variable", "value"},
                    {"conda_install", "channel"},
                )
                for step in finding["plan"]["steps"]
            )
        assert finding["status"] in {"ok", "warn", "fail", "skip", "info"}
        assert (finding["cause"] is None) == (finding["status"] in ("ok", "skip")) or finding[
            "status"
        ] == "info"


def test_doctor_format_json_equals_json(run_cli: Any) -> None:
    probes = SnapshotProbes(scenario("keras-mismatch"))
    one = run_cli(["doctor", "--format", "json"], probes).json()
    other = run_cli(["doctor", "--json"], probes).json()
    # each run probes anew: only the time it was made may differ (a second may tick between)
    one.pop("created_at"), other.pop("created_at")
    assert one == other


def test_doctor_markdown_is_ready_for_an_issue(run_cli: Any) -> None:
    result = run_cli(["doctor", "--format", "markdown"], SnapshotProbes(scenario("keras-mismatch")))
    assert result.exit_code == 1
    assert "**Verdict: FAIL**" in result.stdout
    assert "| fail | `keras` |" in result.stdout
    assert "<details><summary>Evidence</summary>" in result.stdout


def test_doctor_from_file_needs_no_probes(run_cli: Any) -> None:
    class NoProbes(SnapshotProbes):
        def nvml(self) -> Any:
            raise AssertionError("probed the machine despite --from")

    path = SNAPSHOTS / "driver-too-old.json"
    result = run_cli(["doctor", "--from", str(path), "--json"], NoProbes(scenario("two-a100")))
    assert result.json()["first_fix"]["cause"] == "driver_too_old"


def test_doctor_verbose_shows_evidence_and_fix(run_cli: Any) -> None:
    result = run_cli(
        ["doctor", "--verbose", "--check", "cudnn"],
        SnapshotProbes(scenario("cudnn-version-mismatch")),
    )
    assert "cause: cudnn_version_mismatch" in result.stdout
    assert "/usr/local/cudnn-9.1/lib/libcudnn.so.9" in result.stdout
    assert 'fix: pip install "tensorflow[and-cuda]==2.21.0"' in result.stdout


def test_doctor_list(run_cli: Any) -> None:
    result = run_cli(["doctor", "--list"], SnapshotProbes(scenario("two-a100")))
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.stdout.splitlines()] == check_ids()


def test_doctor_allow_cpu_and_strict(run_cli: Any) -> None:
    probes = SnapshotProbes(scenario("real-cpu-only-tf-2.21-no-driver"))
    assert run_cli(["doctor", "--allow-cpu"], probes).exit_code == 0
    assert run_cli(["doctor", "--allow-cpu", "--strict"], probes).exit_code == 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["doctor", "--check", "nope"], "unknown check 'nope'"),
        (["doctor", "--format", "yaml"], "expected text, json or markdown"),
        (["doctor", "--from", "/nonexistent/env.json"], "does not exist"),
        (["doctor", "--matrix", "/nonexistent/m.yaml"], "does not exist"),
        (["matrix", "--tf", "two"], "expected a version"),
        (["matrix", "--cuda", "12.x"], "expected a version"),
    ],
)
def test_bad_input_exits_2(run_cli: Any, args: list[str], words: str) -> None:
    result = run_cli(args, SnapshotProbes(scenario("two-a100")))
    assert result.exit_code == 2
    assert words in result.stderr.splitlines()[0]
    assert "Traceback" not in result.stderr


def test_doctor_from_a_broken_file_exits_2(run_cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "env.json"
    path.write_text('{"schema_version": 1, "system": 3}')
    result = run_cli(["doctor", "--from", str(path)], SnapshotProbes(scenario("two-a100")))
    assert result.exit_code == 2
    assert "not a gpucheck snapshot" in result.stderr


def test_matrix_json_contract(run_cli: Any) -> None:
    result = run_cli(["matrix", "--json"], SnapshotProbes(scenario("two-a100")))
    assert result.exit_code == 0
    rows = result.json()
    assert len(rows) == 38
    for row in rows:
        assert {"tensorflow", "python", "cuda", "cudnn", "compute_capabilities"} <= set(row)
    tf215 = next(r for r in rows if r["tensorflow"] == "2.15.0")
    assert (tf215["python"], tf215["cuda"], tf215["cudnn"]) == ("3.9-3.11", "12.2", "8.9")
    assert tf215["compute_capabilities"] == ["5.0", "6.0", "7.0", "7.5"]
    assert tf215["ptx"] == ["8.0"]


def test_matrix_filters(run_cli: Any) -> None:
    probes = SnapshotProbes(scenario("two-a100"))
    assert [
        r["tensorflow"] for r in run_cli(["matrix", "--tf", "2.15", "--json"], probes).json()
    ] == ["2.15.0"]
    by_cuda = run_cli(["matrix", "--cuda", "12.5", "--json"], probes).json()
    assert [r["tensorflow"] for r in by_cuda] == ["2.21.0", "2.20.0", "2.19.0", "2.18.0"]
    human = run_cli(["matrix", "--tf", "2.15"], probes)
    assert "2.15.0" in human.stdout
    assert "535.54.03" in human.stdout
    none = run_cli(["matrix", "--tf", "0.12"], probes)
    assert none.exit_code == 1


def test_matrix_recommend(run_cli: Any) -> None:
    result = run_cli(["matrix", "--recommend", "--json"], SnapshotProbes(scenario("two-a100")))
    data = result.json()
    assert data["tensorflow"] == "2.21.0"
    assert data["command"] == 'pip install "tensorflow[and-cuda]==2.21.*"'
    assert data["driver_upgrade"] is None
