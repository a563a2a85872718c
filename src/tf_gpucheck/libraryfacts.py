"""The snapshot's facts about the CUDA libraries (``Snapshot.libraries``): where each is found,
what TensorFlow's own loader asks for, where the loader finds each SONAME, whether it loads, and
whose files these are (see :mod:`tf_gpucheck.probes.libraries`). Part of the snapshot's contract
(:mod:`tf_gpucheck.snapshot` names them too)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "FileOwner",
    "LibrariesInfo",
    "LibraryInfo",
    "LibraryLocation",
    "LoaderRequest",
    "Resolution",
]


@dataclass(frozen=True)
class LibraryLocation:
    """One place a CUDA library was found."""

    path: str
    source: str
    """Where it was found: pip, ld_library_path, ldconfig, cuda_home or wsl."""
    package: str | None = None
    """The pip distribution that ships it, for source "pip"."""
    file_version: str | None = None
    """Version read from the file name (libcudnn.so.9.1.0 -> "9.1.0")."""


@dataclass(frozen=True)
class Resolution:
    """Where the dynamic loader finds one SONAME for TensorFlow, searched in its own order
    (ld.so(8)): the requesting library's RPATH (when it has no RUNPATH), LD_LIBRARY_PATH, its
    RUNPATH (``$ORIGIN`` expanded), /etc/ld.so.cache, the system folders."""

    soname: str
    """``libcudnn.so.9``: the name a program asks for (the file's DT_SONAME)."""
    path: str | None
    """The file the loader takes for it; ``None``: not on the loader's path."""
    via: str | None = None
    """``rpath``, ``ld_library_path``, ``runpath``, ``ld_cache``, ``default``."""
    requester: str | None = None
    """The library whose RPATH/RUNPATH was searched (TensorFlow's), when there is one."""
    loadable: bool | None = None
    load_error: str | None = None
    version: str | None = None
    """As the library's own call reports it once loaded (``cudnnGetVersion``); ``None``: no such
    call, or it did not load."""


@dataclass(frozen=True)
class LibraryInfo:
    """One CUDA library TensorFlow may load."""

    name: str
    """Base name: libcudart, libcudnn, ..."""
    locations: tuple[LibraryLocation, ...]
    loaded_path: str | None = None
    """The file that was tried with dlopen (``None``: nothing found, nothing tried)."""
    loadable: bool | None = None
    load_error: str | None = None
    """dlopen's error text, verbatim."""
    version: str | None = None
    """Version reported by the library's own API when it loaded, else from the file name."""
    resolutions: tuple[Resolution, ...] = ()
    """Each SONAME found for it, resolved as the loader would (schema 4)."""


@dataclass(frozen=True)
class LoaderRequest:
    """A library TensorFlow's own dynamic-library loader can open: tsl's ``dso_loader.cc`` has one
    ``Get<Name>DsoHandle`` function per library, and the binaries that define or call it name it
    in their dynamic symbols (read from the files, schema 5)."""

    handle: str
    """``<Name>``: ``CudaRuntime``, ``Cublas``, ``Curand``, ``Cudnn`` ..."""
    binaries: tuple[str, ...]
    """TensorFlow's files whose dynamic symbols name it."""


@dataclass(frozen=True)
class FileOwner:
    """Which installed distributions' RECORD files list one library file (schema 5)."""

    path: str
    owner: str
    """The distribution whose files these are now: of those listing it, the last installed."""
    owner_version: str | None = None
    also_listed_by: tuple[str, ...] = ()
    """Other distributions whose RECORD lists the same path, installed before the owner (their
    copy was overwritten), each as ``name version``."""


@dataclass(frozen=True)
class LibrariesInfo:
    """Where the CUDA libraries are, and whether they load."""

    probed: bool
    reason: str | None
    """Why the libraries were not probed (not Linux, ...), else ``None``."""
    libraries: tuple[LibraryInfo, ...] = ()
    ptxas: str | None = None
    """The ptxas XLA would use (pip nvidia-cuda-nvcc wheel, CUDA_HOME/bin, PATH), if any."""
    libdevice: str | None = None
    """libdevice.10.bc for XLA (pip wheel, --xla_gpu_cuda_data_dir, CUDA_HOME/nvvm), if any."""
    requesters: tuple[str, ...] = ()
    """TensorFlow's own libraries whose RPATH/RUNPATH the search used (schema 4)."""
    search: tuple[str, ...] = ()
    """The folders searched, in the loader's order, each as ``via:folder`` (schema 4)."""
    loader_requests: tuple[LoaderRequest, ...] | None = None
    """What TensorFlow's own binaries can ask the loader for; ``None``: they were not read (no
    TensorFlow found, or a snapshot older than schema 5)."""
    owners: tuple[FileOwner, ...] = ()
    """For each library file the loader would give TensorFlow, the distributions whose RECORD
    lists it (schema 5)."""
