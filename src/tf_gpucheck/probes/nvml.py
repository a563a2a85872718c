"""The NVIDIA driver through NVML (nvidia-ml-py's ``pynvml``).

Facts only. NVML is imported and initialised when :func:`probe_nvml` is called, never at
import. Every failure is data: no library, no driver, a driver/library mismatch, a lost GPU or
one function a driver lacks becomes an ``error`` or an entry in a GPU's ``errors``; the other
GPUs and fields are still reported.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Any, TypeVar

from tf_gpucheck.snapshot import GpuProcess, NvmlGpu, NvmlInfo

T = TypeVar("T")


def _load_pynvml() -> Any:
    import pynvml

    return pynvml


def probe_nvml(load: Callable[[], Any] = _load_pynvml) -> NvmlInfo:
    """Query the driver. ``load`` returns the pynvml module (tests pass a fake)."""
    try:
        nvml = load()
    except ImportError as exc:
        return NvmlInfo(
            available=False,
            error=f"nvidia-ml-py is not installed ({exc})",
            error_code="pynvml_missing",
        )
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as exc:
        return NvmlInfo(available=False, error=_text(exc), error_code=_code_name(nvml, exc))
    except OSError as exc:  # some pynvml releases let the loader's OSError through
        return NvmlInfo(available=False, error=str(exc), error_code="library_not_found")
    try:
        errors: dict[str, str] = {}
        driver = _call(nvml, errors, "driver_version", nvml.nvmlSystemGetDriverVersion)
        cuda = _call(nvml, errors, "cuda_driver_version", nvml.nvmlSystemGetCudaDriverVersion)
        nvml_version = _call(nvml, errors, "nvml_version", nvml.nvmlSystemGetNVMLVersion)
        count = _call(nvml, errors, "device_count", nvml.nvmlDeviceGetCount)
        gpus = tuple(_gpu(nvml, index) for index in range(count or 0))
        error = None
        if count is None:
            error = f"the driver answered but could not count GPUs: {errors['device_count']}"
        return NvmlInfo(
            available=True,
            error=error,
            driver_version=_str(driver),
            cuda_driver_version=_cuda_version(cuda),
            nvml_version=_str(nvml_version),
            gpus=gpus,
        )
    finally:
        with contextlib.suppress(nvml.NVMLError):
            nvml.nvmlShutdown()


def _gpu(nvml: Any, index: int) -> NvmlGpu:
    errors: dict[str, str] = {}
    handle = _call(nvml, errors, "handle", lambda: nvml.nvmlDeviceGetHandleByIndex(index))
    if handle is None:
        return NvmlGpu(index, None, None, None, None, None, None, (), errors)
    name = _call(nvml, errors, "name", lambda: nvml.nvmlDeviceGetName(handle))
    uuid = _call(nvml, errors, "uuid", lambda: nvml.nvmlDeviceGetUUID(handle))
    pci = _call(nvml, errors, "pci_bus_id", lambda: nvml.nvmlDeviceGetPciInfo(handle))
    cc = _call(
        nvml, errors, "compute_capability", lambda: nvml.nvmlDeviceGetCudaComputeCapability(handle)
    )
    memory, reserved = _memory(nvml, handle, errors)
    mig = _mig_mode(nvml, handle, errors)
    processes: list[GpuProcess] = []
    for kind, getter in (
        ("compute", "nvmlDeviceGetComputeRunningProcesses"),
        ("graphics", "nvmlDeviceGetGraphicsRunningProcesses"),
    ):
        function = getattr(nvml, getter, None)
        if function is None:
            errors[f"{kind}_processes"] = f"{getter} is not available in this nvidia-ml-py"
            continue
        found = _call(nvml, errors, f"{kind}_processes", functools.partial(function, handle))
        for proc in found or ():
            used = getattr(proc, "usedGpuMemory", None)
            processes.append(GpuProcess(int(proc.pid), kind, int(used) if used else None))
    return NvmlGpu(
        index=index,
        name=_str(name),
        uuid=_str(uuid),
        pci_bus_id=_str(getattr(pci, "busId", None)) if pci is not None else None,
        compute_capability=f"{cc[0]}.{cc[1]}" if cc is not None else None,
        memory_total_bytes=int(memory.total) if memory is not None else None,
        memory_used_bytes=int(memory.used) if memory is not None else None,
        processes=tuple(processes),
        errors=errors,
        memory_reserved_bytes=reserved,
        mig_mode=mig,
    )


def _memory(nvml: Any, handle: Any, errors: dict[str, str]) -> tuple[Any, int | None]:
    """NVML's memory info and the driver's reserve. The v2 call keeps the reserve apart, as
    nvidia-smi does ("Used 0 MiB", "Reserved 616 MiB" on an idle H200, where the v1 call said
    615.1 MiB used); the v1 call is all an older driver or nvidia-ml-py has."""
    version = getattr(nvml, "nvmlMemory_v2", None)
    if version is not None:
        try:
            memory = nvml.nvmlDeviceGetMemoryInfo(handle, version=version)
            return memory, int(memory.reserved)
        except (nvml.NVMLError, AttributeError, TypeError):
            pass  # NVML_ERROR_FUNCTION_NOT_FOUND on an old driver: the v1 call below
    return _call(nvml, errors, "memory", lambda: nvml.nvmlDeviceGetMemoryInfo(handle)), None


def _mig_mode(nvml: Any, handle: Any, errors: dict[str, str]) -> str | None:
    """The current MIG mode; None without an error where the GPU has no MIG."""
    try:
        current, _pending = nvml.nvmlDeviceGetMigMode(handle)
    except nvml.NVMLError as exc:
        # a GPU without MIG says Not Supported; a driver older than MIG has no such function
        quiet = ("NVML_ERROR_NOT_SUPPORTED", "NVML_ERROR_FUNCTION_NOT_FOUND")
        if getattr(exc, "value", None) not in {getattr(nvml, name, None) for name in quiet}:
            errors["mig_mode"] = _text(exc)
        return None
    except AttributeError:  # an nvidia-ml-py older than MIG
        return None
    enabled = getattr(nvml, "NVML_DEVICE_MIG_ENABLE", 1)
    return "enabled" if current == enabled else "disabled"


def _call(nvml: Any, errors: dict[str, str], field: str, function: Callable[[], T]) -> T | None:
    try:
        return function()
    except nvml.NVMLError as exc:
        errors[field] = _text(exc)
    except AttributeError as exc:  # an old nvidia-ml-py without this function
        errors[field] = f"not available in this nvidia-ml-py: {exc}"
    return None


def _str(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):  # nvidia-ml-py < 11.515 returns bytes
        return value.decode("utf-8", errors="replace")
    return str(value)


def _cuda_version(value: object) -> str | None:
    # nvmlSystemGetCudaDriverVersion: 1000 * major + 10 * minor (12040 -> "12.4")
    if not isinstance(value, int) or value <= 0:
        return None
    return f"{value // 1000}.{value % 1000 // 10}"


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # pynvml's __str__ itself calls NVML and can fail
        return type(exc).__name__


def _code_name(nvml: Any, exc: BaseException) -> str:
    """NVML's error constant as a stable snake_case name (NVML_ERROR_DRIVER_NOT_LOADED -> driver_not_loaded)."""
    value = getattr(exc, "value", None)
    for attribute in dir(nvml):
        if attribute.startswith("NVML_ERROR_") and getattr(nvml, attribute) == value:
            return attribute.removeprefix("NVML_ERROR_").lower()
    return "unknown"
