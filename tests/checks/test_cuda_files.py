"""Another distribution's files where TensorFlow's were: the RECORD files decide whose a file is.

The slow test builds the real thing once: a venv with TensorFlow (this test environment's own
files, hard-linked), the cuDNN wheel TensorFlow's and-cuda extra declares, then the CUDA 13
cuDNN wheel PyTorch's CUDA 13 build depends on (nvidia-cudnn-cu13), which installs into the same
``nvidia/cudnn/lib`` folder. pip has no word for that (both distributions are installed, each
with its RECORD); doctor must say whose file is there now, and its fix must put TensorFlow's back.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import subprocess
import sys
import venv
from importlib.metadata import distribution
from pathlib import Path

import pytest

from tests.paths import DATA
from tf_gpucheck.checks import run_checks
from tf_gpucheck.checks.layers.runtime import cuda_files
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.snapshot import FileOwner, load_snapshot

SNAPSHOTS = DATA / "snapshots"
MATRIX = load_matrix()
LIB = "/srv/envs/tf221-andcuda-py311/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9"


def _with_owners(*owners: FileOwner):  # type: ignore[no-untyped-def]
    snapshot = load_snapshot(SNAPSHOTS / "real-tf-2.21-and-cuda-py3.11-no-driver.json")
    return dataclasses.replace(
        snapshot, libraries=dataclasses.replace(snapshot.libraries, owners=owners)
    )


def test_a_file_another_distribution_installed_over_tensorflows_is_said() -> None:
    snapshot = _with_owners(
        FileOwner(LIB, "nvidia-cudnn-cu13", "9.19.0.56", ("nvidia-cudnn-cu12 9.3.0.75",))
    )
    finding = cuda_files(snapshot, MATRIX)
    assert finding.status.value == "warn"
    assert finding.cause == "cuda_files_overwritten"
    assert "libcudnn.so.9 is now nvidia-cudnn-cu13 9.19.0.56's" in finding.summary
    assert "nvidia-cudnn-cu12 9.3.0.75" in finding.summary
    assert finding.fix is not None
    assert "--force-reinstall --no-deps" in finding.fix
    assert '"nvidia-cudnn-cu12==' in finding.fix
    assert "its own virtual environment" in finding.details


def test_tensorflows_own_files_are_no_finding() -> None:
    snapshot = _with_owners(FileOwner(LIB, "nvidia-cudnn-cu12", "9.3.0.75", ()))
    assert cuda_files(snapshot, MATRIX).status.value == "ok"
    # TensorFlow's wheel installed again after the other: its files are back
    again = _with_owners(
        FileOwner(LIB, "nvidia-cudnn-cu12", "9.3.0.75", ("nvidia-cudnn-cu13 9.19.0.56",))
    )
    assert cuda_files(again, MATRIX).status.value == "ok"


def test_a_snapshot_that_never_read_the_records_is_not_judged() -> None:
    snapshot = _with_owners()
    finding = cuda_files(snapshot, MATRIX)
    assert finding.status.value == "skip"
    assert "RECORD" in finding.summary
    report = run_checks(snapshot, MATRIX)
    assert not any(f.cause == "cuda_files_overwritten" for f in report.findings)


def _pip(python: Path, *args: str) -> None:
    # no cache: the two cuDNN wheels (gigabytes) are not kept a second time in pip's cache
    subprocess.run([str(python), "-m", "pip", "-q", "--no-cache-dir", *args], check=True)


@pytest.mark.slow
def test_tensorflow_with_a_cuda_13_cudnn_installed_after_it(tmp_path: Path) -> None:
    try:
        tf = distribution("tensorflow")
    except Exception:
        pytest.skip("TensorFlow is not installed in the test environment")
    env = tmp_path / "env"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # TensorFlow's own files (its binaries and METADATA with the and-cuda extra), hard-linked
    source = Path(str(tf.locate_file("tensorflow")))
    info = Path(str(tf._path))  # type: ignore[attr-defined]
    for folder in (source, info):
        shutil.copytree(folder, site / folder.name, copy_function=os.link)
    cudnn12 = next(r for r in tf.requires or () if r.startswith("nvidia-cudnn-cu12"))
    pin = cudnn12.split(";")[0].strip()
    _pip(python, "install", "--no-deps", pin)
    _pip(python, "install", "--no-deps", "nvidia-cudnn-cu13<10")

    def doctor() -> dict[str, object]:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "tf_gpucheck",
                "doctor",
                "--python",
                str(python),
                "--no-tf",
                "--proof-budget",
                "0",
                "--json",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        report: dict[str, object] = json.loads(out.stdout)
        return report

    def finding(report: dict[str, object]) -> dict[str, str]:
        found: dict[str, str] = next(
            f
            for f in report["findings"]  # type: ignore[attr-defined]
            if f["check"] == "cuda_files"
        )
        return found

    before = finding(doctor())
    assert before["status"] == "warn", before
    assert before["cause"] == "cuda_files_overwritten"
    assert "libcudnn.so.9 is now nvidia-cudnn-cu13" in before["summary"]
    fix = before["fix"]
    assert fix
    assert "--force-reinstall --no-deps" in fix
    # the fix, run as printed, puts TensorFlow's files back
    subprocess.run(shlex.split(fix.split("  #")[0]), check=True, cwd=tmp_path)
    after = finding(doctor())
    assert after["status"] == "ok", after
    assert "nvidia-cudnn-cu12" in after["summary"]
