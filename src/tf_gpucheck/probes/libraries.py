"""Where the CUDA libraries TensorFlow loads are found, and whether they load.

Looks where the dynamic loader and TensorFlow look: the pip ``nvidia-*`` wheels of the target
interpreter (TensorFlow >= 2.14 finds them through its RUNPATH), LD_LIBRARY_PATH, the ldconfig
cache, CUDA_HOME / CUDA_PATH / /usr/local/cuda, and /usr/lib/wsl/lib on WSL2. The first
location found is dlopen-ed in a child process (a library that crashes on load cannot take
gpucheck down) and its version read from its own API.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from typing import TypeVar

from tf_gpucheck._children import script
from tf_gpucheck._process import describe_exit, run_child
from tf_gpucheck.probes.interpreter import InterpreterFacts
from tf_gpucheck.snapshot import LibrariesInfo, LibraryInfo, LibraryLocation

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
) -> LibrariesInfo:
    environ = os.environ if environ is None else environ
    if not platform.startswith("linux"):
        return LibrariesInfo(
            probed=False,
            reason=f"library search is implemented for Linux only (this is {platform})",
        )
    if ldconfig_output is None:
        ldconfig_output = _ldconfig()
    found = {name: _locate(name, facts, environ, ldconfig_output) for name in LIBRARIES}
    results = _load_first(found, timeout_s) if load else {}
    libraries = []
    for name in LIBRARIES:
        locations = found[name]
        if not locations:
            libraries.append(LibraryInfo(name=name, locations=()))
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
            )
        )
    return LibrariesInfo(
        probed=True,
        reason=None,
        libraries=tuple(libraries),
        ptxas=_find_ptxas(facts, environ),
        libdevice=_find_libdevice(facts, environ),
    )


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
    name: str, facts: InterpreterFacts, environ: Mapping[str, str], ldconfig_output: str
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
                add(lib, "pip", dist.name)
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


def _load_first(
    found: dict[str, list[LibraryLocation]], timeout_s: float
) -> dict[str, dict[str, object]]:
    requests = [{"name": name, "path": locs[0].path} for name, locs in found.items() if locs]
    if not requests:
        return {}
    try:
        result = run_child(
            [sys.executable, script("dlopen_probe")],
            timeout_s=timeout_s,
            stdin=json.dumps(requests),
        )
    except OSError as exc:
        return {
            r["path"]: {"loadable": None, "error": f"load test not run: {exc}"} for r in requests
        }
    if result.returncode != 0:
        if len(requests) > 1 and result.returncode is not None and result.returncode < 0:
            # One library crashed the loader (SIGBUS, SIGSEGV): load each alone to name it.
            return {r["path"]: _load_alone(r, timeout_s) for r in requests}
        why = f"the load test {describe_exit(result.returncode)}"
        return {r["path"]: {"loadable": None, "error": why} for r in requests}
    try:
        return {item["path"]: item for item in json.loads(result.stdout)}
    except ValueError:
        return {
            r["path"]: {"loadable": None, "error": "the load test printed no result"}
            for r in requests
        }


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
