"""doctor over every scenario snapshot: the verdict, the first thing to fix, and the causes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import SCENARIO_NAMES, scenario
from tests.paths import ROOT
from tf_gpucheck.checks import Finding, Status, check_ids, run_checks
from tf_gpucheck.checks.registry import REGISTRY
from tf_gpucheck.matrix import Matrix, load_matrix
from tf_gpucheck.snapshot import Snapshot

# scenario -> (verdict, cause of the first thing to fix)
EXPECTED: dict[str, tuple[str, str | None]] = {
    "real-cpu-only-tf-2.21-no-driver": ("fail", "no_nvidia_driver"),
    # real recordings of real TensorFlow releases on this project's machine (no GPU, no driver;
    # tests/data/snapshots/README.md says how each was made)
    "real-tf-2.10-py3.10-no-driver": ("fail", "no_nvidia_driver"),
    "real-tf-2.10-numpy-2-py3.10": ("fail", "numpy_incompatible"),
    "real-tf-2.11-py3.7-no-driver": ("fail", "no_nvidia_driver"),
    "real-tf-2.15-py3.11-no-driver": ("fail", "no_nvidia_driver"),
    "real-tf-2.15-numpy-upgraded-py3.11": ("fail", "numpy_incompatible"),
    "real-tf-2.15-jax-0.7-py3.11": ("fail", "numpy_incompatible"),
    "real-tf-nightly-2.23-py3.11": ("fail", "container_no_gpu"),
    "real-tf-2.21-old-cudnn-on-ld-library-path-py3.11": ("fail", "container_no_gpu"),
    "real-tf-2.15-keras-3-upgraded-py3.11": ("fail", "container_no_gpu"),
    "real-tf-2.21-target-on-pythonpath-py3.11": ("fail", "container_no_gpu"),
    "real-tf-2.21-and-cuda-py3.11-no-driver": ("fail", "no_nvidia_driver"),
    "real-tf-2.21-and-cuda-bad-pin-py3.11": ("fail", "no_nvidia_driver"),
    "real-tf-2.21-and-cuda-loader-py3.11": ("fail", "container_no_gpu"),
    "real-tf-2.16.1-and-cuda-loader-py3.11": ("fail", "container_no_gpu"),
    "real-pip-23.0-py3.13-pythonpath-brings-another-pip": ("fail", "pythonpath_foreign"),
    # a CPU-only build in a container without a GPU: the place first, its replacement waits
    "real-tensorflow-cpu-2.21-target-on-pythonpath-py3.11": ("fail", "container_no_gpu"),
    "real-tf-2.16.1-and-cuda-on-ld-library-path-py3.11": ("fail", "container_no_gpu"),
    "real-tf-2.21-and-cuda-cusolver-on-ld-library-path-py3.11": ("fail", "container_no_gpu"),
    "real-tensorflow-cpu-2.21-py3.11": ("fail", "tf_cpu_only_build"),
    # real recordings on a real H200 with PyTorch and JAX and no TensorFlow
    # (tests/data/gpu/h200/README.md): the driver and the GPU work, TensorFlow is missing
    "real-h200-torch-jax-no-tf": ("fail", "tf_not_installed"),
    "real-h200-cuda-visible-devices-none": ("fail", "tf_not_installed"),
    "real-h200-cuda-visible-devices-absent": ("fail", "tf_not_installed"),
    "real-h200-process-holding-memory": ("fail", "tf_not_installed"),
    "two-a100": ("ok", None),
    "tf-cpu-build": ("fail", "tf_cpu_only_build"),
    "gpu-hidden-by-cuda-visible-devices": ("fail", "gpu_hidden_by_env"),
    "nvml-driver-mismatch": ("fail", "nvml_driver_mismatch"),
    "driver-too-old": ("fail", "driver_too_old"),
    "tf-not-installed": ("fail", "tf_not_installed"),
    "multiple-tf-distributions": ("fail", "multiple_tf_distributions"),
    "python-3.14-no-tensorflow": ("fail", "python_unsupported"),
    "windows-native-tf-2.15": ("fail", "windows_native_unsupported"),
    "macos-tensorflow-metal": ("fail", "macos_no_cuda"),
    "cuda-libs-missing": ("fail", "cuda_libs_missing"),
    "cudnn-missing": ("fail", "cudnn_missing"),
    "cudnn-version-mismatch": ("fail", "cudnn_version_mismatch"),
    "compute-capability-too-old": ("fail", "compute_capability_too_old"),
    "ptx-jit-required": ("warn", "ptx_jit_required"),
    "compute-capability-unsupported": ("fail", "compute_capability_unsupported"),
    "tf-sees-fewer-gpus": ("fail", "tf_sees_fewer_gpus"),
    "gpu-busy-exclusive-process": ("fail", "gpu_busy"),
    "xla-libdevice-missing": ("fail", "xla_libdevice_missing"),
    "keras-mismatch": ("fail", "keras_mismatch"),
    # other frameworks as evidence: today's checks give the TensorFlow-layer cause first; the
    # other_frameworks finding carries the evidence (the diagnosis links them)
    "torch-sees-gpu-tf-does-not": ("fail", "cuda_libs_missing"),
    "no-framework-sees-gpu": ("fail", "nvml_driver_mismatch"),
    "torch-jax-cpu-builds": ("fail", "no_nvidia_driver"),
}

DOCUMENTED_CAUSES = {
    "no_nvidia_driver",
    "container_no_gpu",
    "pythonpath_foreign",
    "nvml_driver_mismatch",
    "driver_too_old",
    "tf_not_installed",
    "tf_cpu_only_build",
    "multiple_tf_distributions",
    "python_unsupported",
    "windows_native_unsupported",
    "macos_no_cuda",
    "cuda_libs_missing",
    "cudnn_missing",
    "cudnn_version_mismatch",
    "gpu_hidden_by_env",
    "compute_capability_too_old",
    "ptx_jit_required",
    "compute_capability_unsupported",
    "tf_sees_fewer_gpus",
    "gpu_busy",
    "numpy_incompatible",
    "xla_libdevice_missing",
    "keras_mismatch",
}


def test_every_scenario_has_an_expectation() -> None:
    assert set(EXPECTED) == set(SCENARIO_NAMES)


def test_every_required_cause_has_a_scenario() -> None:
    assert {cause for _, cause in EXPECTED.values() if cause} == DOCUMENTED_CAUSES


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_verdict_and_first_fix(name: str) -> None:
    verdict, cause = EXPECTED[name]
    report = run_checks(scenario(name), load_matrix())
    assert report.verdict.value == verdict
    first = report.first_fix
    assert (first.cause if first else None) == cause
    assert report.exit_code == (1 if verdict == "fail" else 0)
    if first is not None and first.status is Status.FAIL:
        assert first.fix, f"{first.check} fails without a fix"
    for finding in report.findings:
        assert (finding.cause is None) == (
            finding.status in (Status.OK, Status.SKIP)
        ) or finding.status is Status.INFO
        assert "\n" not in finding.summary


# the same recordings on a CPU-only runner (--allow-cpu): (verdict, exit code, first cause)
ALLOW_CPU: dict[str, tuple[str, int, str | None]] = {
    "real-tf-2.10-py3.10-no-driver": ("warn", 0, "no_nvidia_driver"),
    "real-tf-2.10-numpy-2-py3.10": ("fail", 1, "numpy_incompatible"),
    "real-tf-2.11-py3.7-no-driver": ("warn", 0, "no_nvidia_driver"),
    "real-tf-2.15-py3.11-no-driver": ("warn", 0, "no_nvidia_driver"),
    "real-tf-2.21-and-cuda-py3.11-no-driver": ("warn", 0, "no_nvidia_driver"),
    "real-tf-2.21-and-cuda-bad-pin-py3.11": ("warn", 0, "no_nvidia_driver"),
    "real-tf-2.21-and-cuda-loader-py3.11": ("warn", 0, "container_no_gpu"),
    "real-tf-2.21-and-cuda-cusolver-on-ld-library-path-py3.11": ("warn", 0, "container_no_gpu"),
    "real-tensorflow-cpu-2.21-py3.11": ("warn", 0, "no_nvidia_driver"),
}


@pytest.mark.parametrize("name", sorted(ALLOW_CPU))
def test_real_recordings_on_a_cpu_only_runner(name: str) -> None:
    verdict, code, cause = ALLOW_CPU[name]
    report = run_checks(scenario(name), load_matrix(), allow_cpu=True)
    assert (report.verdict.value, report.exit_code) == (verdict, code)
    first = report.first_fix
    assert (first.cause if first else None) == cause
    if name == "real-tensorflow-cpu-2.21-py3.11":
        install = next(f for f in report.findings if f.check == "tf_install")
        assert install.status is Status.INFO  # a CPU-only build is what a CPU runner asks for


def test_real_recordings_read_the_target_not_gpucheck() -> None:
    for name, python, tf in (
        ("real-tf-2.10-py3.10-no-driver", "3.10.", "2.10.1"),
        ("real-tf-2.11-py3.7-no-driver", "3.7.", "2.11.0"),
        ("real-tf-2.15-py3.11-no-driver", "3.11.", "2.15.1"),
    ):
        snapshot = scenario(name)
        assert (snapshot.system.python_version or "").startswith(python)
        assert [d.version for d in snapshot.packages.tensorflow] == [tf]
        assert snapshot.tensorflow.version == tf
        assert snapshot.target.chosen_by == "python_flag"
        assert snapshot.target.kind == "venv"
        report = run_checks(snapshot, load_matrix())
        checked = next(f for f in report.findings if f.check == "python")
        assert f"TensorFlow {tf} " in checked.summary  # the installed release, not the row's
    pins = run_checks(scenario("real-tf-2.21-and-cuda-bad-pin-py3.11"), load_matrix())
    wheels = next(f for f in pins.findings if f.check == "cuda_wheels")
    assert wheels.cause == "and_cuda_pins_unmet"
    assert "nvidia-cuda-runtime-cu12 12.4.127 does not satisfy" in wheels.summary
    assert wheels.fix is not None
    assert 'pip install "nvidia-cuda-runtime-cu12<13.0,>=12.5.82"' in wheels.fix


def test_no_driver_says_tensorflow_runs_on_the_cpu() -> None:
    report = run_checks(scenario("real-cpu-only-tf-2.21-no-driver"), load_matrix())
    first = report.first_fix
    assert first is not None
    assert first.check == "nvidia_driver"
    assert "no NVIDIA driver: its NVML library (libnvidia-ml.so.1) was not found" in first.summary
    assert "TensorFlow will run on the CPU" in first.summary


def test_allow_cpu_turns_no_gpu_into_a_warning() -> None:
    report = run_checks(scenario("real-cpu-only-tf-2.21-no-driver"), load_matrix(), allow_cpu=True)
    assert report.verdict is Status.WARN
    assert report.exit_code == 0
    strict = run_checks(
        scenario("real-cpu-only-tf-2.21-no-driver"), load_matrix(), allow_cpu=True, strict=True
    )
    assert strict.exit_code == 1


def test_allow_cpu_does_not_hide_failures_that_are_not_about_the_gpu() -> None:
    report = run_checks(scenario("tf-not-installed"), load_matrix(), allow_cpu=True)
    assert report.verdict is Status.FAIL
    assert report.first_fix is not None
    assert report.first_fix.cause == "tf_not_installed"


def test_strict_fails_on_warnings() -> None:
    assert run_checks(scenario("ptx-jit-required"), load_matrix()).exit_code == 0
    assert run_checks(scenario("ptx-jit-required"), load_matrix(), strict=True).exit_code == 1


def test_selected_checks_only() -> None:
    report = run_checks(
        scenario("driver-too-old"), load_matrix(), checks=["keras", "driver_version"]
    )
    assert [f.check for f in report.findings] == ["keras", "driver_version"]


def test_a_crashing_check_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    from tf_gpucheck.checks import registry as module

    def boom(snapshot: Snapshot, matrix: Matrix) -> Finding:
        raise KeyError("compute_capability")

    broken = [
        module.Check(c.id, c.title, boom if c.id == "keras" else c.function, c.gpu)
        for c in REGISTRY
    ]
    monkeypatch.setattr(module, "REGISTRY", broken)
    monkeypatch.setattr("tf_gpucheck.checks.REGISTRY", broken)
    report = run_checks(scenario("two-a100"), load_matrix())
    keras = next(f for f in report.findings if f.check == "keras")
    assert keras.status is Status.FAIL
    assert keras.cause == "check_crashed"
    assert "KeyError" in keras.summary
    assert len(report.findings) == len(check_ids())  # the others still ran


def test_specific_evidence() -> None:
    matrix = load_matrix()
    cc = run_checks(
        scenario("compute-capability-too-old"), matrix, checks=["compute_capability"]
    ).findings[0]
    assert "5.2" in cc.summary
    assert cc.fix is not None
    assert "2.16" in cc.fix  # the newest release with sm_50 kernels
    ptx = run_checks(scenario("ptx-jit-required"), matrix, checks=["compute_capability"]).findings[
        0
    ]
    assert "compute_90" in ptx.summary
    assert ptx.fix is not None
    assert "CUDA_CACHE_MAXSIZE" in ptx.fix
    driver = run_checks(scenario("driver-too-old"), matrix, checks=["driver_version"]).findings[0]
    assert "470.82.01" in driver.summary
    assert "525.60.13" in driver.summary  # the CUDA 12 minor-version-compatibility floor
    cudnn = run_checks(scenario("cudnn-version-mismatch"), matrix, checks=["cudnn"]).findings[0]
    assert "9.1.0" in cudnn.summary
    assert "9.3" in cudnn.summary
    fewer = run_checks(scenario("gpu-busy-exclusive-process"), matrix, checks=["tf_gpus"]).findings[
        0
    ]
    assert "busy or unavailable" in fewer.details
    libs = run_checks(scenario("cuda-libs-missing"), matrix, checks=["cuda_libraries"]).findings[0]
    assert libs.fix == 'pip install "tensorflow[and-cuda]==2.21.0"'
    multiple = run_checks(
        scenario("multiple-tf-distributions"), matrix, checks=["tf_install"]
    ).findings[0]
    assert multiple.fix is not None
    assert multiple.fix.startswith("pip uninstall -y tensorflow tensorflow-cpu && ")


def test_the_documentation_documents_every_cause() -> None:
    import re

    from tf_gpucheck.reading import logrules

    readme = (ROOT / "docs" / "causes.md").read_text()
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", readme, flags=re.M))
    layers = ROOT / "src/tf_gpucheck/checks/layers"
    source = "\n".join(path.read_text() for path in sorted(layers.glob("*.py")))
    used = set(re.findall(r'(?:fail|warn)\(\s*"[a-z_]+",\s*"([a-z_]+)"', source))
    used |= {rule.cause for rule in logrules.load() if rule.cause}
    used |= DOCUMENTED_CAUSES | {"check_crashed", "log_actionable"}
    assert used <= documented, sorted(used - documented)


@pytest.mark.parametrize(
    ("changes", "cause", "words"),
    [
        (
            {
                "timed_out": True,
                "returncode": None,
                "error": "TensorFlow did not finish within 120 s (last stage: imported)",
            },
            "tf_probe_timeout",
            "did not finish within 120 s",
        ),
        (
            {
                "returncode": -4,
                "error": "the TensorFlow child killed by SIGILL (last stage: starting)",
            },
            "cpu_unsupported",
            "illegal instruction",
        ),
        (
            {
                "returncode": -11,
                "error": "the TensorFlow child killed by SIGSEGV (last stage: logical_devices)",
            },
            "tf_crashed",
            "SIGSEGV",
        ),
        (
            {
                "error": "import tensorflow failed: ImportError: libcudart.so.11.0: cannot open shared object file"
            },
            "tf_import_failed",
            "libcudart.so.11.0",
        ),
    ],
)
def test_tensorflow_hang_crash_and_import_error_are_findings(
    changes: dict[str, Any], cause: str, words: str
) -> None:
    import dataclasses

    base = scenario("two-a100")
    log = ("I0000 00:00:1.0 1 cuda_executor.cc:1] the last thing TensorFlow printed",)
    broken = dataclasses.replace(
        base, tensorflow=dataclasses.replace(base.tensorflow, log=log, **changes)
    )
    (finding,) = run_checks(broken, load_matrix(), checks=["tf_import"]).findings
    assert finding.status is Status.FAIL
    assert finding.cause == cause
    assert words in finding.summary
    if cause != "cpu_unsupported":
        assert "the last thing TensorFlow printed" in finding.details
