"""Where it runs and the NVIDIA driver: a container, pod, job or notebook that was given the GPU;
the driver present, answering, new enough for TensorFlow's CUDA."""

from __future__ import annotations

import re

from tf_gpucheck import factwords
from tf_gpucheck.checks import facts, remedies
from tf_gpucheck.checks.findings import Finding, fail, info, observation, ok, skip, warn
from tf_gpucheck.checks.layers.platform import minor_version
from tf_gpucheck.checks.registry import check
from tf_gpucheck.matrix import Matrix, driver_supports
from tf_gpucheck.reading import logscan
from tf_gpucheck.snapshot import Snapshot

# --- where it runs -------------------------------------------------------------------------

_CAPABILITIES_WITH_LIBCUDA = ("compute", "all")


def _required_cuda(require: str) -> str | None:
    """``cuda>=12.2`` out of ``NVIDIA_REQUIRE_CUDA`` (``cuda>=12.2 brand=tesla,driver>=470``)."""
    match = re.search(r"cuda\s*>=\s*(\d+\.\d+)", require)
    return match.group(1) if match else None


@check("place", "Where this runs (container, pod, job, notebook, WSL2) gives it the GPU", gpu=True)
def place(snapshot: Snapshot, matrix: Matrix) -> Finding:
    here = snapshot.place
    if here is None:
        return skip("place", "not recorded (a snapshot before schema 3)")
    where = factwords.place_words(here) or ("WSL2" if snapshot.system.is_wsl else "")
    runtime = here.nvidia
    nodes = runtime.device_nodes if runtime else ()
    nvml = snapshot.nvml
    driver_gpus = bool(nvml.available and nvml.gpus)
    if runtime and runtime.driver_capabilities is not None and here.container:
        capabilities = {c.strip() for c in runtime.driver_capabilities.split(",")}
        if not capabilities & set(_CAPABILITIES_WITH_LIBCUDA):
            return fail(
                "place",
                "container_capabilities_missing",
                f"NVIDIA_DRIVER_CAPABILITIES={runtime.driver_capabilities} has no `compute`: the "
                "NVIDIA runtime mounts no libcuda, so TensorFlow finds no GPU (nvidia-smi may "
                "still work)",
                f"in {where}",
                remedies.remedy_for("container_capabilities_missing", snapshot, matrix),
            )
    if runtime and runtime.require_cuda and nvml.cuda_driver_version:
        wanted = _required_cuda(runtime.require_cuda)
        if wanted and minor_version(nvml.cuda_driver_version) < minor_version(wanted):
            return fail(
                "place",
                "driver_too_old",
                f"the image needs CUDA {wanted} (NVIDIA_REQUIRE_CUDA) but the host driver "
                f"{nvml.driver_version} supports CUDA {nvml.cuda_driver_version}",
                f"NVIDIA_REQUIRE_CUDA={runtime.require_cuda}",
                f"upgrade the host's NVIDIA driver to one for CUDA {wanted}, or use an image for "
                f"CUDA {nvml.cuda_driver_version} or older",
            )
    if driver_gpus:
        return ok("place", f"{where or 'this machine'}: the driver lists {len(nvml.gpus)} GPU(s)")
    details = "markers: " + (", ".join(here.markers) or "none")
    if here.notebook in ("colab", "kaggle"):
        return fail(
            "place",
            "notebook_no_accelerator",
            f"a {here.notebook.capitalize()} runtime without a GPU accelerator",
            details,
            remedies.remedy_for("notebook_no_accelerator", snapshot, matrix),
        )
    if here.slurm_job and not here.slurm_gpus:
        return fail(
            "place",
            "slurm_no_gpu",
            f"SLURM job {here.slurm_job} was allocated no GPU (no SLURM_JOB_GPUS, "
            "SLURM_STEP_GPUS or SLURM_GPUS_ON_NODE)",
            details,
            remedies.remedy_for("slurm_no_gpu", snapshot, matrix),
        )
    if here.kubernetes:
        return fail(
            "place",
            "pod_no_gpu",
            "a Kubernetes pod without a GPU: it has no /dev/nvidia* device",
            details,
            remedies.remedy_for("pod_no_gpu", snapshot, matrix),
        )
    if here.container:
        hidden = runtime is not None and runtime.visible_devices in ("void", "none", "")
        devices = [n for n in nodes if n.startswith("/dev/nvidia")]
        if hidden and runtime is not None:
            why = f"NVIDIA_VISIBLE_DEVICES={runtime.visible_devices!r} hides every GPU"
        elif not devices:
            why = "it has no /dev/nvidia* device"
        else:
            why = "it has /dev/nvidia* devices but not the driver's libraries"
        # Observed inside: the devices and libraries the container has. Whether the host has an
        # NVIDIA GPU cannot be seen from here, so the fix is conditional on it.
        return fail(
            "place",
            "container_no_gpu",
            f"{where} cannot reach a GPU: {why} (whether the host has one cannot be seen "
            "from inside)",
            details,
            remedies.remedy_for("container_no_gpu", snapshot, matrix),
            observed=(observation("device_nodes", pattern="/dev/nvidia*", found=list(devices)),),
        )
    if snapshot.system.is_wsl:
        outside = [
            lib
            for lib in (runtime.driver_libraries if runtime else ())
            if "libcuda" in lib and not lib.startswith("/usr/lib/wsl/")
        ]
        if outside or "/dev/dxg" not in nodes:
            why = (
                f"a Linux driver's {outside[0]} is installed inside WSL and hides the Windows one"
                if outside
                else "no /dev/dxg: WSL1, or a Windows driver without WSL2 GPU support"
            )
            return fail(
                "place",
                "wsl_driver_problem",
                f"WSL2 without the Windows GPU: {why}",
                details,
                remedies.remedy_for("wsl_driver_problem", snapshot, matrix),
            )
    if where:
        return info("place", f"runs in {where}", details)
    return ok("place", "not in a container, pod, job or notebook runtime")


# --- the driver ----------------------------------------------------------------------------


@check("nvidia_driver", "NVIDIA driver is present and answers", gpu=True)
def nvidia_driver(snapshot: Snapshot, matrix: Matrix) -> Finding:
    nvml = snapshot.nvml
    if snapshot.system.os == "Darwin":
        return skip("nvidia_driver", "no NVIDIA driver exists for macOS")
    if nvml.available:
        if not nvml.gpus and facts.stated_only(snapshot):
            return skip("nvidia_driver", f"driver {nvml.driver_version}; the text lists no GPU")
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
    if facts.stated_only(snapshot):
        return skip("nvidia_driver", "the text does not state the driver")
    cpu_note = "TensorFlow will run on the CPU."
    seen = facts.tf_gpus(snapshot)
    others = [f for f in snapshot.frameworks.frameworks if f.gpu_usable]
    if seen or others or logscan.shows_working_driver(snapshot.tensorflow.log):
        # CUDA reached the GPU (TensorFlow, or PyTorch/JAX): the driver works, NVML did not answer
        how = (
            f"TensorFlow uses {len(seen)} GPU(s)"
            if seen
            else f"{factwords.framework_label(others[0])} uses the GPU"
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
        inside = factwords.place_words(snapshot.place) if snapshot.place is not None else ""
        here = f" in {inside}" if inside and snapshot.place and snapshot.place.container else ""
        what = (
            f"no NVIDIA driver{here}: its NVML library (libnvidia-ml.so.1) was not found"
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
    if toolkit and driver_supports(driver, toolkit):
        return ok(
            "driver_version", f"driver {driver} >= {toolkit}, the minimum for CUDA {cuda}", details
        )
    upgrade = f"upgrade the NVIDIA driver to {toolkit or floor} or newer"
    if floor and driver_supports(driver, floor):
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
