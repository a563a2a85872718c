"""The diagnosis: symptoms name their cause, the deepest cause with evidence comes first.

Every log line here is real: read from this project's recordings (tests/data/logs/real, the
command that made each is in its README) or quoted from the public issue named next to it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from tests.conftest import DATA, SnapshotProbes, scenario
from tf_gpucheck.checks import Status, run_checks
from tf_gpucheck.checks.diagnosis import DEPTH, EXPLAINS, SYMPTOMS
from tf_gpucheck.checks.requirements import Requirements
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.snapshot import Distribution, NvidiaRuntimeInfo, PlaceInfo, Snapshot

REAL = DATA / "logs" / "real"
# tests/data/logs/real/tf210-py310_probe.stderr (TensorFlow 2.10.1 on this machine)
LIBCUDART_MISSING = (
    "2026-11-23 15:22:36.628604: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
    "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open "
    "shared object file: No such file or directory"
)
# https://github.com/NVIDIA/tensorflow/issues/110
CANNOT_DLOPEN = (
    "2024-06-19 16:06:44.996140: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1689] Cannot "
    "dlopen some GPU libraries. Please make sure the missing libraries mentioned above are "
    "installed properly if you would like to use GPU. Follow the guide at "
    "https://www.tensorflow.org/install/gpu"
)
# https://github.com/tensorflow/tensorflow/issues/44869
NO_DEVICE = (
    "2020-11-11 10:46:37.467224: E tensorflow/stream_executor/cuda/cuda_driver.cc:314] failed "
    "call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
)


def _tf_sees_no_gpu(log: tuple[str, ...], **env: str) -> Snapshot:
    """One A100 that the driver shows, TensorFlow creating no GPU device, and `log`."""
    working = scenario("two-a100")
    nvml = dataclasses.replace(working.nvml, gpus=working.nvml.gpus[:1])
    tensorflow = dataclasses.replace(
        working.tensorflow,
        physical_devices=working.tensorflow.physical_devices[:1],
        logical_devices=working.tensorflow.logical_devices[:1],
        device_details=(),
        ops=working.tensorflow.ops[:1],
        log=log,
    )
    system = dataclasses.replace(working.system, env={**working.system.env, **env})
    return dataclasses.replace(working, nvml=nvml, tensorflow=tensorflow, system=system)


def test_the_log_line_that_says_why_outranks_the_symptom() -> None:
    report = run_checks(_tf_sees_no_gpu((LIBCUDART_MISSING, CANNOT_DLOPEN)), load_matrix())
    first = report.first_fix
    assert first is not None
    assert first.cause == "cuda_libs_missing"
    assert first.status is Status.FAIL  # a log line that explains a failing symptom fails
    assert "libcudart.so.11.0 did not load" in first.summary
    assert first.fix == 'pip install "tensorflow[and-cuda]==2.21.0"'
    symptom = next(f for f in report.findings if f.check == "tf_gpus")
    assert symptom.cause == "tf_sees_fewer_gpus"
    assert "TensorFlow sees 0 because libcudart.so.11.0 did not load" in symptom.summary
    assert symptom.fix == first.fix
    # all the evidence stays visible, grouped by cause
    cause = next(c for c in report.causes if c.code == "cuda_libs_missing")
    assert cause.evidence == (LIBCUDART_MISSING, CANNOT_DLOPEN)
    assert cause.explains == ("tf_gpus",)


def test_no_device_means_cuda_visible_devices_only_when_it_is_set() -> None:
    unset = run_checks(_tf_sees_no_gpu((NO_DEVICE,)), load_matrix())
    assert {c.code for c in unset.causes} >= {"no_nvidia_gpu"}
    assert "gpu_hidden_by_env" not in {c.code for c in unset.causes}
    hidden = run_checks(_tf_sees_no_gpu((NO_DEVICE,), CUDA_VISIBLE_DEVICES="-1"), load_matrix())
    assert hidden.first_fix is not None
    assert hidden.first_fix.cause == "gpu_hidden_by_env"


def test_severity_before_depth() -> None:
    # tensorflow-gpu (a warning, install layer) and a missing driver (a failure, driver layer)
    snapshot = scenario("real-cpu-only-tf-2.21-no-driver")
    packages = dataclasses.replace(
        snapshot.packages, tensorflow=(Distribution("tensorflow-gpu", "2.10.1"),)
    )
    report = run_checks(dataclasses.replace(snapshot, packages=packages), load_matrix())
    assert report.first_fix is not None
    assert report.first_fix.cause == "no_nvidia_driver"
    assert any(
        c.code == "tensorflow_gpu_deprecated" and c.status is Status.WARN for c in report.causes
    )


def test_deepest_cause_first_among_failures() -> None:
    report = run_checks(scenario("cuda-libs-missing"), load_matrix())
    codes = [c.code for c in report.causes if c.status is Status.FAIL]
    assert codes[0] == "cuda_libs_missing"
    assert codes.index("cuda_libs_missing") < codes.index("tf_sees_fewer_gpus")


def test_a_requirement_names_its_cause_under_allow_cpu() -> None:
    report = run_checks(
        scenario("real-cpu-only-tf-2.21-no-driver"),
        load_matrix(),
        allow_cpu=True,
        requirements=Requirements(require_gpu=True),
    )
    assert report.exit_code == 1
    required = next(f for f in report.findings if f.cause == "gpu_required")
    assert "because no NVIDIA driver" in required.summary
    assert report.first_fix is not None
    assert report.first_fix.cause == "no_nvidia_driver"


def test_numpy_2_import_failure_gets_its_fix() -> None:
    # a real recording: TensorFlow 2.10.1 with NumPy 2.2.6 (tests/data/snapshots/README.md)
    broken = scenario("real-tf-2.10-numpy-2-py3.10")
    assert broken.tensorflow.error is not None
    report = run_checks(broken, load_matrix(), allow_cpu=True)
    first = report.first_fix
    assert first is not None
    assert first.cause == "numpy_incompatible"
    python = broken.target.python_executable
    assert (
        first.fix
        == f'{python} -m pip install "numpy<2"  # this TensorFlow was built against NumPy 1.x'
    )
    imported = next(f for f in report.findings if f.check == "tf_import")
    assert imported.cause == "tf_import_failed"
    assert "because" in imported.summary
    assert imported.fix == first.fix
    # the build is unknown, not CPU-only: the wheel says what it is
    build = next(f for f in report.findings if f.check == "tf_build")
    assert "tensorflow 2.10.1 wheel for Linux x86_64 is built with CUDA 11.2" in build.summary
    libraries = next(f for f in report.findings if f.check == "cuda_libraries")
    assert "not a CUDA build" not in libraries.summary


def test_a_real_start_up_on_a_machine_without_gpu_has_nothing_actionable() -> None:
    for name in (
        "tf210-py310_probe.stderr",
        "tf215-py311_probe.stderr",
        "tf221-py311_probe.stderr",
    ):
        snapshot = scenario("real-cpu-only-tf-2.21-no-driver")
        log = tuple((REAL / name).read_text().splitlines())
        report = run_checks(
            dataclasses.replace(
                snapshot, tensorflow=dataclasses.replace(snapshot.tensorflow, log=log)
            ),
            load_matrix(),
        )
        tf_log = next(f for f in report.findings if f.check == "tf_log")
        assert tf_log.status is Status.OK, (name, tf_log.summary)
        assert report.first_fix is not None
        assert report.first_fix.cause == "no_nvidia_driver"


def test_doctor_log_adds_the_program_own_evidence(run_cli: Any, tmp_path: Path) -> None:
    # gpucheck's probe saw the GPU; the user's program did not: it (or its launcher) hides it
    log = tmp_path / "train.log"
    log.write_text(NO_DEVICE + "\n")
    result = run_cli(["doctor", "--json", "--log", str(log)], SnapshotProbes(scenario("two-a100")))
    data = result.json()
    codes = [c["cause"] for c in data["causes"]]
    assert "gpu_hidden_by_env" in codes
    cause = next(c for c in data["causes"] if c["cause"] == "gpu_hidden_by_env")
    assert cause["evidence"] == [NO_DEVICE]
    assert data["first_fix"]["cause"] == "gpu_hidden_by_env"
    missing = run_cli(
        ["doctor", "--log", str(tmp_path / "nope.log")], SnapshotProbes(scenario("two-a100"))
    )
    assert missing.exit_code == 2


def test_every_cause_a_log_can_show_has_a_layer_and_a_fix() -> None:
    from tf_gpucheck.checks.remedies import REMEDIES
    from tf_gpucheck.reading.logrules import load

    for symptom, causes in EXPLAINS.items():
        assert symptom not in DEPTH, symptom
        assert causes <= set(DEPTH) | SYMPTOMS, symptom
    for rule in load():
        if rule.cause is None:
            continue
        assert rule.cause in DEPTH or rule.cause in SYMPTOMS, rule.id
        assert rule.cause in REMEDIES, (rule.id, rule.cause)


def _example(rule: str) -> str:
    """A real line of this rule, from its examples in knowledge/rules/ (each with its origin)."""
    from tf_gpucheck.reading.logrules import load

    return next(r.examples[0].line for r in load() if r.id == rule)


def test_a_snapshot_without_nvml_still_reads_the_gpu_from_the_log() -> None:
    # a report replayed without nvidia-smi: NVML unknown, TensorFlow's log found a GPU and then
    # could not load cuDNN. The driver works; cuDNN is the cause.
    log = (_example("found_device"), _example("dlopen_cudnn"), CANNOT_DLOPEN)
    snapshot = _tf_sees_no_gpu(log)
    snapshot = dataclasses.replace(
        snapshot,
        nvml=dataclasses.replace(
            snapshot.nvml, available=False, error="not recorded", gpus=(), driver_version=None
        ),
    )
    report = run_checks(snapshot, load_matrix())
    first = report.first_fix
    assert first is not None
    assert first.cause == "cudnn_missing"
    driver = next(f for f in report.findings if f.check == "nvidia_driver")
    assert driver.status is Status.INFO
    assert "the driver works" in driver.summary
    symptom = next(f for f in report.findings if f.check == "tf_gpus")
    assert symptom.cause == "tf_sees_fewer_gpus"
    assert "because" in symptom.summary


def test_another_framework_on_the_gpu_clears_the_driver() -> None:
    from tf_gpucheck.snapshot import FrameworkInfo, FrameworksInfo

    torch = FrameworkInfo(
        "torch", "2.13.0", cuda_version="12.1", gpu_usable=True, devices=("cuda:0 NVIDIA A100",)
    )
    snapshot = _tf_sees_no_gpu((LIBCUDART_MISSING, CANNOT_DLOPEN))
    snapshot = dataclasses.replace(
        snapshot,
        frameworks=FrameworksInfo(probed=True, frameworks=(torch,)),
        nvml=dataclasses.replace(
            snapshot.nvml, available=False, error="NVML Shared Library Not Found", gpus=()
        ),
    )
    report = run_checks(snapshot, load_matrix())
    driver = next(f for f in report.findings if f.check == "nvidia_driver")
    assert driver.status is Status.INFO  # PyTorch used the GPU: no false "no driver"
    assert report.first_fix is not None
    assert report.first_fix.cause == "cuda_libs_missing"
    symptom = next(f for f in report.findings if f.check == "tf_gpus")
    assert symptom.summary.startswith(
        "PyTorch 2.13.0 (CUDA 12.1) uses the GPU here, so the driver works: "
    )
    assert "because libcudart.so.11.0 did not load" in symptom.summary


def test_an_import_failure_is_not_blamed_on_a_circumstance() -> None:
    # TensorFlow fails to import with a reason its traceback gives, on a machine without a
    # driver: the missing driver does not explain it, and the import is the first thing to fix
    base = scenario("real-tf-2.15-py3.11-no-driver")
    tensorflow = dataclasses.replace(
        base.tensorflow,
        version=None,
        build_info=None,
        is_built_with_cuda=None,
        physical_devices=(),
        logical_devices=(),
        ops=(),
        error="import tensorflow failed: ImportError: x",
        log=(),
        traceback=None,
    )
    snapshot = dataclasses.replace(base, tensorflow=tensorflow)
    for allow_cpu in (False, True):
        report = run_checks(snapshot, load_matrix(), allow_cpu=allow_cpu)
        imported = next(f for f in report.findings if f.check == "tf_import")
        assert "because" not in imported.summary
        assert report.first_fix is not None
        assert report.first_fix.cause == "tf_import_failed", allow_cpu
        assert report.first_fix.fix is not None
        assert "reinstall" in report.first_fix.fix


def test_a_place_that_reaches_no_gpu_comes_before_installing_tensorflow() -> None:
    """An empty venv in a container without a GPU device: the first thing to do is give the
    container the GPU (the install's CUDA wheels are for a GPU it cannot reach yet)."""
    bare = scenario("tf-not-installed")
    place = PlaceInfo(
        container="docker", markers=("/.dockerenv",), nvidia=NvidiaRuntimeInfo(device_nodes=())
    )
    report = run_checks(dataclasses.replace(bare, place=place), load_matrix())
    first = report.first_fix
    assert first is not None
    assert first.cause == "container_no_gpu", [c.code for c in report.causes]
    later = next(c for c in report.causes if c.code == "tf_not_installed")
    assert "once the program can reach the GPU" in later.details


def test_a_keras_failure_the_text_shows_comes_before_a_platform_without_cuda() -> None:
    """The program failed with Keras 3's own error (keras-team/keras#20339's line): that stops
    it on every platform, so native Windows' lack of GPU support (stated in words) comes after."""
    from tf_gpucheck.explain import explain

    text = (
        "OS: Windows 11, tensorflow 2.16.2\n"
        "ValueError: The layer sequential_6 has never been called and thus has no defined input.\n"
    )
    causes = [c.code for c in explain(text, load_matrix()).report.causes]
    assert causes[:2] == ["keras_mismatch", "windows_native_unsupported"]
    without_keras = [
        c.code for c in explain("OS: Windows 11, tensorflow 2.16.2\n", load_matrix()).report.causes
    ]
    assert without_keras[0] == "windows_native_unsupported"
