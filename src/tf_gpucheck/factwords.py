"""Plain words for the facts a snapshot holds, shared by the checks and the renderers (a light
module: ``detect`` shows them without loading the checks)."""

from __future__ import annotations

from tf_gpucheck.snapshot import FrameworkInfo, NvmlInfo, PlaceInfo

NVML_PLAIN_WORDS = {
    "library_not_found": "no NVIDIA driver: NVML library not found",
    "driver_not_loaded": "NVIDIA driver not loaded: the kernel module is not running",
    "lib_rm_version_mismatch": "NVIDIA driver/library version mismatch: reboot or reload the kernel module",
    "no_permission": "no permission to talk to the NVIDIA driver",
    "pynvml_missing": "nvidia-ml-py is not installed, the NVIDIA driver was not queried",
}


def nvml_problem(nvml: NvmlInfo) -> str:
    """One plain line for an NVML that did not answer."""
    words = NVML_PLAIN_WORDS.get(nvml.error_code or "")
    if words:
        return words
    return f"the NVIDIA driver did not answer: {nvml.error}"


FRAMEWORK_NAMES = {"torch": "PyTorch", "jax": "JAX", "cupy": "CuPy"}


def framework_label(framework: FrameworkInfo) -> str:
    """ "PyTorch 2.13.0 (CUDA 12.4)", "JAX 0.4.30 (CPU-only build)", "CuPy 13.3.0"."""
    name = FRAMEWORK_NAMES.get(framework.name, framework.name)
    version = (framework.version or "").split("+")[0]  # 2.13.0+cu124: the CUDA is said apart
    label = f"{name} {version}".strip()
    if framework.cuda_version:
        return f"{label} (CUDA {framework.cuda_version})"
    if framework.built_with_cuda is False:
        return f"{label} (CPU-only build)"
    return label


def place_words(place: PlaceInfo) -> str:
    """ "a podman container", "a Kubernetes pod", "SLURM job 123", "Colab"; "" for none."""
    if place.notebook == "colab":
        return "Colab"
    if place.notebook == "kaggle":
        return "Kaggle"
    if place.kubernetes:
        return "a Kubernetes pod"
    if place.slurm_job:
        return f"SLURM job {place.slurm_job}"
    if place.container:
        return f"a {place.container} container"
    if place.notebook == "jupyter":
        return "a Jupyter kernel"
    return ""
