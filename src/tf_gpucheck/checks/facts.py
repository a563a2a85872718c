"""Facts derived from a snapshot and the matrix, shared by the checks (pure functions)."""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

from tf_gpucheck._numbers import is_whole_number
from tf_gpucheck.factwords import framework_label, nvml_problem
from tf_gpucheck.installer.commands import (
    CPU_ONLY_DISTRIBUTIONS,
    PLUGIN_DISTRIBUTIONS,
    main_distributions,
)
from tf_gpucheck.matrix import Matrix, TfRelease
from tf_gpucheck.matrix import driver_floor as matrix_driver_floor
from tf_gpucheck.reading import logscan
from tf_gpucheck.snapshot import FrameworkInfo, NvmlGpu, PlaceInfo, Snapshot


def tf_version(snapshot: Snapshot) -> str | None:
    if snapshot.tensorflow.version:
        return snapshot.tensorflow.version
    main = main_distributions(snapshot)
    return main[0].version if main else None


def release(snapshot: Snapshot, matrix: Matrix) -> TfRelease | None:
    version = tf_version(snapshot)
    return matrix.release(version) if version else None


def build_value(snapshot: Snapshot, key: str) -> object:
    """TensorFlow's build information as TensorFlow reported it, else as its own build_info.py
    file states it (read, never imported)."""
    tensorflow = snapshot.tensorflow
    return (tensorflow.build_info or tensorflow.build_file or {}).get(key)


def is_cuda_build(snapshot: Snapshot) -> bool | None:
    """Whether the installed TensorFlow is a CUDA build: as TensorFlow reported it, else as its
    distribution implies (see :func:`build_inferred`), else ``None`` (unknown)."""
    reported = reported_cuda_build(snapshot)
    if reported is not None:
        return reported
    names = {d.name for d in snapshot.packages.tensorflow}
    if names and names <= CPU_ONLY_DISTRIBUTIONS | PLUGIN_DISTRIBUTIONS:
        return False
    if names & {"tensorflow-gpu", "tf-nightly-gpu"}:
        return True  # the GPU build itself, on every platform it was published for
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
        return and_cuda_major(snapshot, "nvidia-cuda-runtime-cu")
    if snapshot.system.os == "Windows" and row.windows_native_cuda:
        return row.windows_native_cuda
    return row.cuda


def and_cuda_major(snapshot: Snapshot, wheel: str) -> str | None:
    """The major version of CUDA (``nvidia-cuda-runtime-cu``: the ``cu12`` of its name) or of
    cuDNN (``nvidia-cudnn-cu``: the major its bounds admit) that TensorFlow's own ``and-cuda``
    extra declares, for a build whose build information names none and that no table lists (a
    nightly: ``nvidia-cuda-runtime-cu12<13.0,>=12.5.82``, ``nvidia-cudnn-cu12<10.0,>=9.10.2.21``).
    ``None``: it declares no such wheel, or bounds that admit more than one major."""
    from tf_gpucheck.checks.layers.requirements import parse_requirement

    for line in snapshot.packages.and_cuda_requirements:
        requirement = parse_requirement(line)
        if requirement is None or not requirement.name.startswith(wheel):
            continue
        suffix = requirement.name[len(wheel) :]
        if wheel.endswith("runtime-cu"):
            return suffix if suffix.isdigit() else None
        floors = {
            clause.version.split(".")[0]
            for clause in requirement.specifier
            if clause.operator in ("==", ">=", "~=", "===")
        }
        major = floors.pop() if len(floors) == 1 else None
        if major is None or not major.isdigit():
            return None
        admits_next = requirement.specifier.contains(f"{int(major) + 1}.0", prereleases=True)
        return None if admits_next else major
    return None


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
    return table if row else and_cuda_major(snapshot, "nvidia-cudnn-cu")


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
    return matrix_driver_floor(matrix, cuda, windows=snapshot.system.os == "Windows")


def no_gpu_reason(snapshot: Snapshot) -> str | None:
    """Why no GPU is visible to CUDA here, in one line; None when one is."""
    if visible_gpus(snapshot)[0]:
        return None
    if not snapshot.nvml.available:
        return nvml_problem(snapshot.nvml)
    return (
        "CUDA_VISIBLE_DEVICES hides every GPU" if snapshot.nvml.gpus else "the driver lists no GPU"
    )


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


def stated_only(snapshot: Snapshot) -> bool:
    """A snapshot of only what a text states (``explain``, ``doctor --log`` measured on reports):
    what the text does not say is unknown, never absent."""
    return snapshot.target.chosen_by == "stated"
