"""The environment snapshot: every fact the probes collected, as plain frozen data.

The snapshot is the contract every command reads. ``gpucheck detect --json`` prints it, and
``gpucheck doctor --from FILE`` reads it back on another machine and reaches the same
diagnosis. Sizes carry their unit in the name (``memory_total_bytes``); ``None`` means "not
reported", and the reason sits next to it (``error``, ``errors``, ``load_error``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tf_gpucheck import installerfacts, libraryfacts
from tf_gpucheck._codec import DecodeError, from_data, to_data
from tf_gpucheck.errors import ExitCode, GpucheckError
from tf_gpucheck.installerfacts import *  # noqa: F403 - the installer's part, re-exported whole
from tf_gpucheck.installerfacts import InstallerInfo
from tf_gpucheck.libraryfacts import *  # noqa: F403 - the libraries' part, re-exported whole
from tf_gpucheck.libraryfacts import LibrariesInfo

__all__ = [  # the snapshot's whole contract; its installer and libraries parts are added below
    "ENV_VARS",
    "SCHEMA_VERSION",
    "Distribution",
    "FrameworkInfo",
    "FrameworksInfo",
    "GpuProcess",
    "ImportsInfo",
    "KernelInfo",
    "ModuleOrigin",
    "NodeInfo",
    "NvidiaRuntimeInfo",
    "NvmlGpu",
    "NvmlInfo",
    "PackagesInfo",
    "PlaceInfo",
    "RequirementInfo",
    "Snapshot",
    "SystemInfo",
    "TargetInfo",
    "TensorflowInfo",
    "TfConfigInfo",
    "TfDevice",
    "TfDeviceDetails",
    "TfOpResult",
    "load_snapshot",
]
__all__ += installerfacts.__all__
__all__ += libraryfacts.__all__

SCHEMA_VERSION = 5
"""Version of the snapshot's JSON shape; raised on any incompatible change.

2 added ``node`` (which machine), ``target`` (which Python environment, and why) and
``frameworks`` (what PyTorch, JAX or CuPy see). 3 added ``imports`` (how the user's own program,
in their folder with their variables, imports TensorFlow and Keras), ``place`` (container, pod,
SLURM job, notebook runtime, CI), ``kernel`` (the notebook kernel the Python API ran in),
``packages.requirements`` (what TensorFlow and Keras declare,
against what is installed) and each distribution's ``location``. Older snapshots still load:
their new sections say that the facts were not recorded."""

ENV_VARS: tuple[str, ...] = (
    "CUDA_VISIBLE_DEVICES",
    "LD_LIBRARY_PATH",
    "CUDA_HOME",
    "CUDA_PATH",
    "TF_FORCE_GPU_ALLOW_GROWTH",
    "TF_GPU_ALLOCATOR",
    "TF_CPP_MIN_LOG_LEVEL",
    "XLA_FLAGS",
    "TF_CONFIG",
    "TF_USE_LEGACY_KERAS",
)
"""Environment variables that change how TensorFlow finds and uses GPUs."""


@dataclass(frozen=True)
class TfConfigInfo:
    """What ``TF_CONFIG`` says about multi-worker training, as facts that survive ``--redact``.

    ``--redact`` masks the value itself (it lists the cluster's addresses); these facts keep what
    the ``tf_config`` check and ``gpucheck fleet`` need, and no address."""

    error: str | None = None
    """Why the value is not a JSON object ("not JSON: Expecting value at column 1"), else ``None``."""
    cluster: dict[str, int] = field(default_factory=dict)
    """Each job of the cluster spec and its number of tasks (``{"chief": 1, "worker": 3}``)."""
    cluster_problem: str | None = None
    """What is wrong with the ``cluster`` key's shape (missing, not a mapping of address lists)."""
    task_type: str | None = None
    task_index: int | None = None
    task_problem: str | None = None
    """What is wrong with the ``task`` key's shape (missing, a non-integer index)."""
    this_host_tasks: tuple[str, ...] | None = None
    """The tasks (``"worker:0"``) whose address names this host (its host name or one of its own
    IP addresses); ``None`` when that could not be told (no host name recorded)."""
    cluster_fingerprint: str | None = None
    """A hash of the cluster spec (keyed with ``--redact``): equal on nodes of one cluster."""


@dataclass(frozen=True)
class NodeInfo:
    """Which machine this is, as an operator of many nodes names it."""

    hostname: str | None
    """``socket.gethostname()``; ``None`` when not recorded. With ``--redact`` a pseudonym."""
    labels: dict[str, str] = field(default_factory=dict)
    """What the scheduler calls this node and job (SLURM, Kubernetes), from the environment."""
    pseudonym_key: str | None = None
    """With ``--redact``: the id of the key that made ``hostname`` (and the host-naming labels) a
    pseudonym; nodes redacted with the same key are comparable. ``None``: the real names."""
    tf_config: TfConfigInfo | None = None
    """``TF_CONFIG`` read as facts; ``None`` when it is not set (or was not recorded)."""


@dataclass(frozen=True)
class TargetInfo:
    """The Python environment being diagnosed, and why that one."""

    python_executable: str
    """The interpreter as given or found (``--python``, the active environment's ``bin/python``),
    not resolved through symlinks: venvs of one base Python share that base's binary."""
    chosen_by: str
    """``python_flag``, ``virtual_env`` (VIRTUAL_ENV), ``conda_env`` (CONDA_PREFIX), ``gpucheck``
    (gpucheck's own interpreter), or ``unknown`` (a snapshot that did not record it)."""
    prefix: str | None = None
    """``sys.prefix`` as the target reports it: the identity of the environment."""
    base_prefix: str | None = None
    """``sys.base_prefix``: the Python installation a virtual environment was made from."""
    base_executable: str | None = None
    """A virtual environment's base interpreter as the environment names it (``sys._base_executable``
    or its pyvenv.cfg), a file that exists; ``None``: not a venv, not named, or not recorded."""
    base_pip: bool | None = None
    """That base interpreter has pip (found on its site-packages, seen through
    ``--system-site-packages``, or its user site); ``None``: not asked."""
    base_externally_managed: bool | None = None
    """Its standard library has PEP 668's EXTERNALLY-MANAGED file: its pip refuses to install or
    uninstall without ``--break-system-packages``."""
    kind: str | None = None
    """``venv``, ``conda`` or ``system``."""
    user_site: str | None = None
    """The user site-packages (``pip install --user``) when the target reads it."""
    error: str | None = None
    """Why the interpreter could not be queried (too old, not Python, crashed), else ``None``."""
    installer: str | None = None
    """What installs packages into it: ``pip`` (it has pip), ``uv`` (uv made it and it has no
    pip: ``uv pip install --python ...``); ``None``: neither, or not recorded."""
    pip_version: str | None = None
    """Its pip's version (an old pip cannot see newer wheels' platform tags)."""
    makes_venvs: bool | None = None
    """``python -m venv`` with pip works with this interpreter (``venv`` and ``ensurepip`` are
    there; Debian ships ensurepip apart, in python3-venv). ``None``: not recorded."""


@dataclass(frozen=True)
class ModuleOrigin:
    """Where ``import NAME`` resolves: found on the path, never executed."""

    name: str
    """``tensorflow``, ``keras``, ``numpy``."""
    origin: str | None
    """The file or folder the user's own ``python``, run in their folder with their variables,
    would import; ``None``: not found."""
    where: str | None
    """What put it on the path: ``cwd`` (the user's folder), ``pythonpath``, ``user_site``,
    ``site`` (the environment's own), ``system_site``, ``stdlib``, ``other``."""
    clean_origin: str | None = None
    """What the environment alone imports: the user's folder and ``PYTHONPATH`` left out."""
    clean_where: str | None = None
    distribution: bool | None = None
    """An installed distribution provides ``origin`` (its metadata names it): a package from some
    site-packages. ``False``: nothing does, so it is a file or folder of the user's own."""
    path_entry: str | None = None
    """The ``sys.path`` entry it was found through (``None``: not found, or a finder answered)."""
    added_by: str | None = None
    """What put that entry there: the values of ``where``, or ``pth`` (a ``.pth`` file, named in
    ``pth``), or ``finder`` (a meta-path finder, such as an editable install's, answered)."""
    pth: str | None = None
    """The ``.pth`` file that added ``path_entry``."""
    in_target: bool | None = None
    """``origin`` lies under the target's prefix once links are resolved: the environment's own.
    ``None``: not recorded (schema < 4) or not found."""
    shadows: tuple[str, ...] = ()
    """Every file or folder of the user's own that ``import NAME`` finds ahead of the
    environment's package, in ``sys.path`` order (``origin`` is the first): each entry asked
    alone."""
    entry_environment: bool | None = None
    """``path_entry`` is an environment's own package folder (a ``site-packages``, or a venv's or
    conda environment's folder), not a folder of the user's such as ``pip install --target DIR``
    makes; ``None``: not recorded (an older snapshot), or not found."""
    owners: tuple[str, ...] | None = None
    """The installed distributions beside ``origin`` whose RECORD lists its file (or whose
    top_level.txt names it): ``keras-nightly`` for ``keras``; two where a later install wrote
    over the other's files. ``None``: not recorded (an older snapshot), or not found."""


@dataclass(frozen=True)
class ImportsInfo:
    """How the user's program imports TensorFlow and Keras: their folder, their variables."""

    cwd: str | None
    """The folder the user runs from (gpucheck's working directory, or ``--cwd``)."""
    cwd_on_path: bool | None = None
    """The user's ``python`` puts that folder first on sys.path (not with ``-I`` or
    ``PYTHONSAFEPATH``); ``None``: not recorded."""
    pythonpath: tuple[str, ...] = ()
    user_site_enabled: bool | None = None
    env: dict[str, str] = field(default_factory=dict)
    """The variables that change what ``import tensorflow`` / ``import keras`` do, as set
    (``KERAS_BACKEND``, ``TF_USE_LEGACY_KERAS``, ``KERAS_HOME``, ``PYTHONNOUSERSITE``,
    ``PYTHONPATH``)."""
    keras_config: str | None = None
    """The ``keras.json`` Keras reads (``$KERAS_HOME`` or ``~/.keras``), when it exists."""
    keras_config_backend: str | None = None
    """The ``backend`` it names."""
    modules: tuple[ModuleOrigin, ...] = ()
    error: str | None = None
    """Why this was not recorded (the target could not be queried), else ``None``."""


@dataclass(frozen=True)
class NvidiaRuntimeInfo:
    """What the NVIDIA container runtime (or the host) passed into this machine's view."""

    device_nodes: tuple[str, ...] = ()
    """``/dev/nvidia0``, ``/dev/nvidiactl``, ``/dev/nvidia-uvm``, ``/dev/dxg`` (WSL2), as present."""
    driver_libraries: tuple[str, ...] = ()
    """The driver's own libraries found (``libcuda.so.1``, ``libnvidia-ml.so.1``), full paths."""
    visible_devices: str | None = None
    """``NVIDIA_VISIBLE_DEVICES`` (``all``, ``0,1``, ``void``, ``none``), as set."""
    driver_capabilities: str | None = None
    """``NVIDIA_DRIVER_CAPABILITIES`` (``compute,utility``), as set."""
    require_cuda: str | None = None
    """``NVIDIA_REQUIRE_CUDA`` (``cuda>=12.2 brand=tesla,driver>=470``), as set."""


@dataclass(frozen=True)
class PlaceInfo:
    """Where this runs: a container, a Kubernetes pod, a SLURM job, a notebook runtime, CI."""

    container: str | None = None
    """``docker``, ``podman``, ``containerd`` (Kubernetes and others), ``cri-o``, ``lxc``,
    ``apptainer`` (Singularity), or ``None`` when no container marker was found."""
    markers: tuple[str, ...] = ()
    """The markers that told, each as read (``/.dockerenv``, ``KUBERNETES_SERVICE_HOST``, ...)."""
    kubernetes: bool = False
    slurm_job: str | None = None
    """``SLURM_JOB_ID`` inside a SLURM job."""
    slurm_gpus: str | None = None
    """What the job or step was given (``SLURM_STEP_GPUS``, ``SLURM_JOB_GPUS``,
    ``SLURM_GPUS_ON_NODE``), ``None`` when it was given none."""
    notebook: str | None = None
    """``colab``, ``kaggle``, ``jupyter`` (any other IPython kernel), else ``None``."""
    ci: str | None = None
    """``github_actions``, ``gitlab_ci``, ``ci`` (another system setting ``CI``), else ``None``."""
    nvidia: NvidiaRuntimeInfo | None = None


@dataclass(frozen=True)
class KernelInfo:
    """The notebook kernel gpucheck's Python API was called in (read in the kernel's own
    process: what ``!pip`` and ``!python`` would run, what TensorFlow it has already imported)."""

    python: str
    """``sys.executable`` of the kernel."""
    shell: str
    """The IPython shell class (``ZMQInteractiveShell`` for Jupyter, VS Code and Colab)."""
    path_pip: str | None = None
    """The ``pip`` a ``!pip install`` finds on PATH, or ``None``."""
    path_pip_python: str | None = None
    """The interpreter that pip runs (its ``#!`` line), or ``None``."""
    path_python: str | None = None
    """The ``python`` on PATH (what ``!python`` runs)."""
    tf_imported: str | None = None
    """The version of the TensorFlow module already imported in the kernel, or ``None``."""
    tf_installed: str | None = None
    """The version installed now, as the kernel's import system finds it."""
    tf_initialized: bool = False
    """TensorFlow's runtime (and its GPUs) already initialised in the kernel: memory settings
    made now come too late."""


@dataclass(frozen=True)
class SystemInfo:
    """The machine and the target Python interpreter."""

    os: str
    """``platform.system()``: Linux, Windows, Darwin."""
    os_release: str
    """Kernel release (``platform.release()``); on WSL2 it contains "microsoft"."""
    os_pretty_name: str | None
    """PRETTY_NAME from /etc/os-release, when there is one."""
    arch: str
    is_wsl: bool
    python_version: str | None
    """Version of the interpreter being diagnosed (the target), never gpucheck's own;
    ``None`` when the target did not say (``target.error`` says why)."""
    python_executable: str
    cpu_model: str | None
    cpu_count: int | None
    cpu_features: tuple[str, ...]
    """The CPU features TensorFlow wheels care about that this CPU has (avx, avx2, fma, ...)."""
    env: dict[str, str | None]
    """Values of :data:`ENV_VARS`; ``None`` when unset."""


@dataclass(frozen=True)
class Distribution:
    """An installed Python distribution."""

    name: str
    version: str
    location: str | None = None
    """Where it is installed, relative to the target: ``site`` (its own site-packages),
    ``user_site`` (``pip install --user``), ``system_site`` (the base interpreter's, seen through
    ``--system-site-packages``), ``pythonpath`` (a ``PYTHONPATH`` entry), ``other``; ``None``
    when not recorded."""
    installed_at: float | None = None
    """When its metadata folder was written (seconds since the epoch; schema 4)."""
    pth: str | None = None
    """The ``.pth`` file that put its folder on sys.path (``location`` ``other``): another
    environment's site-packages shared this way."""


@dataclass(frozen=True)
class RequirementInfo:
    """One requirement a distribution declares (Requires-Dist), and what the target has."""

    of: str
    """The distribution that declares it (``tensorflow``, ``keras``)."""
    requirement: str
    """As declared, without its marker (``numpy<2.0.0,>=1.23.5``)."""
    installed: str | None
    """The version installed in the target; ``None``: not installed."""
    installed_at: float | None = None
    """When that version's metadata folder was written (schema 4)."""


@dataclass(frozen=True)
class PackagesInfo:
    """What is installed in the target interpreter, read from its distribution metadata."""

    tensorflow: tuple[Distribution, ...]
    """Every TensorFlow distribution (tensorflow, tensorflow-cpu, tf-nightly, ...)."""
    keras: str | None
    tf_keras: str | None
    nvidia: tuple[Distribution, ...]
    """Every ``nvidia-*`` wheel (CUDA libraries from pip)."""
    and_cuda_requirements: tuple[str, ...]
    """Requirements of TensorFlow's ``and-cuda`` extra, from TensorFlow's own metadata."""
    error: str | None = None
    """Why the packages could not be read (the target interpreter failed), else ``None``."""
    other_frameworks: tuple[Distribution, ...] | None = None
    """PyTorch, JAX and CuPy distributions (torch, jax, jaxlib, jax-cuda12-plugin, cupy-cuda12x,
    ...): what the frameworks probe and ``bench --backend`` look for; ``None`` when not recorded
    (snapshots of earlier gpucheck releases)."""
    requirements: tuple[RequirementInfo, ...] | None = None
    """The requirements TensorFlow and Keras declare that apply here (markers evaluated for the
    target's Python and platform, extras left out), each with the version installed; ``None``
    when not recorded (snapshots before schema 3)."""
    keras_distribution: str | None = None
    """The distribution that provides the ``keras`` module where it is not ``keras`` itself
    (``keras-nightly``), read from the RECORD beside the module; ``keras`` is its version.
    ``None``: the ``keras`` distribution, none, or not recorded (an older snapshot)."""


@dataclass(frozen=True)
class GpuProcess:
    """A process holding memory on a GPU."""

    pid: int
    kind: str
    """"compute" or "graphics"."""
    used_memory_bytes: int | None


@dataclass(frozen=True)
class NvmlGpu:
    """One GPU as the NVIDIA driver reports it through NVML."""

    index: int
    name: str | None
    uuid: str | None
    pci_bus_id: str | None
    compute_capability: str | None
    """"8.0" style."""
    memory_total_bytes: int | None
    memory_used_bytes: int | None
    """What programs hold, as nvidia-smi's "Used" (NVML's v2 memory info: the driver's own
    reserve apart; the v1 call, all an old driver has, counts the reserve as used)."""
    processes: tuple[GpuProcess, ...]
    errors: dict[str, str] = field(default_factory=dict)
    """NVML errors by field name, for the values that could not be read."""
    memory_reserved_bytes: int | None = None
    """Memory the driver keeps for itself (nvidia-smi's "Reserved"); None where only the v1
    call answered, whose ``used`` includes it."""
    mig_mode: str | None = None
    """"enabled" or "disabled" (nvidia-smi's "MIG Mode: Current"); None where the GPU has no
    MIG (NVML answers "Not Supported") or it was not read."""

    @property
    def memory_free_bytes(self) -> int | None:
        """What a program can still take (nvidia-smi's "Free")."""
        if self.memory_total_bytes is None:
            return None
        return (
            self.memory_total_bytes
            - (self.memory_used_bytes or 0)
            - (self.memory_reserved_bytes or 0)
        )


@dataclass(frozen=True)
class NvmlInfo:
    """The NVIDIA driver, as NVML reports it."""

    available: bool
    error: str | None
    """Why NVML did not answer (``None`` when available)."""
    driver_version: str | None = None
    cuda_driver_version: str | None = None
    """Highest CUDA version the driver supports, "12.4" style."""
    nvml_version: str | None = None
    gpus: tuple[NvmlGpu, ...] = ()
    error_code: str | None = None
    """Stable name of the NVML failure (library_not_found, driver_not_loaded, lib_rm_version_mismatch, ...)."""


@dataclass(frozen=True)
class TfDevice:
    """A physical or logical device as tf.config lists it."""

    name: str
    device_type: str


@dataclass(frozen=True)
class TfDeviceDetails:
    """tf.config.experimental.get_device_details for one physical GPU."""

    device: str
    details: dict[str, Any]
    """Verbatim: compute_capability as [major, minor], device_name."""


@dataclass(frozen=True)
class TfOpResult:
    """A tiny matrix product run on one device."""

    device: str
    ok: bool
    checksum: float | None
    """Sum of the product's elements, to compare GPU against CPU."""
    seconds: float | None
    error: str | None


@dataclass(frozen=True)
class TensorflowInfo:
    """TensorFlow, as a child process of the target interpreter saw it."""

    probed: bool
    """False when the child was not run (``--no-tf``)."""
    installed: bool | None
    version: str | None = None
    build_info: dict[str, Any] | None = None
    """tf.sysconfig.get_build_info(), verbatim."""
    build_file: dict[str, Any] | None = None
    """The ``build_info`` literal of TensorFlow's own ``python/platform/build_info.py``, read from
    the file the user's import would load, never imported: what the installed files say of their
    build where TensorFlow was not imported (``--no-tf``) or did not import."""
    is_built_with_cuda: bool | None = None
    physical_devices: tuple[TfDevice, ...] = ()
    logical_devices: tuple[TfDevice, ...] = ()
    device_details: tuple[TfDeviceDetails, ...] = ()
    ops: tuple[TfOpResult, ...] = ()
    import_seconds: float | None = None
    error: str | None = None
    """The failure (ImportError, crash, timeout), else ``None``."""
    log: tuple[str, ...] = ()
    """TensorFlow's own start-up log (stderr of the child), line by line, verbatim."""
    returncode: int | None = None
    """Exit status of the child; negative for a signal, ``None`` when it was killed at the timeout."""
    traceback: str | None = None
    """The Python traceback of a failed import, verbatim."""
    timed_out: bool = False
    duration_s: float | None = None


@dataclass(frozen=True)
class FrameworkInfo:
    """What another GPU framework in the target environment sees (evidence about the driver)."""

    name: str
    """Distribution name: ``torch``, ``jax``, ``cupy``."""
    version: str | None
    cuda_version: str | None = None
    """The CUDA it was built with ("12.4"), when it says."""
    gpu_usable: bool | None = None
    """It created a GPU device and ran a small computation on it."""
    devices: tuple[str, ...] = ()
    """The GPU devices it lists, in its own words ("cuda:0 NVIDIA H100 80GB HBM3")."""
    error: str | None = None
    """Its error, verbatim, when importing it or using the GPU failed."""
    built_with_cuda: bool | None = None
    """The installed build has CUDA support at all (False: a CPU-only build such as
    torch 2.13.0+cpu or a jaxlib without a CUDA plugin, which says nothing about the GPU)."""
    duration_s: float | None = None
    """How long its child ran."""


@dataclass(frozen=True)
class FrameworksInfo:
    """PyTorch, JAX, CuPy: whichever of them the target environment has."""

    probed: bool
    reason: str | None = None
    """Why they were not probed (``--no-tf``, none installed, an old snapshot), else ``None``."""
    frameworks: tuple[FrameworkInfo, ...] = ()


@dataclass(frozen=True)
class Snapshot:
    """Every fact about this environment that gpucheck judges."""

    schema_version: int
    created_at: str
    """ISO 8601, UTC."""
    gpucheck_version: str
    node: NodeInfo
    system: SystemInfo
    target: TargetInfo
    packages: PackagesInfo
    nvml: NvmlInfo
    libraries: LibrariesInfo
    tensorflow: TensorflowInfo
    frameworks: FrameworksInfo
    imports: ImportsInfo | None = None
    """How the user's own program imports TensorFlow (``None``: not recorded, schema < 3)."""
    place: PlaceInfo | None = None
    """Where this runs (``None``: not recorded, schema < 3)."""
    kernel: KernelInfo | None = None
    """The notebook kernel the Python API ran in (``None``: not in a kernel, or the CLI)."""
    installer: InstallerInfo | None = None
    """The target's installer, asked in the user's setting (``None``: not asked, schema < 4)."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = to_data(self)
        return data

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False)

    @classmethod
    def from_dict(cls, data: object) -> Snapshot:
        """Validate and load a snapshot; a newer schema or a wrong shape is a GpucheckError."""
        if not isinstance(data, dict):
            raise _invalid("the top level is not a JSON object")
        if "findings" in data and "verdict" in data:
            raise _invalid("it is a `gpucheck doctor --json` report, not a snapshot")
        version = data.get("schema_version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise _invalid("it has no integer schema_version")
        if version > SCHEMA_VERSION:
            raise GpucheckError(
                f"the snapshot has schema_version {version}, newer than the {SCHEMA_VERSION} "
                "this gpucheck reads",
                reference="snapshot-too-new",
                hint="upgrade gpucheck: pip install -U tf-gpucheck",
                exit_code=ExitCode.USAGE,
            )
        if version < 1:
            raise _invalid(f"schema_version {version} is not a valid version")
        if version == 1:
            data = _from_schema_1(data)
        try:
            return from_data(cls, data)
        except DecodeError as exc:
            raise _invalid(str(exc)) from None

    @classmethod
    def from_json(cls, text: str) -> Snapshot:
        from tf_gpucheck._textfile import JsonFileProblem, parse_json

        try:
            data = parse_json(text)
        except JsonFileProblem as exc:
            raise _invalid(exc.words.removeprefix("is ")) from None
        return cls.from_dict(data)


def load_snapshot(path: str | Path) -> Snapshot:
    """Read a snapshot written by ``gpucheck detect --json``."""
    from tf_gpucheck._textfile import JsonFileProblem, read_json_file

    path = Path(path)
    hint = "write one with: gpucheck detect --json > env.json"
    try:
        data = read_json_file(path)
    except JsonFileProblem as exc:
        reference = {"missing": "snapshot-missing", "unreadable": "snapshot-unreadable"}
        raise GpucheckError(
            f"snapshot file {str(path)!r} {exc.words}",
            reference=reference.get(exc.kind, "snapshot-invalid"),
            hint=None if exc.kind == "unreadable" else hint,
        ) from None
    try:
        return Snapshot.from_dict(data)
    except GpucheckError as exc:
        exc.message = f"{path}: {exc.message}"
        raise


def _from_schema_1(data: dict[str, Any]) -> dict[str, Any]:
    """A version-1 snapshot in today's shape: the sections it did not have say so."""
    unknown = sorted(set(data) - set(_SCHEMA_1_KEYS))
    if unknown:  # strict as before: a version-1 file with a version-2 key is not version 1
        raise _invalid(f"unknown key {unknown[0]!r} for schema_version 1")
    system = data.get("system")
    executable = system.get("python_executable") if isinstance(system, dict) else None
    missing = "not recorded (snapshot schema 1)"
    packages = data.get("packages")
    if isinstance(system, dict) and isinstance(packages, dict) and packages.get("error"):
        # gpucheck 1 wrote its own Python version where the target could not be queried
        system = {**system, "python_version": None}
    upgraded: dict[str, Any] = {}
    for key in _SCHEMA_1_KEYS:
        if key == "system":
            upgraded["node"] = {"hostname": None, "labels": {}}
        if key in data:
            upgraded[key] = system if key == "system" else data[key]
        if key == "system":
            upgraded["target"] = {
                "python_executable": executable if isinstance(executable, str) else "",
                "chosen_by": "unknown",
            }
    upgraded["schema_version"] = SCHEMA_VERSION
    upgraded["frameworks"] = {"probed": False, "reason": missing, "frameworks": []}
    return upgraded


_SCHEMA_1_KEYS = (
    "schema_version",
    "created_at",
    "gpucheck_version",
    "system",
    "packages",
    "nvml",
    "libraries",
    "tensorflow",
)


def _invalid(problem: str) -> GpucheckError:
    return GpucheckError(
        f"not a gpucheck snapshot: {problem}",
        reference="snapshot-invalid",
        hint="write one with: gpucheck detect --json > env.json",
    )
