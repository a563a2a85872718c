"""CI gate: doctor's requirement flags, JUnit and annotations, require_gpu()/diagnose(), the pytest plugin."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import tf_gpucheck
from tests.conftest import SnapshotProbes, scenario
from tf_gpucheck.checks import Requirements, run_checks
from tf_gpucheck.checks.requirements import parse_capability, parse_pattern, parse_size
from tf_gpucheck.errors import GpucheckError
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.render.doctor import report_to_annotations, report_to_junit

pytest_plugins = ["pytester"]


def causes(name: str, requirements: Requirements) -> dict[str, str | None]:
    report = run_checks(scenario(name), load_matrix(), requirements=requirements)
    return {
        f.check: f.cause for f in report.findings if f.check.startswith(("require_", "expect_"))
    }


def test_parsers() -> None:
    assert parse_size("--min-free-memory", "8GiB") == 8 * 1024**3
    assert parse_size("--min-free-memory", "500MB") == 500_000_000
    assert parse_size("--min-free-memory", "1024") == 1024
    assert parse_capability("--min-compute-capability", "8.0") == (8, 0)
    assert parse_pattern("--expect-tf", "2.16.*").contains("2.16.1")
    assert not parse_pattern("--expect-tf", "2.16.*").contains("2.17.0")
    assert parse_pattern("--expect-cuda", ">=12.2,<13").contains("12.5.1")
    for function, bad in (
        (parse_size, "8 parsecs"),
        (parse_capability, "eight"),
        (parse_pattern, "~~2"),
    ):
        with pytest.raises(GpucheckError):
            function("--flag", bad)


def test_requirements_met_on_two_a100() -> None:
    req = Requirements(
        require_gpu=True,
        min_gpus=2,
        min_compute_capability=(8, 0),
        min_free_memory_bytes=70 * 1024**3,
        expect_tf=parse_pattern("x", "2.21.*"),
        expect_cuda=parse_pattern("x", "12.*"),
    )
    assert set(causes("two-a100", req).values()) == {None}


def test_each_unmet_requirement_has_its_cause() -> None:
    req = Requirements(
        min_gpus=3,
        min_compute_capability=(9, 0),
        min_free_memory_bytes=80 * 1024**3,
        expect_tf=parse_pattern("x", "2.16.*"),
        expect_cuda=parse_pattern("x", "11.*"),
    )
    assert causes("two-a100", req) == {
        "require_gpus": "too_few_gpus",
        "require_compute_capability": "compute_capability_below_minimum",
        "require_free_memory": "free_memory_below_minimum",
        "expect_tf": "tf_version_unexpected",
        "expect_cuda": "cuda_version_unexpected",
    }
    assert causes("real-cpu-only-tf-2.21-no-driver", Requirements(require_gpu=True)) == {
        "require_gpus": "gpu_required"
    }


def test_allow_cpu_does_not_soften_a_demanded_gpu() -> None:
    report = run_checks(
        scenario("real-cpu-only-tf-2.21-no-driver"),
        load_matrix(),
        allow_cpu=True,
        requirements=Requirements(require_gpu=True),
    )
    assert report.exit_code == 1


def test_junit_has_a_testcase_per_check() -> None:
    report = run_checks(scenario("keras-mismatch"), load_matrix())
    root = ET.fromstring(report_to_junit(report))
    cases = root.findall("testcase")
    assert [c.get("name") for c in cases] == [f.check for f in report.findings]
    failed = [c for c in cases if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["keras"]
    failure = failed[0].find("failure")
    assert failure is not None
    assert 'fix: pip install "keras>=3"' in (failure.get("message") or "")
    assert root.get("failures") == "1"


def test_annotations() -> None:
    report = run_checks(scenario("ptx-jit-required"), load_matrix())
    lines = report_to_annotations(report).splitlines()
    assert [line.split("::")[1] for line in lines] == [
        "warning title=gpucheck compute_capability",
        "warning title=gpucheck tf_log",
    ]


def test_cli_junit_and_annotations(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    junit = tmp_path / "doctor.xml"
    result = run_cli(
        ["doctor", "--junit", str(junit), "--require-gpu", "--expect-tf", "2.21.*"],
        SnapshotProbes(scenario("cuda-libs-missing")),
    )
    assert result.exit_code == 1
    assert "::error title=gpucheck cuda_libraries::" in result.stderr
    assert "::error title=gpucheck require_gpus::" in result.stderr
    names = [c.get("name") for c in ET.parse(junit).getroot().findall("testcase")]
    assert names[-2:] == ["require_gpus", "expect_tf"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["doctor", "--min-free-memory", "lots"], "--min-free-memory 'lots'"),
        (["doctor", "--min-compute-capability", "8"], "--min-compute-capability '8'"),
        (["doctor", "--expect-tf", "~~2"], "--expect-tf '~~2'"),
        (["doctor", "--min-gpus", "0"], "--min-gpus"),
    ],
)
def test_bad_requirement_values_exit_2(run_cli: Any, args: list[str], words: str) -> None:
    result = run_cli(args, SnapshotProbes(scenario("two-a100")))
    assert result.exit_code == 2
    assert words in result.stderr.splitlines()[0]


def test_require_gpu_raises_with_the_first_failure_and_its_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        "tf_gpucheck.probes.LiveProbes",
        lambda python=None: SnapshotProbes(scenario("driver-too-old")),
    )
    with pytest.raises(GpucheckError) as caught:
        tf_gpucheck.require_gpu()
    assert caught.value.reference == "gpu-required"
    assert "driver 470.82.01 is too old" in caught.value.message
    assert "[driver_too_old]" in caught.value.message
    assert caught.value.hint == "upgrade the NVIDIA driver to 555.42.02 or newer"
    monkeypatch.setattr(
        "tf_gpucheck.probes.LiveProbes", lambda python=None: SnapshotProbes(scenario("two-a100"))
    )
    assert tf_gpucheck.require_gpu(
        min_count=2, min_compute_capability="8.0", min_free_memory="8GiB"
    ).gpu_usable
    assert tf_gpucheck.diagnose().verdict.value == "ok"


CONFTEST = """
import dataclasses, tf_gpucheck.checks
from tf_gpucheck.checks.findings import Finding, Report, Status

def fake_diagnose(**kwargs):
    usable = {usable}
    finding = Finding("nvidia_driver", Status.FAIL, "no NVIDIA driver: NVML library not found", cause="no_nvidia_driver")
    return Report(findings=() if usable else (finding,), gpu_usable=usable)

tf_gpucheck.checks.diagnose = fake_diagnose
"""

TESTS = """
import pytest

@pytest.mark.tf_gpu
def test_on_gpu():
    assert True

def test_anywhere():
    assert True
"""


@pytest.mark.parametrize(
    ("usable", "flags", "outcome"),
    [
        (False, [], {"passed": 1, "skipped": 1}),
        (
            False,
            ["--require-gpu"],
            {"passed": 1, "errors": 1},
        ),  # fails in setup, before the test body
        (True, ["--require-gpu"], {"passed": 2}),
    ],
)
@pytest.mark.slow
def test_pytest_plugin(
    pytester: pytest.Pytester, usable: bool, flags: list[str], outcome: dict[str, int]
) -> None:
    pytester.makeconftest(CONFTEST.format(usable=usable))
    pytester.makepyfile(TESTS)
    result = pytester.runpytest_subprocess(
        "-rs", *flags
    )  # the plugin loads through its entry point
    result.assert_outcomes(**outcome)
    if not usable:
        result.stdout.fnmatch_lines(["*no usable GPU: no NVIDIA driver: NVML library not found*"])
