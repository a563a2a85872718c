"""gpucheck's CLI: start-up imports, `--version`, `detect` (human and JSON), bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.conftest import SnapshotProbes, scenario
from tf_gpucheck import __version__
from tf_gpucheck.snapshot import Snapshot

MODULES_AFTER = """
import json, sys
from tf_gpucheck.cli import main
code = main({args!r})
sys.stdout.flush()
sys.stderr.write("\\nMODULES=" + json.dumps(sorted(sys.modules)) + "\\n")
"""


def _modules_after(args: list[str]) -> set[str]:
    result = subprocess.run(
        [sys.executable, "-c", MODULES_AFTER.format(args=args)],
        capture_output=True,
        text=True,
        check=True,
    )
    line = next(line for line in result.stderr.splitlines() if line.startswith("MODULES="))
    return set(json.loads(line.removeprefix("MODULES=")))


def test_help_imports_neither_tensorflow_nor_nvml() -> None:
    modules = _modules_after(["--help"])
    assert "typer" in modules  # the probe really ran the CLI
    assert not {
        m for m in modules if m.split(".")[0] in {"tensorflow", "pynvml", "keras", "numpy", "yaml"}
    }


@pytest.mark.parametrize(
    "command",
    [
        [],
        ["detect"],
        ["doctor"],
        ["explain"],
        ["fleet"],
        ["matrix"],
        ["configure-memory"],
        ["bench"],
    ],
)
def test_help_shows_no_value_placeholder_on_flags(run_cli: Any, command: list[str]) -> None:
    result = run_cli([*command, "--help"])
    assert result.exit_code == 0
    assert "Usage: gpucheck" in result.stdout
    assert "<bool>" not in result.stdout
    assert "<str>" not in result.stdout
    assert "<list" not in result.stdout
    assert "[[" not in result.stdout.splitlines()[0]
    assert "--help" in result.stdout


def test_shell_completion_is_offered(run_cli: Any) -> None:
    result = run_cli(["--help"])
    assert "--install-completion" in result.stdout
    assert "--show-completion" in result.stdout


def test_detect_no_tf_does_not_import_tensorflow() -> None:
    modules = _modules_after(["detect", "--no-tf", "--json"])
    assert "tf_gpucheck.probes.nvml" in modules  # the driver was queried
    assert not {m for m in modules if m.split(".")[0] in {"tensorflow", "keras", "numpy"}}


def test_version_and_python_dash_m() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tf_gpucheck", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == f"gpucheck {__version__}"


def test_detect_without_driver_says_so_plainly(run_cli: Any) -> None:
    result = run_cli(["detect"], SnapshotProbes(scenario("real-cpu-only-tf-2.21-no-driver")))
    assert result.exit_code == 0
    assert "no NVIDIA driver: NVML library not found" in result.stdout
    assert "CUDA 12.5.1, cuDNN 9" in result.stdout
    assert "sm_60 sm_70 sm_80 sm_89 compute_90" in result.stdout
    assert "/physical_device:CPU:0" in result.stdout


def test_detect_two_a100(run_cli: Any) -> None:
    result = run_cli(["detect"], SnapshotProbes(scenario("two-a100")))
    assert result.exit_code == 0
    # each GPU twice: once as the driver names it, once in TensorFlow's device details
    assert result.stdout.count("NVIDIA A100-SXM4-80GB") == 4
    assert "560.35.03" in result.stdout
    assert "/physical_device:GPU:1" in result.stdout
    assert "matmul on /device:GPU:1" in result.stdout
    assert "nvidia-cudnn-cu12" in result.stdout


def test_detect_cpu_build_is_named(run_cli: Any) -> None:
    result = run_cli(["detect"], SnapshotProbes(scenario("tf-cpu-build")))
    assert "no GPU support (CPU-only build)" in result.stdout
    assert "tensorflow-cpu 2.21.0" in result.stdout


def test_detect_json_is_the_snapshot_on_stdout(run_cli: Any) -> None:
    source = scenario("two-a100")
    result = run_cli(["detect", "--json"], SnapshotProbes(source))
    assert result.exit_code == 0
    loaded = Snapshot.from_json(result.stdout)
    assert loaded.nvml == source.nvml
    assert loaded.tensorflow == source.tensorflow
    assert loaded.packages == source.packages
    assert loaded.gpucheck_version == __version__


def test_detect_no_tf_skips_the_child(run_cli: Any) -> None:
    probes = SnapshotProbes(scenario("two-a100"))
    result = run_cli(["detect", "--no-tf", "--json"], probes)
    assert probes.tensorflow_calls == 0
    data = json.loads(result.stdout)
    assert data["tensorflow"]["probed"] is False
    assert data["tensorflow"]["installed"] is True
    human = run_cli(["detect", "--no-tf"], probes)
    assert "not imported (--no-tf)" in human.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["detect", "--timeout", "abc"], "Invalid value for '--timeout'"),
        (["detect", "--timeout", "0"], "--timeout"),
        (["detect", "--python", "/nonexistent/python3"], "no such interpreter"),
        (["detect", "--frobnicate"], "No such option"),
        (["nosuchcommand"], "No such command"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(run_cli: Any, args: list[str], words: str) -> None:
    result = run_cli(args, SnapshotProbes(scenario("two-a100")))
    assert result.exit_code == 2
    assert result.stdout == ""
    first, *rest = result.stderr.splitlines()
    assert first.startswith("gpucheck: error: ")
    assert words in first
    assert all(line.startswith("hint: ") for line in rest)
    assert "Traceback" not in result.stderr


def test_detect_says_cudnn_as_the_build_states_it(run_cli: Any) -> None:
    from tests.conftest import SnapshotProbes

    result = run_cli(["detect"], SnapshotProbes(scenario("real-tf-2.21-and-cuda-py3.11-no-driver")))
    assert "cuDNN 9 (its major: build_info.py names no more)" in result.stdout
