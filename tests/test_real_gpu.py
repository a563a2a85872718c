"""Recordings from a real NVIDIA H200 machine (tests/data/gpu/h200/README.md): what gpucheck read
there, field by field against nvidia-smi's own output of the same moment, and what it concluded."""

from __future__ import annotations

import csv
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import scenario
from tf_gpucheck import bench
from tf_gpucheck.checks import run_checks
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.snapshot import NvmlGpu, Snapshot

H200 = Path(__file__).resolve().parent / "data" / "gpu" / "h200"
MIB = 1024**2


def _smi(name: str) -> ET.Element:
    return ET.parse(H200 / name).getroot()


def _mib(text: str | None) -> int:
    match = re.fullmatch(r"(\d+) MiB", (text or "").strip())
    assert match is not None, text
    return int(match.group(1))


def _close_to(value: int | None, mib: int) -> bool:
    """nvidia-smi prints whole MiB: within one of them."""
    return value is not None and abs(value / MIB - mib) <= 1


def _same_as_smi(snapshot: Snapshot, smi: ET.Element) -> None:
    nvml = snapshot.nvml
    assert nvml.available
    assert nvml.driver_version == smi.findtext("driver_version") == "580.159.04"
    assert nvml.cuda_driver_version == smi.findtext("cuda_version") == "13.0"
    gpus = smi.findall("gpu")
    assert len(nvml.gpus) == len(gpus) == 1
    gpu, board = nvml.gpus[0], gpus[0]
    assert gpu.name == board.findtext("product_name") == "NVIDIA H200"
    assert gpu.pci_bus_id == board.get("id")
    assert gpu.mig_mode == (board.findtext("mig_mode/current_mig") or "").lower() == "disabled"
    memory = board.find("fb_memory_usage")
    assert memory is not None
    assert _close_to(gpu.memory_total_bytes, _mib(memory.findtext("total")))
    assert _close_to(gpu.memory_used_bytes, _mib(memory.findtext("used")))
    assert _close_to(gpu.memory_reserved_bytes, _mib(memory.findtext("reserved")))
    assert _close_to(gpu.memory_free_bytes, _mib(memory.findtext("free")))
    processes = board.findall("processes/process_info")
    assert [(p.pid, p.kind) for p in gpu.processes] == [
        (int(p.findtext("pid") or 0), "compute" if p.findtext("type") == "C" else "graphics")
        for p in processes
    ]
    for process, info in zip(gpu.processes, processes, strict=True):
        assert _close_to(process.used_memory_bytes, _mib(info.findtext("used_memory")))
    assert gpu.uuid == "GPU-<redacted>"  # recorded with --redact; nvidia-smi has the real one
    assert (board.findtext("uuid") or "").startswith("GPU-")
    assert gpu.errors == {}


def test_an_idle_gpu_reads_as_nvidia_smi_reads_it() -> None:
    # nvidia-smi said "0MiB / 143771MiB" used and kept 616 MiB "Reserved" apart; NVML's v1
    # memory call (the probe's until then) counted the reserve as used: "615.1 MiB / 140.4 GiB"
    snapshot = scenario("real-h200-torch-jax-no-tf")
    _same_as_smi(snapshot, _smi("smi-q.xml"))
    assert snapshot.nvml.gpus[0].memory_used_bytes == 0
    with (H200 / "smi-query.csv").open() as handle:
        (row,) = csv.DictReader(handle, skipinitialspace=True)
    assert snapshot.nvml.gpus[0].compute_capability == row["compute_cap"] == "9.0"


def test_a_process_holding_memory_reads_as_nvidia_smi_reads_it() -> None:
    # a PyTorch process held 3 GiB (and its CUDA context) while both were asked
    snapshot = scenario("real-h200-process-holding-memory")
    _same_as_smi(snapshot, _smi("busy-smi-q.xml"))
    (process,) = snapshot.nvml.gpus[0].processes
    assert process.used_memory_bytes is not None
    assert process.used_memory_bytes > 3 * 1024**3


def test_free_memory_leaves_out_the_drivers_reserve() -> None:
    gpu = NvmlGpu(0, "g", None, None, "9.0", 100 * MIB, 10 * MIB, (), {}, 6 * MIB, None)
    assert gpu.memory_free_bytes == 84 * MIB
    old = NvmlGpu(0, "g", None, None, "9.0", 100 * MIB, 16 * MIB, (), {})  # v1: reserve in used
    assert old.memory_free_bytes == 84 * MIB


def test_the_cuda_13_wheels_are_read_at_their_own_versions() -> None:
    # PyTorch, in the same environment, reported cuDNN 91900 and CUDA 13.0
    frameworks = (H200 / "frameworks.txt").read_text()
    assert "cuda 13.0 cudnn 91900" in frameworks
    freeze = dict(
        line.split("==", 1) for line in (H200 / "pip-freeze.txt").read_text().splitlines()
    )
    libraries = {lib.name: lib for lib in scenario("real-h200-torch-jax-no-tf").libraries.libraries}
    cudnn = libraries["libcudnn"]
    assert cudnn.locations[0].package == "nvidia-cudnn-cu13"
    assert cudnn.loaded_path is not None
    assert cudnn.loaded_path.endswith("/site-packages/nvidia/cudnn/lib/libcudnn.so.9")
    # the system's cuDNN 9.14.0 in the loader cache beside it had answered for the wheel before
    assert cudnn.version == "9.19.0"
    assert freeze["nvidia-cudnn-cu13"].startswith(cudnn.version + ".")
    assert any(loc.file_version == "9.14.0" for loc in cudnn.locations)
    cudart = libraries["libcudart"]
    assert cudart.loaded_path is not None
    assert cudart.loaded_path.endswith("/site-packages/nvidia/cu13/lib/libcudart.so.13")
    assert cudart.locations[0].package == "nvidia-cuda-runtime"
    assert cudart.version == "13.0"
    assert libraries["libcuda"].version == "13.0"  # the driver's, as nvidia-smi's "CUDA Version"


def test_doctor_on_the_h200_says_what_nvidia_smi_and_the_frameworks_show() -> None:
    # Driver and GPU work (nvidia-smi, and PyTorch, JAX and CuPy computed on it); TensorFlow
    # is not installed: that is the cause, and the fix installs the newest TensorFlow for
    # this driver and compute capability.
    report = run_checks(scenario("real-h200-torch-jax-no-tf"), load_matrix())
    by_check = {f.check: f for f in report.findings}
    assert by_check["nvidia_driver"].status.value == "ok"
    assert "580.159.04" in by_check["nvidia_driver"].summary
    assert "NVIDIA H200" in by_check["nvidia_driver"].summary
    assert by_check["gpu_visibility"].status.value == "ok"
    assert by_check["other_frameworks"].summary.startswith(
        "PyTorch 2.11.0 (CUDA 13.0), JAX 0.11.2 (CUDA 13.0) and CuPy 14.2.0 (CUDA 13.2) use the GPU"
    )
    # Keras 3.15 is installed with no KERAS_BACKEND and no keras.json: its backend is
    # TensorFlow, which is not there, so "Keras uses its default backend" is no "ok"
    assert by_check["keras_backend"].status.value == "skip", by_check["keras_backend"]
    assert "not installed" in by_check["keras_backend"].summary
    first = report.first_fix
    assert first is not None
    assert first.cause == "tf_not_installed"
    assert first.fix == '/opt/torch/.venv/bin/python3 -m pip install "tensorflow[and-cuda]==2.21.*"'
    recorded = json.loads((H200 / "doctor.json").read_text())
    assert recorded["first_fix"]["cause"] == first.cause
    assert recorded["first_fix"]["fix"] == first.fix


@pytest.mark.parametrize(
    ("name", "value"),
    [("real-h200-cuda-visible-devices-none", "-1"), ("real-h200-cuda-visible-devices-absent", "5")],
)
def test_cuda_visible_devices_that_hides_the_gpu(name: str, value: str) -> None:
    snapshot = scenario(name)
    assert snapshot.system.env.get("CUDA_VISIBLE_DEVICES") == value
    report = run_checks(snapshot, load_matrix())
    visibility = next(f for f in report.findings if f.check == "gpu_visibility")
    assert visibility.status.value == "fail"
    assert f"CUDA_VISIBLE_DEVICES='{value}' hides every GPU" in visibility.summary
    recorded = json.loads((H200 / f"doctor-cvd-{name.rsplit('-', 1)[1]}.json").read_text())
    assert any(
        f["check"] == "gpu_visibility" and f["status"] == "fail" for f in recorded["findings"]
    )


def test_jax_and_pytorch_gpu_runs_are_not_held_back_by_tensorflows_diagnosis() -> None:
    # With no TensorFlow, doctor's first cause is tf_not_installed; bench --backend jax and
    # --backend torch had shown it in place of their GPU figures.
    snapshot = scenario("real-h200-torch-jax-no-tf")
    assert bench.gpu_unavailable_reason(snapshot, "jax") is None
    assert bench.gpu_unavailable_reason(snapshot, "torch") is None
    reason = bench.gpu_unavailable_reason(snapshot, "tensorflow")
    assert reason is not None
    assert "[tf_not_installed]" in reason
    hidden = scenario("real-h200-cuda-visible-devices-none")
    assert bench.gpu_unavailable_reason(hidden, "jax") == "CUDA_VISIBLE_DEVICES hides every GPU"


@pytest.mark.parametrize("backend", ["jax", "torch"])
def test_matmul_speedup_compares_flop_rates(backend: str) -> None:
    # The CPU multiplies n=2048 matrices, the GPU n=8192: products per second said "0.6x" for
    # PyTorch on the H200 (50 TFLOP/s against the CPU's 1.2)
    data = json.loads((H200 / f"bench-{backend}.json").read_text())
    results = [bench._result(entry) for entry in data["results"]]
    by_key = {(r.device, r.workload): r for r in results}
    assert all(by_key["gpu", w].status == "ok" for w in ("mlp", "cnn", "matmul"))
    gpu, cpu = by_key["gpu", "matmul"], by_key["cpu", "matmul"]
    assert gpu.gflops is not None
    assert cpu.gflops is not None
    matmul = next(s for s in bench.speedups(results) if s.workload == "matmul")
    assert matmul.median == pytest.approx(gpu.gflops / cpu.gflops)
    assert matmul.median > 30
    assert matmul.low <= matmul.median <= matmul.high
    training = next(s for s in bench.speedups(results) if s.workload == "cnn")
    assert training.median == pytest.approx(
        (by_key["gpu", "cnn"].samples_per_s or 0) / (by_key["cpu", "cnn"].samples_per_s or 1)
    )
