"""Where it runs: the place probe on real runtimes' markers, and the cause and fix for each place.

Marker files come from real runtimes (tests/data/places, how each was recorded in its README);
Kubernetes, SLURM, Colab, Kaggle and CI are told by variables their documentation names. The
last test runs gpucheck inside a real Podman container when one can run here.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import scenario
from tests.paths import DATA, ROOT
from tf_gpucheck.checks import run_checks
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.probes.place import probe_place
from tf_gpucheck.snapshot import NvmlInfo, Snapshot

PLACES = DATA / "places"
MATRIX = load_matrix()
EMPTY = str(PLACES / "none")  # a root with no marker at all


def test_docker_is_told_by_dockerenv() -> None:
    place = probe_place({}, root=str(PLACES / "docker"))
    assert place.container == "docker"
    assert place.markers == ("/.dockerenv",)
    assert place.nvidia is not None
    assert place.nvidia.device_nodes == ()


def test_podman_is_told_by_containerenv_its_variable_and_cgroup() -> None:
    place = probe_place({"container": "podman"}, root=str(PLACES / "podman"))
    assert place.container == "podman"
    assert "/run/.containerenv" in place.markers
    assert "container=podman" in place.markers
    assert "/proc/1/cgroup names libpod" in place.markers


def test_a_device_node_and_the_runtimes_variables_are_recorded() -> None:
    place = probe_place(
        {"container": "podman", "NVIDIA_DRIVER_CAPABILITIES": "utility"},
        root=str(PLACES / "podman-device"),
    )
    assert place.nvidia is not None
    assert place.nvidia.device_nodes == ("/dev/nvidia0",)
    assert place.nvidia.driver_capabilities == "utility"


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        # kubernetes.io, "Service > Environment variables": set in every container of a pod
        ({"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}, "kubernetes"),
        # sbatch(1), OUTPUT ENVIRONMENT VARIABLES
        ({"SLURM_JOB_ID": "4242", "SLURM_JOB_NODELIST": "gpu001"}, "slurm"),
        ({"COLAB_RELEASE_TAG": "release-colab_20241115-060125_RC00"}, "colab"),
        ({"KAGGLE_KERNEL_RUN_TYPE": "Interactive"}, "kaggle"),
        ({"JPY_PARENT_PID": "1234"}, "jupyter"),
        ({"GITHUB_ACTIONS": "true", "CI": "true"}, "github_actions"),
        ({}, None),
    ],
)
def test_places_told_by_their_documented_variables(environ: dict[str, str], expected: Any) -> None:
    place = probe_place(environ, root=EMPTY)
    found = (
        "kubernetes"
        if place.kubernetes
        else "slurm"
        if place.slurm_job
        else place.notebook or place.ci
    )
    assert found == expected
    if expected == "slurm":
        assert place.slurm_gpus is None
        given = probe_place({**environ, "SLURM_JOB_GPUS": "0,1"}, root=EMPTY)
        assert given.slurm_gpus == "SLURM_JOB_GPUS=0,1"


def _no_gpu_here(environ: dict[str, str], root: str = EMPTY) -> Snapshot:
    """A machine without an NVIDIA driver answering (TensorFlow 2.21 with its CUDA wheels), in
    the place these markers say."""
    base = scenario("real-tf-2.21-and-cuda-py3.11-no-driver")
    return dataclasses.replace(base, place=probe_place(environ, root=root))


def _first(snapshot: Snapshot) -> tuple[str | None, str]:
    first = run_checks(snapshot, MATRIX).first_fix
    assert first is not None
    return first.cause, first.fix or ""


@pytest.mark.parametrize(
    ("environ", "root", "cause", "in_fix"),
    [
        ({}, str(PLACES / "docker"), "container_no_gpu", "docker run --gpus all"),
        ({"container": "podman"}, str(PLACES / "podman"), "container_no_gpu", "--device nvidia.com/gpu=all"),
        ({"KUBERNETES_SERVICE_HOST": "10.96.0.1"}, EMPTY, "pod_no_gpu", "nvidia.com/gpu: 1"),
        ({"SLURM_JOB_ID": "4242"}, EMPTY, "slurm_no_gpu", "--gres=gpu:1"),
        ({"COLAB_RELEASE_TAG": "release-colab"}, EMPTY, "notebook_no_accelerator", "Change runtime type"),
        ({"KAGGLE_KERNEL_RUN_TYPE": "Interactive"}, EMPTY, "notebook_no_accelerator", "Accelerator"),
    ],
)  # fmt: skip
def test_the_first_fix_fits_the_place(
    environ: dict[str, str], root: str, cause: str, in_fix: str
) -> None:
    first_cause, fix = _first(_no_gpu_here(environ, root))
    assert first_cause == cause
    assert in_fix in fix
    assert "ubuntu-drivers" not in fix


def test_no_driver_on_a_bare_machine_still_gets_the_driver() -> None:
    cause, fix = _first(_no_gpu_here({}))
    assert cause == "no_nvidia_driver"
    assert "ubuntu-drivers" in fix


def test_capabilities_without_compute() -> None:
    snapshot = dataclasses.replace(
        scenario("two-a100"),
        place=probe_place(
            {"container": "podman", "NVIDIA_DRIVER_CAPABILITIES": "utility"},
            root=str(PLACES / "podman-device"),
        ),
    )
    finding = next(f for f in run_checks(snapshot, MATRIX).findings if f.check == "place")
    assert finding.cause == "container_capabilities_missing"
    assert finding.fix is not None
    assert "NVIDIA_DRIVER_CAPABILITIES=compute,utility" in finding.fix


def test_an_image_needing_a_newer_cuda_than_the_host_driver() -> None:
    base = scenario("two-a100")
    old_driver = dataclasses.replace(base.nvml, cuda_driver_version="12.2")
    snapshot = dataclasses.replace(
        base,
        nvml=old_driver,
        place=probe_place(
            {"NVIDIA_REQUIRE_CUDA": "cuda>=12.8 brand=tesla,driver>=470,driver<471"},
            root=str(PLACES / "docker"),
        ),
    )
    finding = next(f for f in run_checks(snapshot, MATRIX).findings if f.check == "place")
    assert finding.cause == "driver_too_old"
    assert "CUDA 12.8" in finding.summary


def test_a_gpu_in_a_container_is_fine() -> None:
    snapshot = dataclasses.replace(
        scenario("two-a100"), place=probe_place({}, root=str(PLACES / "docker"))
    )
    finding = next(f for f in run_checks(snapshot, MATRIX).findings if f.check == "place")
    assert finding.status.value == "ok"


def test_wsl2_with_a_linux_driver_inside(tmp_path: Path) -> None:
    # /dev/dxg and /usr/lib/wsl/lib are what WSL2 gives (docs.nvidia.com/cuda/wsl-user-guide);
    # a libcuda.so.1 of a Linux driver package installed inside WSL hides the Windows one
    for path in (
        "dev/dxg",
        "usr/lib/wsl/lib/libcuda.so.1",
        "usr/lib/x86_64-linux-gnu/libcuda.so.1",
    ):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(b"")
    base = _no_gpu_here({}, root=str(tmp_path))
    wsl = dataclasses.replace(base, system=dataclasses.replace(base.system, is_wsl=True))
    cause, fix = _first(wsl)
    assert cause == "wsl_driver_problem"
    assert "/usr/lib/wsl/lib" in fix


def test_a_snapshot_without_a_place_skips_the_check() -> None:
    snapshot = dataclasses.replace(scenario("two-a100"), place=None)
    finding = next(f for f in run_checks(snapshot, MATRIX).findings if f.check == "place")
    assert finding.status.value == "skip"
    assert isinstance(snapshot.nvml, NvmlInfo)


PODMAN_ROOT = Path(os.environ.get("GPUCHECK_PODMAN_ROOT", "/work/podman"))


def test_doctor_inside_a_real_container_without_gpu_access() -> None:
    podman = shutil.which("podman")
    storage = PODMAN_ROOT / "storage"
    if podman is None or not storage.is_dir():
        pytest.skip(f"no podman with an image under {PODMAN_ROOT} (see shared REAL-TESTS.md)")
    venv = Path(sys.prefix)
    base = Path(os.path.realpath(sys.executable)).parents[1]
    checkout = ROOT
    result = subprocess.run(
        [
            podman, "--root", str(storage), "--runroot", str(PODMAN_ROOT / "run"), "run", "--rm",
            "--runtime", "runc", "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=4096:4096",
            "--network", "none", "-v", f"{venv}:{venv}:ro", "-v", f"{base}:{base}:ro",
            "-v", f"{checkout}:{checkout}:ro", "localhost/trixie-py",
            str(venv / "bin" / "python"), "-m", "tf_gpucheck", "doctor", "--no-tf", "--json",
        ],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    if result.returncode not in (0, 1):
        pytest.skip(f"podman could not run the container here: {result.stderr[-300:]}")
    data = json.loads(result.stdout)
    first = data["first_fix"]
    assert first["cause"] == "container_no_gpu"
    assert "podman container" in first["summary"]
    assert first["fix"].startswith(
        "start the container with the GPU: podman run --device nvidia.com/gpu=all"
    )
