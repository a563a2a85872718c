"""The NVIDIA driver: present, answering, new enough for TensorFlow's CUDA."""

from __future__ import annotations

from tf_gpucheck.checks import facts, logscan, remedies
from tf_gpucheck.checks.findings import Finding, fail, info, ok, skip, warn
from tf_gpucheck.checks.registry import check
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import Snapshot

# --- the driver ----------------------------------------------------------------------------


@check("nvidia_driver", "NVIDIA driver is present and answers", gpu=True)
def nvidia_driver(snapshot: Snapshot, matrix: Matrix) -> Finding:
    nvml = snapshot.nvml
    if snapshot.system.os == "Darwin":
        return skip("nvidia_driver", "no NVIDIA driver exists for macOS")
    if nvml.available:
        if not nvml.gpus:
            return fail(
                "nvidia_driver",
                "no_nvidia_gpu",
                f"driver {nvml.driver_version} is loaded but reports no GPU",
                nvml.error or "",
                remedies.remedy_for("no_nvidia_gpu", snapshot, matrix),
            )
        names = ", ".join(sorted({g.name or "?" for g in nvml.gpus}))
        return ok(
            "nvidia_driver",
            f"driver {nvml.driver_version} (CUDA {nvml.cuda_driver_version}), "
            f"{len(nvml.gpus)} GPU{'s' if len(nvml.gpus) != 1 else ''}: {names}",
        )
    cpu_note = "TensorFlow will run on the CPU."
    seen = facts.tf_gpus(snapshot)
    others = [f for f in snapshot.frameworks.frameworks if f.gpu_usable]
    if seen or others or logscan.shows_working_driver(snapshot.tensorflow.log):
        # CUDA reached the GPU (TensorFlow, or PyTorch/JAX): the driver works, NVML did not answer
        how = (
            f"TensorFlow uses {len(seen)} GPU(s)"
            if seen
            else f"{facts.framework_label(others[0])} uses the GPU"
            if others
            else "TensorFlow's log shows a GPU"
        )
        return info(
            "nvidia_driver",
            f"NVML did not answer ({nvml.error_code or nvml.error}), but {how}: the driver works",
            f"NVML: {nvml.error}",
        )
    if nvml.error_code == "lib_rm_version_mismatch":
        return fail(
            "nvidia_driver",
            "nvml_driver_mismatch",
            "the NVIDIA driver's library and kernel module have different versions: " + cpu_note,
            f"NVML: {nvml.error}. The driver was upgraded but the old kernel module is still loaded.",
            remedies.remedy_for("nvml_driver_mismatch", snapshot, matrix),
        )
    if nvml.error_code in ("library_not_found", "driver_not_loaded") or nvml.error_code is None:
        what = (
            "no NVIDIA driver: NVML library not found"
            if nvml.error_code == "library_not_found"
            else "NVIDIA driver not loaded"
        )
        fix = remedies.remedy_for("no_nvidia_driver", snapshot, matrix)
        return fail(
            "nvidia_driver", "no_nvidia_driver", f"{what}; {cpu_note}", f"NVML: {nvml.error}", fix
        )
    return fail(
        "nvidia_driver",
        "nvml_error",
        f"the NVIDIA driver did not answer ({nvml.error_code}): {cpu_note}",
        f"NVML: {nvml.error}",
        "nvidia-smi  # shows the same error with the driver's own words",
    )


@check("driver_version", "Driver is new enough for TensorFlow's CUDA", gpu=True)
def driver_version(snapshot: Snapshot, matrix: Matrix) -> Finding:
    nvml = snapshot.nvml
    cuda = facts.build_cuda(snapshot, matrix)
    if not nvml.available or not nvml.driver_version:
        return skip("driver_version", "no driver to compare")
    if cuda is None or facts.is_cuda_build(snapshot) is False:
        return skip("driver_version", "TensorFlow's CUDA version is unknown")
    toolkit, floor = facts.driver_floor(snapshot, matrix, cuda)
    driver = nvml.driver_version
    details = f"Driver {driver} supports CUDA up to {nvml.cuda_driver_version}; TensorFlow was built with CUDA {cuda}."
    if toolkit and facts.driver_supports(driver, toolkit):
        return ok(
            "driver_version", f"driver {driver} >= {toolkit}, the minimum for CUDA {cuda}", details
        )
    upgrade = f"upgrade the NVIDIA driver to {toolkit or floor} or newer"
    if floor and facts.driver_supports(driver, floor):
        return warn(
            "driver_version",
            "driver_too_old",
            f"driver {driver} is older than CUDA {cuda}'s {toolkit} and relies on minor-version compatibility",
            details
            + " Minor-version compatibility runs the CUDA libraries but not PTX JIT compilation: "
            "GPUs without binary kernels in this build, and XLA, can fail.",
            upgrade,
        )
    if toolkit is None and floor is None:
        return info(
            "driver_version", f"gpucheck's table has no driver minimum for CUDA {cuda}", details
        )
    return fail(
        "driver_version",
        "driver_too_old",
        f"driver {driver} is too old for CUDA {cuda}: needs {toolkit or floor}"
        + (
            f" ({floor} at least, through minor-version compatibility)" if toolkit and floor else ""
        ),
        details,
        upgrade,
    )
