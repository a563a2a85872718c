"""The TensorFlow child probe, for real on this machine, and its failure modes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tf_gpucheck.probes.tensorflow import child_environment, probe_tensorflow


def _wrapper(tmp_path: Path, body: str) -> str:
    """An executable that stands in for a Python interpreter."""
    path = tmp_path / "python"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.tensorflow
@pytest.mark.slow
def test_real_tensorflow_on_this_machine() -> None:
    import importlib.metadata

    info = probe_tensorflow(sys.executable, timeout_s=180)
    assert info.error is None, info.log[-5:]
    assert info.installed is True
    assert info.version == importlib.metadata.version("tensorflow")
    assert info.build_info is not None
    assert "is_cuda_build" in info.build_info
    assert info.import_seconds is not None
    assert info.import_seconds > 0
    assert ("/physical_device:CPU:0", "CPU") in [
        (d.name, d.device_type) for d in info.physical_devices
    ]
    assert ("/device:CPU:0", "CPU") in [(d.name, d.device_type) for d in info.logical_devices]
    cpu = next(op for op in info.ops if op.device.endswith("CPU:0"))
    assert cpu.ok
    assert cpu.checksum is not None
    assert cpu.checksum > 0
    assert info.returncode == 0
    # TensorFlow's own C++ start-up log, verbatim (TF_CPP_MIN_LOG_LEVEL=0 in the child)
    assert any("cpu_feature_guard" in line or "oneDNN" in line for line in info.log)
    if not any(d.device_type == "GPU" for d in info.physical_devices):
        assert any("cuda" in line.lower() for line in info.log)


def test_tensorflow_not_installed(tmp_path: Path) -> None:
    # -S: no site-packages, so `import tensorflow` fails exactly as it does where it is not installed
    python = _wrapper(tmp_path, f'exec "{sys.executable}" -S "$@"')
    info = probe_tensorflow(python, timeout_s=60)
    assert info.installed is False
    assert info.error == "TensorFlow is not installed in this Python"
    assert info.returncode == 0


def test_broken_tensorflow_import_is_data(tmp_path: Path) -> None:
    fake_site = tmp_path / "site"
    (fake_site / "tensorflow").mkdir(parents=True)
    (fake_site / "tensorflow/__init__.py").write_text(
        "raise ImportError('libcudart.so.11.0: cannot open shared object file: No such file or directory')\n"
    )
    python = _wrapper(tmp_path, f'PYTHONPATH="{fake_site}" exec "{sys.executable}" -S "$@"')
    info = probe_tensorflow(python, timeout_s=60)
    assert info.installed is True
    assert info.error is not None
    assert "libcudart.so.11.0" in info.error
    assert info.error.startswith("import tensorflow failed")


@pytest.mark.slow
def test_hang_is_cut_at_the_timeout_and_keeps_its_output(tmp_path: Path) -> None:
    python = _wrapper(
        tmp_path, "echo 'I0000 00:00:1.0 1 cuda_executor.cc:1] probing' >&2; sleep 30"
    )
    info = probe_tensorflow(python, timeout_s=1)
    assert info.timed_out is True
    assert info.returncode is None
    assert info.error is not None
    assert "did not finish within 1 s" in info.error
    assert info.log == ("I0000 00:00:1.0 1 cuda_executor.cc:1] probing",)
    assert info.duration_s is not None
    assert info.duration_s < 10


def test_crash_is_reported_with_its_signal(tmp_path: Path) -> None:
    python = _wrapper(tmp_path, "echo 'Illegal instruction (core dumped)' >&2; kill -ILL $$")
    info = probe_tensorflow(python, timeout_s=30)
    assert info.returncode == -4
    assert info.error is not None
    assert "killed by SIGILL" in info.error


def test_interpreter_that_cannot_run(tmp_path: Path) -> None:
    info = probe_tensorflow(str(tmp_path / "missing-python"), timeout_s=5)
    assert info.installed is None
    assert info.error is not None
    assert "cannot run" in info.error


def test_child_environment_turns_the_cpp_log_on() -> None:
    env = child_environment(
        {"TF_CPP_MIN_LOG_LEVEL": "3", "TF_CPP_MAX_VLOG_LEVEL": "2", "PATH": "/bin"}
    )
    assert env["TF_CPP_MIN_LOG_LEVEL"] == "0"
    assert "TF_CPP_MAX_VLOG_LEVEL" not in env
    assert env["PATH"] == "/bin"
