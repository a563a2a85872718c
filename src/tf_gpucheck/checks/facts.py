"""Facts derived from a snapshot and the matrix, shared by the checks (pure functions)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from tf_gpucheck._numbers import is_whole_number
from tf_gpucheck.checks import logscan
from tf_gpucheck.matrix import Matrix, TfRelease, version_at_least
from tf_gpucheck.snapshot import Distribution, FrameworkInfo, NvmlGpu, NvmlInfo, PlaceInfo, Snapshot

PLUGIN_DISTRIBUTIONS = frozenset({"tensorflow-metal", "tensorflow-directml-plugin"})
"""Distributions that plug into another TensorFlow instead of replacing it."""
CPU_ONLY_DISTRIBUTIONS = frozenset(
    {"tensorflow-cpu", "tf-nightly-cpu", "tensorflow-cpu-aws", "intel-tensorflow"}
)


def tf_version(snapshot: Snapshot) -> str | None:
    if snapshot.tensorflow.version:
        return snapshot.tensorflow.version
    main = main_distributions(snapshot)
    return main[0].version if main else None


def installed_requirement(snapshot: Snapshot) -> str:
    """ "tensorflow-cpu==2.21.0": the installed TensorFlow distribution, to reinstall exactly it
    (never a second distribution beside it)."""
    main = main_distributions(snapshot)
    if main:
        return f'"{main[0].name}=={main[0].version}"'
    version = snapshot.tensorflow.version
    return f'"tensorflow=={version}"' if version else "tensorflow"


def main_distributions(snapshot: Snapshot) -> list[Distribution]:
    return [d for d in snapshot.packages.tensorflow if d.name not in PLUGIN_DISTRIBUTIONS]


def release(snapshot: Snapshot, matrix: Matrix) -> TfRelease | None:
    version = tf_version(snapshot)
    return matrix.release(version) if version else None


def build_value(snapshot: Snapshot, key: str) -> object:
    return (snapshot.tensorflow.build_info or {}).get(key)


def is_cuda_build(snapshot: Snapshot) -> bool | None:
    """Whether the installed TensorFlow is a CUDA build: as TensorFlow reported it, else as its
    distribution implies (see :func:`build_inferred`), else ``None`` (unknown)."""
    reported = reported_cuda_build(snapshot)
    if reported is not None:
        return reported
    names = {d.name for d in snapshot.packages.tensorflow}
    if names and names <= CPU_ONLY_DISTRIBUTIONS | PLUGIN_DISTRIBUTIONS:
        return False
    return True if build_inferred(snapshot) else None


def reported_cuda_build(snapshot: Snapshot) -> bool | None:
    value = build_value(snapshot, "is_cuda_build")
    if isinstance(value, bool):
        return value
    return snapshot.tensorflow.is_built_with_cuda


CUDA_WHEEL_DISTRIBUTIONS = frozenset(
    {"tensorflow", "tensorflow-gpu", "tf-nightly", "tf-nightly-gpu"}
)


def build_inferred(snapshot: Snapshot) -> str | None:
    """When TensorFlow did not report its build (it did not import, or was not imported), the
    official wheels still tell: ``tensorflow`` >= 2.1 (and ``tensorflow-gpu``) for Linux x86_64
    is a CUDA build, and on native Windows ``tensorflow`` 2.1 to 2.10 (tensorflow.org/install/pip:
    "TensorFlow 2.10 was the last TensorFlow release that supported GPU on native Windows").
    Returns the distribution that implies it."""
    if reported_cuda_build(snapshot) is not None:
        return None
    system = snapshot.system
    if system.os not in ("Linux", "Windows") or system.arch not in ("x86_64", "AMD64"):
        return None
    for dist in main_distributions(snapshot):
        if dist.name not in CUDA_WHEEL_DISTRIBUTIONS:
            continue
        try:
            version = Version(dist.version)
        except InvalidVersion:
            continue
        minor = (version.major, version.minor)
        if dist.name.endswith("-gpu") or (
            minor >= (2, 1) and (system.os == "Linux" or minor <= (2, 10))
        ):
            return f"{dist.name} {dist.version}"
    return None


def windows_build_version(value: str) -> str | None:
    """Native-Windows wheels (2.3-2.10) write the DLL suffix into build_info: cuda_version
    "64_110" (cudart64_110.dll, CUDA 11.0+; "64_101" is CUDA 10.1) and cudnn_version "64_8"
    (cudnn64_8.dll). The number after "64_" is the major and minor run together."""
    match = re.fullmatch(r"64_(\d+)", value.strip())
    if not match:
        return None
    digits = match.group(1)
    if len(digits) == 1:
        return digits  # cuDNN: the major only
    return f"{int(digits[:-1])}.{digits[-1]}"


def _build_version(value: object) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    if is_whole_number(value[0]) and not value.startswith("64_"):
        return value
    return windows_build_version(value)


def not_checked(snapshot: Snapshot) -> tuple[str, ...]:
    """What a report could not judge because TensorFlow was not imported (``--no-tf``)."""
    tf = snapshot.tensorflow
    if tf.probed or not main_distributions(snapshot):
        return ()
    return (
        "TensorFlow was not imported (--no-tf), so its import, the devices it creates (tf_gpus), "
        "a computation on each GPU (gpu_matmul) and its log (tf_log) were not checked; its CUDA "
        "and cuDNN are those compat_matrix.yaml lists for its version, and GPU requirements "
        "count the GPUs visible to CUDA.",
    )


def build_cuda(snapshot: Snapshot, matrix: Matrix) -> str | None:
    """The CUDA version TensorFlow was built with ("12.5.1" from build_info, else the matrix)."""
    value = _build_version(build_value(snapshot, "cuda_version"))
    row = release(snapshot, matrix)
    if value is not None:
        if row is not None:  # "11" (Windows DLL major) -> the table's "11.2" when they agree
            for table in (row.windows_native_cuda, row.cuda):
                if table and table.split(".")[0] == value.split(".")[0] and len(table) > len(value):
                    return table
        return value
    if row is None:
        return None
    if snapshot.system.os == "Windows" and row.windows_native_cuda:
        return row.windows_native_cuda
    return row.cuda


def build_cudnn(snapshot: Snapshot, matrix: Matrix) -> str | None:
    """The cuDNN TensorFlow was built with: the matrix's "8.9" when it agrees with build_info's "8"."""
    value = _build_version(build_value(snapshot, "cudnn_version"))
    row = release(snapshot, matrix)
    table = (
        (
            row.windows_native_cudnn
            if snapshot.system.os == "Windows" and row.windows_native_cudnn
            else row.cudnn
        )
        if row
        else None
    )
    if value:
        if table and table.split(".")[0] == value.split(".")[0] and len(table) > len(value):
            return table
        return value
    return table


def compute_capabilities(snapshot: Snapshot, matrix: Matrix) -> tuple[list[str], str] | None:
    """The sm_XY / compute_XY list of the installed build, and where it came from."""
    value = build_value(snapshot, "cuda_compute_capabilities")
    if isinstance(value, list) and value:
        return [str(v) for v in value], "tf.sysconfig.get_build_info()"
    row = release(snapshot, matrix)
    if row and row.compute_capabilities:
        caps = row.compute_capabilities
        return [*caps.sass, *caps.ptx], f"compat_matrix.yaml (TensorFlow {row.version})"
    return None


@dataclass(frozen=True)
class CapabilityFit:
    kind: str
    """native, ptx, too_old or unsupported."""
    via: str | None
    """The sm_XY or compute_XY that serves the GPU."""


def _cc_number(text: str) -> int:
    digits = re.sub(r"\D", "", text)
    return int(digits) if digits else 0


def fit(capability: str, caps: list[str]) -> CapabilityFit:
    """How a build serves a GPU of ``capability`` ("8.6"): binary kernels run on the same major
    and an equal or higher minor; PTX is JIT-compiled for any equal or newer GPU."""
    major, _, minor = capability.partition(".")
    gpu = int(major) * 10 + int(minor or 0)
    sass = [c for c in caps if c.startswith("sm_")]
    ptx = [c for c in caps if c.startswith("compute_")]
    native = [c for c in sass if _cc_number(c) // 10 == gpu // 10 and _cc_number(c) <= gpu]
    if native:
        return CapabilityFit("native", max(native, key=_cc_number))
    jit = [c for c in ptx if _cc_number(c) <= gpu]
    if jit:
        return CapabilityFit("ptx", max(jit, key=_cc_number))
    lowest = min((_cc_number(c) for c in caps), default=0)
    if gpu < lowest:
        return CapabilityFit("too_old", None)
    return CapabilityFit("unsupported", None)


def visible_gpus(snapshot: Snapshot) -> tuple[list[NvmlGpu], str | None]:
    """The NVML GPUs that CUDA_VISIBLE_DEVICES leaves visible to CUDA, and the value itself.

    CUDA reads the list up to the first entry that names no GPU: "-1", "" or "none" hide them all.
    Entries are indices or UUID prefixes ("GPU-3f9a")."""
    gpus = list(snapshot.nvml.gpus)
    value = snapshot.system.env.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return gpus, None
    visible: list[NvmlGpu] = []
    for entry in (part.strip() for part in value.split(",")):
        match = None
        if is_whole_number(entry):
            match = next((g for g in gpus if g.index == int(entry)), None)
        elif entry.startswith(("GPU-", "MIG-")):
            match = next((g for g in gpus if g.uuid and g.uuid.startswith(entry)), None)
        if match is None or match in visible:
            break
        visible.append(match)
    return visible, value


def tf_gpus(snapshot: Snapshot) -> list[str]:
    return [d.name for d in snapshot.tensorflow.physical_devices if d.device_type == "GPU"]


def gpu_usable(snapshot: Snapshot) -> bool:
    """TensorFlow created a GPU device and (when it ran) the tiny op on it succeeded."""
    gpu_ops = [op for op in snapshot.tensorflow.ops if "GPU" in op.device]
    if gpu_ops:
        return any(op.ok for op in gpu_ops)
    return bool(tf_gpus(snapshot))


def gpu_expected(snapshot: Snapshot) -> bool:
    """This machine has an NVIDIA GPU (the driver lists one, or another framework used one), so
    a line saying TensorFlow found none is a problem, not the expected state of a CPU machine."""
    if snapshot.nvml.gpus or tf_gpus(snapshot):
        return True
    if any(f.gpu_usable for f in snapshot.frameworks.frameworks):
        return True
    return logscan.shows_gpu(snapshot.tensorflow.log)


def driver_floor(snapshot: Snapshot, matrix: Matrix, cuda: str) -> tuple[str | None, str | None]:
    """(the toolkit's own minimum driver, the minor-version-compatibility floor) for this OS."""
    windows = snapshot.system.os == "Windows"
    row = matrix.cuda_release(cuda)
    compat = matrix.minor_compat(cuda)
    toolkit = (row.min_driver_windows if windows else row.min_driver_linux) if row else None
    floor = (compat.min_driver_windows if windows else compat.min_driver_linux) if compat else None
    return toolkit, floor


def driver_supports(driver: str, need: str | None) -> bool:
    return need is None or version_at_least(driver, need)


def install_command(row: TfRelease, snapshot: Snapshot, pip_needed: str | None = None) -> str:
    """The pip command that installs this release with its CUDA libraries where pip can; first
    an upgrade of pip where the target's is older than ``pip_needed`` (the oldest pip that sees
    the release's Linux wheel: Python 3.6's own pip 18.1 finds no manylinux2010 wheel)."""
    first = ""
    have = snapshot.target.pip_version
    if pip_needed and have and snapshot.system.os == "Linux":
        try:
            if Version(have) < Version(pip_needed):
                first = f'pip install --upgrade "{_newest_pip(snapshot.system.python_version)}" && '
        except InvalidVersion:
            pass
    return first + _install_command(row, snapshot)


# The last pip release for each Python pip dropped (pip's release notes: 21.0 dropped 2.7 and 3.5,
# 22.0 dropped 3.6, 24.1 dropped 3.7, 25.1 dropped 3.8). Named explicitly: an old pip reading an
# index without Requires-Python data would otherwise pick a pip that refuses to run.
_LAST_PIP = {
    (2, 7): "pip<21",
    (3, 5): "pip<21",
    (3, 6): "pip<22",
    (3, 7): "pip<24.1",
    (3, 8): "pip<25.1",
}


def _newest_pip(python: str | None) -> str:
    try:
        minor = Version(python or "").release[:2]
    except InvalidVersion:
        return "pip"
    return _LAST_PIP.get((minor[0], minor[1]) if len(minor) > 1 else (0, 0), "pip")


def _install_command(row: TfRelease, snapshot: Snapshot) -> str:
    series = f"{row.minor[0]}.{row.minor[1]}.*"
    # TensorFlow 2.0's GPU build was the separate tensorflow-gpu package (2.1 merged them).
    name = "tensorflow-gpu" if row.minor < (2, 1) else "tensorflow"
    if row.and_cuda and snapshot.system.os == "Linux":
        return f'pip install "{name}[and-cuda]=={series}"'
    if snapshot.system.os == "Windows":
        return (
            f'pip install "{name}=={series}"  # then CUDA {row.windows_native_cuda} '
            f"and cuDNN {row.windows_native_cudnn}"
        )
    return f'pip install "{name}=={series}"  # with CUDA {row.cuda} and cuDNN {row.cudnn}'


def isolated_tool_environment(prefix: str | None) -> bool:
    """gpucheck's own environment is an isolated tool install (pipx, uv tool), not a project's."""
    text = (prefix or "").replace("\\", "/")
    return "/pipx/venvs/" in text or "/uv/tools/" in text


# a `pip install`/`pip uninstall` wherever a fix says it, but not the one in `python -m pip`
_PIP = re.compile(r"(?<!-m )(?<![\w./\\%-])pip (install|uninstall)\b")


def rerun(snapshot: Snapshot, *args: str) -> str:
    """A gpucheck command for the same target (``--python`` kept where it chose it)."""
    from tf_gpucheck.target import rerun as command

    target = snapshot.target
    return command(
        target.python_executable, target.chosen_by, *args, windows=snapshot.system.os == "Windows"
    )


def with_target_pip(command: str, snapshot: Snapshot) -> str:
    """``command`` with every ``pip install``/``pip uninstall`` run by the installer the target
    really has: its own pip, or ``uv pip ... --python`` for an environment uv made without pip;
    and ``--user`` where TensorFlow lives in the user site (its CUDA wheels must be found next
    to it, through its RUNPATH ``$ORIGIN/../nvidia/...``)."""
    from tf_gpucheck.target import pip_command, shell_quote

    target = snapshot.target
    windows = snapshot.system.os == "Windows"
    user = any(d.location == "user_site" for d in main_distributions(snapshot))
    kernel = snapshot.kernel
    if kernel is not None and kernel.python == target.python_executable:
        # in a notebook, %pip runs pip with the kernel's own interpreter (IPython's magic)
        def magic(match: re.Match[str]) -> str:
            verb = match.group(1)
            return f"%pip {verb}" + (" --user" if user and verb == "install" else "")

        return _PIP.sub(magic, command)
    if target.installer == "uv" and target.python_executable:
        python = shell_quote(target.python_executable, windows=windows)

        def uv(match: re.Match[str]) -> str:
            return f"uv pip {match.group(1)} --python {python}"

        return _PIP_DASH_Y.sub(uv, command)
    pip = pip_command(target.python_executable, target.chosen_by, windows=windows)

    def run(match: re.Match[str]) -> str:
        verb = match.group(1)
        return f"{pip} {verb}" + (" --user" if user and verb == "install" else "")

    if pip == "pip" and not user:
        return command
    return _PIP.sub(run, command)


# uv's uninstall asks nothing: pip's -y has no place there
_PIP_DASH_Y = re.compile(r"(?<!-m )(?<![\w./\\%-])pip (install|uninstall)\b(?: -y\b)?")


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


def no_gpu_reason(snapshot: Snapshot) -> str | None:
    """Why no GPU is visible to CUDA here, in one line; None when one is."""
    if visible_gpus(snapshot)[0]:
        return None
    if not snapshot.nvml.available:
        return nvml_problem(snapshot.nvml)
    return (
        "CUDA_VISIBLE_DEVICES hides every GPU" if snapshot.nvml.gpus else "the driver lists no GPU"
    )


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


def join_names(names: list[str]) -> str:
    """["a"] -> "a"; ["a", "b"] -> "a and b"; ["a", "b", "c"] -> "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def framework_evidence(framework: FrameworkInfo) -> str:
    """One line of what a framework saw, its error verbatim."""
    label = framework_label(framework)
    if framework.gpu_usable:
        return (
            f"{label}: {', '.join(framework.devices)}; a small product on the first GPU was exact"
        )
    if framework.built_with_cuda is False:
        return f"{label}: cannot use a GPU"
    if framework.error:
        return f"{label}: {framework.error}"
    if framework.gpu_usable is False:
        return f"{label}: lists no GPU"
    return f"{label}: did not say"


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


def place_name(place: PlaceInfo | None) -> str | None:
    """The place as the diagnosis names it (colab, kaggle, kubernetes, slurm, podman, docker for
    any other container, jupyter)."""
    if place is None:
        return None
    if place.notebook in ("colab", "kaggle"):
        return place.notebook
    if place.kubernetes:
        return "kubernetes"
    if place.slurm_job:
        return "slurm"
    if place.container:
        return "podman" if place.container == "podman" else "docker"
    return place.notebook
