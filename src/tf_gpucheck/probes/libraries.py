"""Where the CUDA libraries TensorFlow loads are found, and whether they load.

Every file of each library is listed (the pip ``nvidia-*`` wheels of the target, LD_LIBRARY_PATH,
the ldconfig cache, CUDA_HOME / CUDA_PATH / /usr/local/cuda, /usr/lib/wsl/lib on WSL2). Then each
SONAME those files carry (``libcudnn.so.8`` and ``libcudnn.so.9`` can share a folder) is
resolved the way the dynamic loader resolves what TensorFlow asks for (ld.so(8)): TensorFlow's
own RPATH (when it has no RUNPATH), LD_LIBRARY_PATH, its RUNPATH with ``$ORIGIN`` expanded
(TensorFlow >= 2.14 finds the pip wheels there), /etc/ld.so.cache, then the loader's system
folders (``ld.so --help``). Each resolved file is dlopen-ed in a child process (a library that
crashes on load cannot take gpucheck down) and its version read from its own call; the checks
pick the SONAME the build asks for.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from tf_gpucheck._children import script
from tf_gpucheck._process import ChildResult, describe_exit, run_child
from tf_gpucheck.probes.elf import Dynamic, expand, read_dynamic
from tf_gpucheck.probes.interpreter import InterpreterFacts
from tf_gpucheck.snapshot import (
    FileOwner,
    LibrariesInfo,
    LibraryInfo,
    LibraryLocation,
    LoaderRequest,
    Resolution,
)

T = TypeVar("T")

LIBRARIES: tuple[str, ...] = (
    "libcuda",
    "libcudart",
    "libcublas",
    "libcublasLt",
    "libcufft",
    "libcusparse",
    "libcusolver",
    "libcurand",
    "libcudnn",
    "libnccl",
    "libnvinfer",
)
"""The libraries TensorFlow's GPU build dlopens (libcuda is the driver's)."""

SOURCES = ("pip", "ld_library_path", "ldconfig", "cuda_home", "wsl")
"""Where a library can be found, in the order gpucheck prefers them for the load test."""

_VERSION_IN_NAME = re.compile(r"\.so\.(\d+(?:\.\d+)*)$")


def probe_libraries(
    facts: InterpreterFacts,
    environ: Mapping[str, str] | None = None,
    *,
    platform: str = sys.platform,
    ldconfig_output: str | None = None,
    load: bool = True,
    timeout_s: float = 60.0,
    system_dirs: list[str] | None = None,
) -> LibrariesInfo:
    environ = os.environ if environ is None else environ
    if not platform.startswith("linux"):
        return LibrariesInfo(
            probed=False,
            reason=f"library search is implemented for Linux only (this is {platform})",
        )
    if ldconfig_output is None:
        ldconfig_output = _ldconfig()
    listed = _listed_by(facts)
    found = {name: _locate(name, facts, environ, ldconfig_output, listed) for name in LIBRARIES}
    order = loader_order(facts, environ, system_dirs)
    cache = _ld_cache(ldconfig_output)
    resolved = {name: _resolve_all(name, found[name], order, cache) for name in LIBRARIES}
    wanted = {(r.soname, r.path) for items in resolved.values() for r in items if r.path}
    firsts = {locs[0].path for locs in found.values() if locs}
    results = _load(sorted({p for _s, p in wanted if p} | firsts), found, timeout_s) if load else {}
    libraries = []
    for name in LIBRARIES:
        locations = found[name]
        resolutions = tuple(_with_load(r, results) for r in resolved[name])
        if not locations:
            libraries.append(LibraryInfo(name=name, locations=(), resolutions=resolutions))
            continue
        first = locations[0]
        outcome = results.get(first.path, {})
        libraries.append(
            LibraryInfo(
                name=name,
                locations=tuple(locations),
                loaded_path=first.path if outcome else None,
                loadable=_optional(bool, outcome.get("loadable")),
                load_error=_optional(str, outcome.get("error")),
                version=_optional(str, outcome.get("version")) or first.file_version,
                resolutions=resolutions,
            )
        )
    return LibrariesInfo(
        probed=True,
        reason=None,
        libraries=tuple(libraries),
        ptxas=_find_ptxas(facts, environ),
        libdevice=_find_libdevice(facts, environ),
        requesters=tuple(order.requesters),
        search=tuple(f"{via}:{folder}" for via, folder in order.folders),
        loader_requests=_loader_requests(order),
        owners=_owners({r.path for _s, r in _all(resolved) if r.path}, listed),
    )


def _all(resolved: dict[str, list[Resolution]]) -> list[tuple[str, Resolution]]:
    return [(name, r) for name, items in resolved.items() for r in items]


def _loader_requests(order: LoaderOrder) -> tuple[LoaderRequest, ...] | None:
    """What TensorFlow's binaries can ask the loader for; ``None`` when none was read."""
    if not order.requesters:
        return None
    return tuple(
        LoaderRequest(handle, tuple(binaries)) for handle, binaries in order.handles.items()
    )


_Listing = dict[str, list[tuple[float, str, str]]]


def _listed_by(facts: InterpreterFacts) -> _Listing:
    """Library file -> (install time, name, version) of each distribution whose RECORD lists it,
    oldest first: where two list one path, the later install wrote the file that is there."""
    listed: _Listing = {}
    for dist in facts.distributions:
        for lib in dist.libs or ():
            listed.setdefault(os.path.normpath(lib), []).append(
                (dist.installed_at or 0.0, dist.name, dist.version)
            )
    for entries in listed.values():
        entries.sort()
    return listed


def _owners(paths: set[str], listed: _Listing) -> tuple[FileOwner, ...]:
    owners = []
    for path in sorted(paths):
        entries = listed.get(os.path.normpath(path)) or listed.get(os.path.realpath(path))
        if not entries:
            continue
        *before, (_at, name, version) = entries
        owners.append(FileOwner(path, name, version, tuple(f"{n} {v}" for _t, n, v in before)))
    return tuple(owners)


def _pip_files(facts: InterpreterFacts, suffix: str) -> list[str]:
    return [f for dist in facts.distributions for f in dist.libs or () if f.endswith(suffix)]


def _find_ptxas(facts: InterpreterFacts, environ: Mapping[str, str]) -> str | None:
    candidates = _pip_files(facts, "/bin/ptxas")
    candidates += [os.path.join(root, "bin", "ptxas") for root in _cuda_roots(environ)]
    found = shutil.which("ptxas", path=environ.get("PATH"))
    if found:
        candidates.append(found)
    return next((c for c in candidates if os.path.isfile(c)), None)


def _find_libdevice(facts: InterpreterFacts, environ: Mapping[str, str]) -> str | None:
    candidates = _pip_files(facts, "libdevice.10.bc")
    data_dir = re.search(r"--xla_gpu_cuda_data_dir=(\S+)", environ.get("XLA_FLAGS", ""))
    roots = ([data_dir.group(1)] if data_dir else []) + _cuda_roots(environ)
    candidates += [os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc") for root in roots]
    return next((c for c in candidates if os.path.isfile(c)), None)


def _optional(kind: type[T], value: object) -> T | None:
    return value if isinstance(value, kind) else None


def _matches(name: str, filename: str) -> bool:
    return filename == f"{name}.so" or filename.startswith(f"{name}.so.")


def _file_version(path: str) -> str | None:
    real = os.path.realpath(path)
    for candidate in (os.path.basename(real), os.path.basename(path)):
        match = _VERSION_IN_NAME.search(candidate)
        if match:
            return match.group(1)
    return None


def _locate(
    name: str,
    facts: InterpreterFacts,
    environ: Mapping[str, str],
    ldconfig_output: str,
    listed: _Listing | None = None,
) -> list[LibraryLocation]:
    locations: list[LibraryLocation] = []
    seen: set[str] = set()

    def add(path: str, source: str, package: str | None = None) -> None:
        real = os.path.realpath(path)
        if real in seen or not os.path.exists(real):
            return
        seen.add(real)
        locations.append(LibraryLocation(path, source, package, _file_version(path)))

    for dist in facts.distributions:
        for lib in dist.libs or ():
            if _matches(name, os.path.basename(lib)):
                # the file is the last installer's where several distributions list it
                entries = (listed or {}).get(os.path.normpath(lib))
                add(lib, "pip", entries[-1][1] if entries else dist.name)
    for directory in _split_path(environ.get("LD_LIBRARY_PATH", "")):
        for path in _scan(directory, name):
            add(path, "ld_library_path")
    for soname, path in _parse_ldconfig(ldconfig_output):
        if _matches(name, soname):
            add(path, "ldconfig")
    for root in _cuda_roots(environ):
        for sub in ("lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"):
            for path in _scan(os.path.join(root, sub), name):
                add(path, "cuda_home")
    for path in _scan("/usr/lib/wsl/lib", name):
        add(path, "wsl")
    return locations


def _split_path(value: str) -> list[str]:
    return [part for part in value.split(os.pathsep) if part]


def _scan(directory: str, name: str) -> list[str]:
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return []
    # Prefer the soname link (libcudart.so.12) over the dev link (libcudart.so).
    matches = [e for e in entries if _matches(name, e)]
    matches.sort(key=lambda e: (e == f"{name}.so", len(e)))
    return [os.path.join(directory, e) for e in matches]


def _cuda_roots(environ: Mapping[str, str]) -> list[str]:
    roots = [environ.get("CUDA_HOME"), environ.get("CUDA_PATH"), "/usr/local/cuda"]
    return list(dict.fromkeys(r for r in roots if r))


def _ldconfig() -> str:
    for candidate in (shutil.which("ldconfig"), "/sbin/ldconfig", "/usr/sbin/ldconfig"):
        if candidate and os.path.exists(candidate):
            try:
                return subprocess.run(
                    [candidate, "-p"], capture_output=True, text=True, timeout=10, check=False
                ).stdout
            except (OSError, subprocess.SubprocessError):
                return ""
    return ""


def _parse_ldconfig(output: str) -> list[tuple[str, str]]:
    # "\tlibcudart.so.12 (libc6,x86-64) => /usr/local/cuda/lib64/libcudart.so.12"
    entries = []
    for line in output.splitlines():
        if "=>" not in line:
            continue
        left, _, path = line.partition("=>")
        soname = left.strip().split(" ", 1)[0]
        entries.append((soname, path.strip()))
    return entries


def _load(
    paths: list[str], found: dict[str, list[LibraryLocation]], timeout_s: float
) -> dict[str, dict[str, object]]:
    """Load each folder's files in a child of its own, the folders' children side by side.

    A process that has loaded one copy of a library answers for the next copy with the same
    SONAME: cuDNN 9's libcudnn.so.9 opens its libcudnn_graph.so.9 by SONAME, which the loader
    finds already loaded, so a pip wheel's libcudnn.so.9 loaded after the system's reports the
    system's version (seen: 9.14.0 for nvidia-cudnn-cu13 9.19). Files of one folder are one set,
    as the loader puts them together (a library's RUNPATH of $ORIGIN finds its own folder).
    """
    names = {loc.path: name for name, locs in found.items() for loc in locs}
    groups: dict[str, list[dict[str, str]]] = {}
    for p in paths:
        groups.setdefault(os.path.dirname(p), []).append(
            {"name": names.get(p) or _name_of(p), "path": p}
        )
    if not groups:
        return {}
    from concurrent.futures import ThreadPoolExecutor

    results: dict[str, dict[str, object]] = {}
    with ThreadPoolExecutor(max_workers=min(4, len(groups))) as pool:
        for answer in pool.map(lambda group: _load_group(group, timeout_s), groups.values()):
            results.update(answer)
    return results


def _load_group(requests: list[dict[str, str]], timeout_s: float) -> dict[str, dict[str, object]]:
    from tf_gpucheck import _cache

    # what decides a load: these files, and what the loader finds their own dependencies in
    material = [
        sorted((r["name"], r["path"], _cache.file_identity(r["path"])) for r in requests),
        os.environ.get("LD_LIBRARY_PATH"),
        os.environ.get("LD_PRELOAD"),
        _cache.file_identity("/etc/ld.so.cache"),
        sys.executable,
    ]
    failed: list[ChildResult] = []

    def ask() -> str | None:
        try:
            answer = run_child(
                [sys.executable, script("dlopen_probe")],
                timeout_s=timeout_s,
                stdin=json.dumps(requests),
            )
        except OSError as exc:
            failed.append(ChildResult(None, "", str(exc), False, 0.0))
            return None
        if answer.returncode != 0:
            failed.append(answer)
            return None
        return answer.stdout

    text = _cache.remembered("dlopen", material, ask)
    if text is not None:
        try:
            return {item["path"]: item for item in json.loads(text)}
        except ValueError:
            return {
                r["path"]: {"loadable": None, "error": "the load test printed no result"}
                for r in requests
            }
    result = failed[0]
    if result.returncode is None and not result.timed_out:
        return {
            r["path"]: {"loadable": None, "error": f"load test not run: {result.stderr}"}
            for r in requests
        }
    if len(requests) > 1 and result.returncode is not None and result.returncode < 0:
        # One library crashed the loader (SIGBUS, SIGSEGV): load each alone to name it.
        return {r["path"]: _load_alone(r, timeout_s) for r in requests}
    why = f"the load test {describe_exit(result.returncode)}"
    return {r["path"]: {"loadable": None, "error": why} for r in requests}


def _name_of(path: str) -> str:
    base = os.path.basename(path)
    return next((n for n in LIBRARIES if _matches(n, base)), base.split(".so")[0])


# --- the dynamic loader's order ----------------------------------------------------------


@dataclass
class LoaderOrder:
    """The folders the loader searches for a library TensorFlow asks for, in order."""

    folders: list[tuple[str, str]] = field(default_factory=list)
    """(via, folder): ``rpath``, ``ld_library_path``, ``runpath``; the cache and the system
    folders come after these."""
    system: list[str] = field(default_factory=list)
    requesters: list[str] = field(default_factory=list)
    handles: dict[str, list[str]] = field(default_factory=dict)
    """``Get<Name>DsoHandle`` name -> the requesters whose dynamic symbols name it."""


_REQUESTERS = (
    "libtensorflow_framework.so.2",
    "libtensorflow_framework.so.1",
    "libtensorflow_cc.so.2",
    os.path.join("python", "_pywrap_tensorflow_internal.so"),
)
"""TensorFlow's own libraries, whose RPATH/RUNPATH applies to what they load."""


def loader_order(
    facts: InterpreterFacts, environ: Mapping[str, str], system_dirs: list[str] | None = None
) -> LoaderOrder:
    """The loader's order for what TensorFlow's own loader opens. glibc's dlopen searches the
    RUNPATH of the object that calls it (ld.so(8), dlopen(3)): the TensorFlow library that
    *defines* the ``Get<Name>DsoHandle`` functions (its code calls dlopen), the first of them in
    load order where two do. Only where no definition could be read are the RUNPATHs of all of
    TensorFlow's own libraries searched."""
    order = LoaderOrder(system=system_dirs if system_dirs is not None else _system_dirs())
    folder = tensorflow_folder(facts)
    read: list[tuple[str, Dynamic]] = []
    opener: str | None = None
    for relative in _REQUESTERS if folder else ():
        path = os.path.join(folder or "", relative)
        dynamic = read_dynamic(path, symbols=opener is None) if os.path.isfile(path) else None
        if dynamic is None:
            continue
        read.append((path, dynamic))
        for handle in dynamic.dso_handles:
            order.handles.setdefault(handle, []).append(path)
        if opener is None and dynamic.defines_handles:
            opener = path
    searched = [(p, d) for p, d in read if p == opener] if opener else read
    rpath: list[str] = []
    runpath: list[str] = []
    for path, dynamic in searched:
        order.requesters.append(path)
        origin = os.path.dirname(path)
        if dynamic.runpath:
            runpath += [d for d in expand(dynamic.runpath, origin) if d not in runpath]
        else:  # DT_RPATH counts only without DT_RUNPATH (ld.so(8))
            rpath += [d for d in expand(dynamic.rpath, origin) if d not in rpath]
    order.folders += [("rpath", d) for d in rpath]
    order.folders += [
        ("ld_library_path", d) for d in _split_path(environ.get("LD_LIBRARY_PATH", ""))
    ]
    order.folders += [("runpath", d) for d in runpath]
    return order


def tensorflow_folder(facts: InterpreterFacts) -> str | None:
    """The folder of the ``tensorflow`` package the user's import gets (else the environment's)."""
    for module in facts.imports.modules if facts.imports else ():
        if module.name != "tensorflow":
            continue
        origin = module.origin or module.clean_origin
        if origin and origin.endswith("__init__.py"):
            return os.path.dirname(origin)
    return None


def _system_dirs() -> list[str]:
    """The loader's own system folders, as it says (``ld.so --help``, glibc 2.33+), else the
    usual ones that exist."""
    for loader in ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"):
        if not os.path.exists(loader):
            continue
        try:
            text = subprocess.run(
                [loader, "--help"], capture_output=True, text=True, timeout=10, check=False
            ).stdout
        except (OSError, subprocess.SubprocessError):
            break
        found = re.findall(r"^\s+(/\S+) \(system search path\)", text, re.MULTILINE)
        if found:
            return found
    usual = [
        "/lib/x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu",
        "/lib64",
        "/usr/lib64",
        "/lib",
        "/usr/lib",
    ]
    return [d for d in usual if os.path.isdir(d)]


def _ld_cache(output: str) -> dict[str, str]:
    """soname -> path from ``ldconfig -p``, the first entry of each (this machine's ABI first)."""
    cache: dict[str, str] = {}
    for soname, path in _parse_ldconfig(output):
        cache.setdefault(soname, path)
    return cache


def _resolve_all(
    name: str, locations: list[LibraryLocation], order: LoaderOrder, cache: dict[str, str]
) -> list[Resolution]:
    """Each SONAME the found files of ``name`` carry, resolved in the loader's order."""
    sonames: list[str] = []
    for location in locations:
        dynamic = read_dynamic(location.path)
        soname = dynamic.soname if dynamic and dynamic.soname else None
        if soname is None and _VERSION_IN_NAME.search(os.path.basename(location.path)):
            soname = os.path.basename(location.path)
        if soname and soname.startswith(f"{name}.so") and soname not in sonames:
            sonames.append(soname)
    sonames.sort(key=_soname_key)
    requester = order.requesters[0] if order.requesters else None
    return [_resolve(soname, order, cache, requester) for soname in sonames]


def _soname_key(soname: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", soname.split(".so", 1)[1]))


def resolve(soname: str, order: LoaderOrder, cache: dict[str, str]) -> Resolution:
    return _resolve(soname, order, cache, order.requesters[0] if order.requesters else None)


def _resolve(
    soname: str, order: LoaderOrder, cache: dict[str, str], requester: str | None
) -> Resolution:
    for via, folder in order.folders:
        candidate = os.path.join(folder, soname)
        if os.path.exists(candidate):
            return Resolution(
                soname, candidate, via, requester if via != "ld_library_path" else None
            )
    cached = cache.get(soname)
    if cached and os.path.exists(cached):
        return Resolution(soname, cached, "ld_cache")
    for folder in order.system:
        candidate = os.path.join(folder, soname)
        if os.path.exists(candidate):
            return Resolution(soname, candidate, "default")
    return Resolution(soname, None)


def _with_load(resolution: Resolution, results: dict[str, dict[str, object]]) -> Resolution:
    if resolution.path is None:
        return resolution
    outcome = results.get(resolution.path, {})
    return dataclasses.replace(
        resolution,
        loadable=_optional(bool, outcome.get("loadable")),
        load_error=_optional(str, outcome.get("error")),
        version=_optional(str, outcome.get("version")),
    )


def _load_alone(request: dict[str, str], timeout_s: float) -> dict[str, object]:
    try:
        result = run_child(
            [sys.executable, script("dlopen_probe")],
            timeout_s=timeout_s,
            stdin=json.dumps([request]),
        )
    except OSError as exc:
        return {"loadable": None, "error": f"load test not run: {exc}"}
    if result.returncode != 0:
        # dlopen itself took the process down: this library crashes whatever loads it
        return {"loadable": False, "error": f"loading it {describe_exit(result.returncode)}"}
    try:
        item: dict[str, object] = json.loads(result.stdout)[0]
    except (ValueError, IndexError, KeyError):
        return {"loadable": None, "error": "the load test printed no result"}
    return item
