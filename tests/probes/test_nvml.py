"""The NVML probe against fakes of nvidia-ml-py at its boundary (the pynvml module)."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import pynvml
import pytest

from tf_gpucheck.probes.nvml import probe_nvml

Handle = int


class FakeNvml:
    """Behaves like the pynvml module: same function names, same error classes and constants."""

    NVMLError = pynvml.NVMLError

    def __init__(
        self,
        gpus: list[dict[str, Any]],
        *,
        init_error: int | None = None,
        driver: Any = "550.54.15",
        cuda: int = 12040,
    ) -> None:
        self.gpus = gpus
        self.init_error = init_error
        self.driver = driver
        self.cuda = cuda
        self.shutdown_calls = 0
        for name in dir(pynvml):
            if name.startswith("NVML_ERROR_"):
                setattr(self, name, getattr(pynvml, name))

    def _gpu(self, handle: Handle) -> dict[str, Any]:
        return self.gpus[handle]

    def _field(self, handle: Handle, key: str) -> Any:
        value = self._gpu(handle)[key]
        if isinstance(value, int) and key.startswith("error_"):
            raise pynvml.NVMLError(value)
        if isinstance(value, pynvml.NVMLError):
            raise value
        return value

    def nvmlInit(self) -> None:
        if self.init_error is not None:
            raise pynvml.NVMLError(self.init_error)

    def nvmlShutdown(self) -> None:
        self.shutdown_calls += 1

    def nvmlSystemGetDriverVersion(self) -> Any:
        return self.driver

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return self.cuda

    def nvmlSystemGetNVMLVersion(self) -> str:
        return "12.550.54.15"

    def nvmlDeviceGetCount(self) -> int:
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> Handle:
        if self.gpus[index].get("lost"):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_GPU_IS_LOST)
        return index

    def nvmlDeviceGetName(self, handle: Handle) -> Any:
        return self._field(handle, "name")

    def nvmlDeviceGetUUID(self, handle: Handle) -> Any:
        return self._field(handle, "uuid")

    def nvmlDeviceGetPciInfo(self, handle: Handle) -> Any:
        return types.SimpleNamespace(busId=self._field(handle, "pci"))

    def nvmlDeviceGetCudaComputeCapability(self, handle: Handle) -> tuple[int, int]:
        return self._field(handle, "cc")  # type: ignore[no-any-return]

    def nvmlDeviceGetMemoryInfo(self, handle: Handle) -> Any:
        total, used = self._field(handle, "memory")
        return types.SimpleNamespace(total=total, used=used, free=total - used)

    def nvmlDeviceGetComputeRunningProcesses(self, handle: Handle) -> list[Any]:
        return [
            types.SimpleNamespace(pid=pid, usedGpuMemory=used)
            for pid, used in self._field(handle, "procs")
        ]

    def nvmlDeviceGetGraphicsRunningProcesses(self, handle: Handle) -> list[Any]:
        return []


def gpu(index: int, **overrides: Any) -> dict[str, Any]:
    base = {
        "name": "NVIDIA A100-SXM4-80GB",
        "uuid": f"GPU-{index}",
        "pci": f"00000000:0{index}:00.0",
        "cc": (8, 0),
        "memory": (85_899_345_920, 545_259_520),
        "procs": [],
    }
    base.update(overrides)
    return base


def loader(fake: FakeNvml) -> Callable[[], FakeNvml]:
    return lambda: fake


def test_two_gpus_are_reported_with_every_field() -> None:
    fake = FakeNvml([gpu(0), gpu(1, procs=[(4242, 2 * 1024**3), (4343, None)])])
    info = probe_nvml(loader(fake))
    assert info.available is True
    assert info.error is None
    assert info.driver_version == "550.54.15"
    assert info.cuda_driver_version == "12.4"
    assert [g.index for g in info.gpus] == [0, 1]
    first, second = info.gpus
    assert first.compute_capability == "8.0"
    assert first.memory_total_bytes == 85_899_345_920
    assert first.memory_used_bytes == 545_259_520
    assert first.pci_bus_id == "00000000:00:00.0"
    assert [(p.pid, p.used_memory_bytes) for p in second.processes] == [
        (4242, 2 * 1024**3),
        (4343, None),
    ]
    assert fake.shutdown_calls == 1


@pytest.mark.parametrize(
    ("code", "error_code", "words"),
    [
        (pynvml.NVML_ERROR_LIBRARY_NOT_FOUND, "library_not_found", "Not Found"),
        (pynvml.NVML_ERROR_DRIVER_NOT_LOADED, "driver_not_loaded", "Driver Not Loaded"),
        (pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH, "lib_rm_version_mismatch", "mismatch"),
        (pynvml.NVML_ERROR_NO_PERMISSION, "no_permission", "Permission"),
    ],
)
def test_init_failure_is_data_not_an_exception(code: int, error_code: str, words: str) -> None:
    info = probe_nvml(loader(FakeNvml([], init_error=code)))
    assert info.available is False
    assert info.error_code == error_code
    assert info.error is not None
    assert words.lower() in info.error.lower()
    assert info.gpus == ()


def test_real_pynvml_on_a_machine_without_driver_is_data() -> None:
    # The development and CI machines have no NVIDIA driver: this is the real library failing.
    info = probe_nvml()
    if info.available:
        pytest.skip("this machine has an NVIDIA driver")
    assert info.error_code == "library_not_found"


def test_missing_nvidia_ml_py_is_data() -> None:
    def missing() -> Any:
        raise ImportError("No module named 'pynvml'")

    info = probe_nvml(missing)
    assert info.available is False
    assert info.error_code == "pynvml_missing"


def test_errors_on_one_gpu_do_not_hide_the_others() -> None:
    fake = FakeNvml(
        [
            gpu(0, memory=pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)),
            gpu(1, lost=True),
            gpu(2, procs=pynvml.NVMLError(pynvml.NVML_ERROR_NO_PERMISSION)),
        ]
    )
    info = probe_nvml(loader(fake))
    zero, one, two = info.gpus
    assert zero.name == "NVIDIA A100-SXM4-80GB"
    assert zero.memory_total_bytes is None
    assert "Not Supported" in zero.errors["memory"]
    assert one.name is None
    assert "lost" in one.errors["handle"].lower()
    assert two.memory_total_bytes == 85_899_345_920
    assert "compute_processes" in two.errors


def test_old_nvidia_ml_py_bytes_and_missing_functions() -> None:
    class OldNvml(FakeNvml):
        nvmlDeviceGetGraphicsRunningProcesses = None  # type: ignore[assignment]  # absent in old bindings

    fake = OldNvml(
        [gpu(0, name=b"Tesla V100-SXM2-16GB", uuid=b"GPU-0", cc=(7, 0))],
        driver=b"470.82.01",
        cuda=11040,
    )
    info = probe_nvml(loader(fake))
    assert info.driver_version == "470.82.01"
    assert info.cuda_driver_version == "11.4"
    assert info.gpus[0].name == "Tesla V100-SXM2-16GB"
    assert info.gpus[0].compute_capability == "7.0"
    assert "graphics_processes" in info.gpus[0].errors


def test_probe_module_imports_no_nvml_at_import_time() -> None:
    import subprocess
    import sys

    code = "import sys, tf_gpucheck.probes.nvml; print('pynvml' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"


class FakeNvmlV2(FakeNvml):
    """A driver with NVML's v2 memory call (the reserve apart) and MIG."""

    nvmlMemory_v2 = pynvml.nvmlMemory_v2
    NVML_DEVICE_MIG_ENABLE = pynvml.NVML_DEVICE_MIG_ENABLE

    def nvmlDeviceGetMemoryInfo(self, handle: Handle, version: int | None = None) -> Any:
        total, used = self._field(handle, "memory")  # v1: the reserve counted as used
        if version is None:
            return types.SimpleNamespace(total=total, used=used, free=total - used)
        if self._gpu(handle).get("no_v2"):
            raise pynvml.NVMLError(pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)
        reserved = self._gpu(handle)["reserved"]
        return types.SimpleNamespace(
            total=total, reserved=reserved, used=used - reserved, free=total - used
        )

    def nvmlDeviceGetMigMode(self, handle: Handle) -> list[int]:
        mode = self._field(handle, "mig")
        return [mode, mode]


def test_memory_apart_from_the_drivers_reserve_and_mig_mode() -> None:
    reserved = 644_939_776  # what an idle H200 reserved (nvidia-smi: "Reserved 616 MiB")
    fake = FakeNvmlV2(
        [
            gpu(0, memory=(150_754_820_096, reserved), reserved=reserved, mig=1),
            gpu(1, no_v2=True, mig=pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)),
            gpu(2, reserved=0, mig=pynvml.NVMLError(pynvml.NVML_ERROR_UNKNOWN)),
        ]
    )
    h200, old, odd = probe_nvml(loader(fake)).gpus
    assert (h200.memory_used_bytes, h200.memory_reserved_bytes) == (0, reserved)
    assert h200.memory_free_bytes == 150_754_820_096 - reserved
    assert h200.mig_mode == "enabled"
    assert h200.errors == {}
    # a driver without the v2 call: v1's figures, the reserve unknown; a GPU without MIG
    assert (old.memory_used_bytes, old.memory_reserved_bytes) == (545_259_520, None)
    assert old.mig_mode is None
    assert old.errors == {}
    assert odd.mig_mode is None
    assert "mig_mode" in odd.errors
