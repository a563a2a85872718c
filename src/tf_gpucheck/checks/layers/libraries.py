"""The CUDA libraries and cuDNN TensorFlow loads."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

from packaging.requirements import InvalidRequirement, Requirement

from tf_gpucheck._numbers import is_whole_number
from tf_gpucheck.checks import facts, remedies
from tf_gpucheck.checks.findings import Finding, Observation, fail, observation_of, ok, skip
from tf_gpucheck.checks.registry import check
from tf_gpucheck.installer import intent
from tf_gpucheck.installer.intent import Fix
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import LibraryInfo, Resolution, Snapshot

# --- CUDA libraries ------------------------------------------------------------------------


def asked_libraries(snapshot: Snapshot, matrix: Matrix) -> tuple[list[str] | None, str]:
    """The libraries TensorFlow gives up the GPU without, from what its own loader can ask for
    (the ``Get<Name>DsoHandle`` functions its binaries name), and where that was read. ``None``:
    unknown (the binaries were not read and no reading of that release's wheel is recorded)."""
    requests = snapshot.libraries.loader_requests
    handles: set[str] = set()
    if requests:
        handles = {r.handle for r in requests}
        where = "read from TensorFlow's own binaries"
    else:
        row = facts.release(snapshot, matrix)
        version = facts.tf_version(snapshot)
        if row is None or not row.loader:
            what = f"TensorFlow {version}" if version else "this TensorFlow"
            return None, (
                f"which CUDA libraries {what} asks for is unknown: its binaries were not read"
                + (" and no reading of that release's wheel is recorded" if version else "")
            )
        handles = set(row.loader)
        where = f"read from the released {row.version} wheel's binaries"
    names = [h.library for h in matrix.loader if h.gpu_init and h.handle in handles]
    return names, where


def _describe(lib: LibraryInfo) -> str:
    if not lib.locations:
        return f"{lib.name}: not found"
    where = lib.locations[0]
    source = where.source + (f" {where.package}" if where.package else "")
    state = (
        "loads"
        if lib.loadable
        else f"does not load: {lib.load_error}"
        if lib.loadable is False
        else "not tried"
    )
    return f"{lib.name} {lib.version or ''} ({source}, {where.path}): {state}".replace("  ", " ")


def wanted_soname(name: str, snapshot: Snapshot, matrix: Matrix) -> str | None:
    """The SONAME this TensorFlow asks the loader for (``None``: not known): from its build's
    CUDA (compat_matrix.yaml ``sonames``) and cuDNN major."""
    if name == "libcudnn":
        major = _major(facts.build_cudnn(snapshot, matrix))
        return f"libcudnn.so.{major}" if major else None
    if name == "libcuda":
        return "libcuda.so.1"
    if name == "libnccl":
        return "libnccl.so.2"
    return matrix.soname(facts.build_cuda(snapshot, matrix), name)


def pick(lib: LibraryInfo, wanted: str | None) -> Resolution | None:
    """The loader's answer for the SONAME TensorFlow asks for, when recorded (schema 4)."""
    if wanted is None:
        return None
    return next((r for r in lib.resolutions if r.soname == wanted), None)


def library_observation(resolution: Resolution) -> Observation:
    return observation_of("library", resolution, "soname", "path", "via", "requester", "version")


_VIA_WORDS = {
    "rpath": "TensorFlow's RPATH",
    "runpath": "TensorFlow's RUNPATH",
    "ld_library_path": "LD_LIBRARY_PATH",
    "ld_cache": "the loader's cache (ldconfig)",
    "default": "the loader's system folders",
}


def _resolved_words(resolution: Resolution) -> str:
    if resolution.path is None:
        return f"{resolution.soname}: not on the loader's path"
    state = (
        "loads"
        if resolution.loadable
        else f"does not load: {resolution.load_error}"
        if resolution.loadable is False
        else "not tried"
    )
    version = f" {resolution.version}" if resolution.version else ""
    via = _VIA_WORDS.get(resolution.via or "", resolution.via or "")
    return f"{resolution.soname}{version} -> {resolution.path} (via {via}): {state}"


def _resolved_problem(lib: LibraryInfo, wanted: str, resolution: Resolution | None) -> str | None:
    """What is wrong with the loader's answer for ``wanted``, or ``None``."""
    others = [r for r in lib.resolutions if r.soname != wanted and r.path]
    if resolution is None or resolution.path is None:
        there = (
            f" ({', '.join(f'{r.soname} at {r.path}' for r in others)} is not it)" if others else ""
        )
        return f"{wanted} (what TensorFlow asks for) is not on the loader's path{there}"
    if resolution.loadable is False:
        return f"{wanted} -> {resolution.path} does not load: {resolution.load_error}"
    return None


def _major(version: str | None) -> str | None:
    return version.split(".")[0] if version else None


def _library_problem(lib: LibraryInfo, want: str | None) -> str | None:
    """``want``: the CUDA runtime version the build needs, as precisely as its SONAME names it:
    the major from CUDA 11 on (libcudart.so.11.0 serves every 11.x), major.minor before
    (libcudart.so.10.0 and libcudart.so.10.1 are different libraries)."""
    if not lib.locations:
        return f"{lib.name} not found"
    if lib.loadable is False:
        return f"{lib.name} does not load: {lib.load_error}"
    if want and lib.version and not _same_runtime(lib.version, want):
        shown = want if "." in want else f"{want}.x"
        return f"{lib.name} is version {lib.version}, TensorFlow needs {shown}"
    return None


def _runtime_key(cuda: str | None) -> str | None:
    """The part of a CUDA version its runtime's SONAME carries: "12" for 12.5, "10.1" for 10.1."""
    if not cuda:
        return None
    parts = cuda.split(".")
    if parts[0].isdigit() and int(parts[0]) < 11 and len(parts) > 1:
        return f"{parts[0]}.{parts[1]}"
    return parts[0]


def _same_runtime(have: str, want: str) -> bool:
    """``want`` is as precise as the build's CUDA is known: a major alone (CUDA 11 on, or an old
    release the tested-configurations table lists as "9") is met by any version of that major;
    a version known only by its major (a text that says "CUDA 10") is not told from the minor
    wanted, so it does not disagree with it."""
    if "." not in want or "." not in have:
        return _major(have) == _major(want)
    return _runtime_key(have) == want


@functools.lru_cache(maxsize=1024)  # a fleet's nodes share their pins: parse each once
def _pin(line: str) -> Requirement | None:
    try:
        return Requirement(line)
    except InvalidRequirement:
        return None


@functools.lru_cache(maxsize=4096)
def _pin_met(line: str, have: str) -> bool:
    requirement = _pin(line)
    return requirement is None or requirement.specifier.contains(have, prereleases=True)


def unmet_pins(snapshot: Snapshot) -> tuple[list[str], list[str]]:
    """(what is wrong, the requirement that fixes it) for each and-cuda pin not satisfied."""
    installed = {d.name: d.version for d in snapshot.packages.nvidia}
    unmet: list[str] = []
    wanted: list[str] = []
    for line in snapshot.packages.and_cuda_requirements:
        requirement = _pin(line)
        if requirement is None:
            continue
        have = installed.get(requirement.name)
        if have is None:
            unmet.append(f"{requirement.name} not installed (wants {requirement.specifier})")
        elif not _pin_met(line, have):
            unmet.append(f"{requirement.name} {have} does not satisfy {requirement.specifier}")
        else:
            continue
        wanted.append(f"{requirement.name}{requirement.specifier}")
    return unmet, wanted


def _libraries_fix(snapshot: Snapshot, matrix: Matrix) -> str | Fix | None:
    return remedies.remedy_for("cuda_libs_missing", snapshot, matrix)


def _ahead_of_runpath(
    lib: LibraryInfo,
    wanted: str,
    resolution: Resolution | None,
    snapshot: Snapshot,
    fits: Callable[[str | None], bool],
) -> Fix | None:
    """The fix where the loader takes ``wanted`` from a folder of LD_LIBRARY_PATH (searched
    before a RUNPATH, ld.so(8)) and TensorFlow's own RUNPATH holds a file of that SONAME that
    loads and ``fits`` (its version, from its own call): that folder out of LD_LIBRARY_PATH,
    nothing installed. ``None`` where that is not what was observed."""

    if resolution is None or resolution.via != "ld_library_path" or not resolution.path:
        return None
    runpath = {
        os.path.normpath(entry.split(":", 1)[1])
        for entry in snapshot.libraries.search
        if entry.startswith("runpath:")
    }
    own = next(
        (
            where.path
            for where in lib.locations
            if os.path.basename(where.path) == wanted
            and os.path.normpath(os.path.dirname(where.path)) in runpath
        ),
        None,
    )
    if own is None or lib.loaded_path != own or lib.loadable is not True or not fits(lib.version):
        return None
    folder = os.path.normpath(os.path.dirname(resolution.path))
    entries = (snapshot.system.env.get("LD_LIBRARY_PATH") or "").split(":")
    rest = [e for e in entries if e and os.path.normpath(e) != folder]
    why = (
        f"without {folder}: its {wanted} comes before TensorFlow's own "
        f"({lib.version or 'it loads'}, {own})"
    )
    if len(rest) == len([e for e in entries if e]):
        return None  # the folder is not one of its entries as written (a link): not said
    return intent.variable("LD_LIBRARY_PATH", ":".join(rest) or None, note=why)


def _off_the_path(lib: LibraryInfo, wanted: str, resolution: Resolution | None) -> str | None:
    """An installed file of ``wanted`` that loads (the load test's own answer) where the
    loader's search finds none: TensorFlow's own loader searches the RUNPATH of the
    library that runs it, and a release whose RUNPATH leaves out a folder of its own and-cuda
    wheels cannot open what is installed there. ``None`` where that is not what was seen."""
    if resolution is not None and resolution.path is not None:
        return None
    here = next((w for w in lib.locations if os.path.basename(w.path) == wanted), None)
    if here is None or lib.loaded_path != here.path or lib.loadable is not True:
        return None
    return os.path.normpath(here.path)


def left_out_files(snapshot: Snapshot, matrix: Matrix) -> list[str]:
    """Every installed library TensorFlow's loader asks for (cuDNN too) that its search does not
    reach, in the loader's own order of asking: one line for all."""
    asked, _where = asked_libraries(snapshot, matrix)
    files: list[str] = []
    by_name = {lib.name: lib for lib in snapshot.libraries.libraries}
    for name in asked or ():
        lib = by_name.get(name)
        wanted = wanted_soname(name, snapshot, matrix) if lib is not None else None
        if lib is None or wanted is None or not lib.resolutions:
            continue
        found = _off_the_path(lib, wanted, pick(lib, wanted))
        if found and found not in files:
            files.append(found)
    return files


def _owner_words(lib: LibraryInfo) -> str:
    here = next((w for w in lib.locations if w.path == lib.loaded_path), None)
    if here is None:
        return "found"
    return f"from {here.package}" if here.package else f"found via {here.source}"


def _onto_the_path(files: list[str], snapshot: Snapshot) -> str | Fix:
    """The line that puts the folders of ``files`` first on LD_LIBRARY_PATH, keeping what it
    holds. In a notebook kernel (the target is the kernel itself), the variable is read when the
    process starts: loading the files first does it there, since the loader takes a library
    already loaded by its SONAME (tried: TensorFlow 2.21's own TryDlopenCUDALibraries then
    succeeds)."""

    kernel = snapshot.kernel
    if kernel is not None and kernel.python == snapshot.target.python_executable:
        loads = "; ".join(f"ctypes.CDLL({f!r})" for f in files)
        return (
            f"import ctypes; {loads}  # in the notebook, before TensorFlow uses the GPU "
            "(restart the kernel first if it has)"
        )
    folders = list(dict.fromkeys(os.path.dirname(f) for f in files))
    current = [e for e in (snapshot.system.env.get("LD_LIBRARY_PATH") or "").split(":") if e]
    value = ":".join(dict.fromkeys([*folders, *current]))
    requesters = snapshot.libraries.requesters
    requester = os.path.basename(requesters[0]) if requesters else "TensorFlow"
    return intent.variable(
        "LD_LIBRARY_PATH",
        value,
        note=f"where TensorFlow runs: {requester}'s RUNPATH leaves "
        f"{'these folders' if len(folders) > 1 else 'it'} out",
    )


@check("cuda_libraries", "CUDA libraries TensorFlow needs are found and load", gpu=True)
def cuda_libraries(snapshot: Snapshot, matrix: Matrix) -> Finding:
    if facts.is_cuda_build(snapshot) is not True:
        return skip("cuda_libraries", _not_cuda_build(snapshot))
    libs = snapshot.libraries
    if not libs.probed:
        return skip("cuda_libraries", f"not searched: {libs.reason}")
    by_name = {lib.name: lib for lib in libs.libraries}
    crashing = [lib for lib in libs.libraries if lib.load_error and "killed by" in lib.load_error]
    if crashing:
        bad = crashing[0]
        where = bad.locations[0] if bad.locations else None
        how = (bad.load_error or "").removeprefix("loading it ")
        return fail(
            "cuda_libraries",
            "library_crashes_loader",
            f"loading {bad.loaded_path} {how}: it crashes every program that loads it, "
            "TensorFlow included",
            "\n".join(_describe(item) for item in crashing),
            f"remove {os.path.dirname(where.path)} from LD_LIBRARY_PATH  # then reinstall the "
            "library it came from"
            if where and where.source == "ld_library_path"
            else f"reinstall or remove {bad.loaded_path}",
        )
    asked, read_from = asked_libraries(snapshot, matrix)
    # unknown: the CUDA runtime alone is judged (every CUDA build's loader opens it: each
    # wheel read has GetCudaRuntimeDsoHandle, tests/data/tf_wheels), the rest is said unknown
    required = ["libcudart"] if asked is None else [n for n in asked if n != "libcudnn"]
    runtime = _runtime_key(facts.build_cuda(snapshot, matrix))
    problems = []
    lines = [
        f"TensorFlow's loader asks for {', '.join(required)} ({read_from})"
        if asked is not None
        else read_from
    ]
    observed: list[Observation] = []
    asides: list[Fix | None] = []
    off: list[str] = []
    for name in required:
        lib = by_name.get(name)
        if lib is None:
            continue
        wanted = (
            wanted_soname(name, snapshot, matrix) if lib.resolutions or not lib.locations else None
        )
        if wanted is not None and (lib.resolutions or snapshot.libraries.search):
            resolution = pick(lib, wanted)
            problem = _resolved_problem(lib, wanted, resolution)
            unreached = _off_the_path(lib, wanted, resolution) if problem else None
            if unreached:
                off.append(unreached)
                problem = f"{wanted} ({lib.loaded_path}, {_owner_words(lib)})"
            if problem and not asides:
                asides.append(
                    _ahead_of_runpath(lib, wanted, resolution, snapshot, lambda _version: True)
                )
            lines.append(
                _resolved_words(resolution) if resolution else f"{wanted}: no such file found"
            )
            if resolution is not None:
                observed.append(library_observation(resolution))
        else:
            problem = _library_problem(lib, runtime if name == "libcudart" else None)
            lines.append(_describe(lib))
        if problem:
            problems.append(problem)
    details = "\n".join(lines)
    listed = facts.tf_gpus(snapshot)
    if problems and listed:
        # TensorFlow itself listed the GPU: its loader opened every library it gives the GPU up
        # without (Cannot dlopen some GPU libraries ... Skipping registering GPU devices)
        return ok(
            "cuda_libraries",
            f"TensorFlow lists {len(listed)} GPU{'s' if len(listed) > 1 else ''}: its own loader "
            "opened every CUDA library it needs",
            details + "\nas searched here: " + "; ".join(problems),
            tuple(observed),
        )
    if problems:
        count = f"{len(problems)} CUDA librar{'y' if len(problems) == 1 else 'ies'}"
        fix: str | Fix | None
        if off and len(off) == len(problems):
            summary = f"{count} installed but off TensorFlow's loader path: {problems[0]}"
            fix = _onto_the_path(left_out_files(snapshot, matrix) or off, snapshot)
            details += (
                "\nThe loader searches the RUNPATH of the library whose code calls it (ld.so(8)): "
                + (snapshot.libraries.requesters[0] if snapshot.libraries.requesters else "")
            )
        else:
            summary = f"{count} missing or broken: {problems[0]}"
            fix = (
                asides[0]
                if len(problems) == 1 and asides and asides[0]
                else _libraries_fix(snapshot, matrix)
            )
        return fail(
            "cuda_libraries",
            "cuda_libs_missing",
            summary,
            details,
            fix,
            observed=tuple(observed),
        )
    sources = sorted(
        {by_name[n].locations[0].source for n in required if n in by_name and by_name[n].locations}
    )
    if asked is None:
        return ok(
            "cuda_libraries",
            f"the CUDA runtime is found and loads ({', '.join(sources) or 'as stated'}); "
            f"{read_from}",
            details,
            tuple(observed),
        )
    return ok(
        "cuda_libraries",
        f"all {len(required)} CUDA libraries TensorFlow asks for found and load "
        f"({', '.join(sources)})",
        details,
        tuple(observed),
    )


def _not_cuda_build(snapshot: Snapshot) -> str:
    if facts.is_cuda_build(snapshot) is None:
        why = "it was not imported" if not snapshot.tensorflow.probed else "it did not import"
        return f"TensorFlow's build is unknown ({why}), so what it needs is unknown"
    return "not a CUDA build of TensorFlow"


@check("cudnn", "cuDNN is found and matches the build", gpu=True)
def cudnn(snapshot: Snapshot, matrix: Matrix) -> Finding:
    if facts.is_cuda_build(snapshot) is not True:
        return skip("cudnn", _not_cuda_build(snapshot))
    if not snapshot.libraries.probed:
        return skip("cudnn", f"not searched: {snapshot.libraries.reason}")
    lib = next((lib for lib in snapshot.libraries.libraries if lib.name == "libcudnn"), None)
    if lib is None and facts.stated_only(snapshot):
        return skip("cudnn", "the text does not state the cuDNN")
    built = facts.build_cudnn(snapshot, matrix)
    wanted = wanted_soname("libcudnn", snapshot, matrix)
    if lib is not None and wanted is not None and (lib.resolutions or snapshot.libraries.search):
        return _cudnn_resolved(lib, wanted, built, snapshot, matrix)
    if lib is None or not lib.locations or lib.loadable is False:
        why = (
            "not found" if lib is None or not lib.locations else f"does not load: {lib.load_error}"
        )
        return fail(
            "cudnn",
            "cudnn_missing",
            f"cuDNN {built or ''} {why}".replace("  ", " "),
            _describe(lib) if lib else "",
            _libraries_fix(snapshot, matrix),
        )
    have = lib.version
    if not built or not have:
        return ok("cudnn", f"cuDNN {have or '(version unknown)'} found")
    if not _cudnn_fits(have, built):
        return fail(
            "cudnn",
            "cudnn_version_mismatch",
            f"cuDNN {have} is loaded but TensorFlow was built with {built}",
            "cuDNN needs the same major version and an equal or higher minor version.\n"
            + _describe(lib),
            _libraries_fix(snapshot, matrix),
        )
    return ok("cudnn", f"cuDNN {have} matches the build's {built}")


def _cudnn_fits(have: str, built: str) -> bool:
    """cuda_dnn.cc: the runtime must have the same major version and an equal or higher minor."""
    have_parts = [int(p) for p in have.split(".")[:2] if is_whole_number(p)]
    built_parts = [int(p) for p in built.split(".")[:2] if is_whole_number(p)]
    return not (
        have_parts[:1] != built_parts[:1]
        or (len(have_parts) > 1 and len(built_parts) > 1 and have_parts[1] < built_parts[1])
    )


def _cudnn_resolved(
    lib: LibraryInfo, wanted: str, built: str | None, snapshot: Snapshot, matrix: Matrix
) -> Finding:
    """cuDNN judged on the file the loader takes for the SONAME TensorFlow asks for, and the
    version that file's own ``cudnnGetVersion`` reports."""
    resolution = pick(lib, wanted)
    observed = (library_observation(resolution),) if resolution else ()
    details = "\n".join(_resolved_words(r) for r in lib.resolutions) or "no libcudnn file found"
    problem = _resolved_problem(lib, wanted, resolution)

    def fits(version: str | None) -> bool:
        return version is not None and (built is None or _cudnn_fits(version, built))

    aside = _ahead_of_runpath(lib, wanted, resolution, snapshot, fits)
    unreached = _off_the_path(lib, wanted, resolution) if problem else None
    if unreached:
        return fail(
            "cudnn",
            "cudnn_missing",
            f"cuDNN {built or ''}: {wanted} ({lib.loaded_path}, {_owner_words(lib)}) installed but "
            "off TensorFlow's loader path".replace("  ", " "),
            details,
            _onto_the_path(left_out_files(snapshot, matrix) or [unreached], snapshot),
            observed=observed,
        )
    if problem or resolution is None:
        return fail(
            "cudnn",
            "cudnn_missing",
            f"cuDNN {built or ''}: {problem}".replace("  ", " "),
            details,
            aside or _libraries_fix(snapshot, matrix),
            observed=observed,
        )
    have = resolution.version
    if not built or not have:
        return ok(
            "cudnn",
            f"{wanted} -> {resolution.path} loads (its version was not reported)",
            details,
            observed,
        )
    if not _cudnn_fits(have, built):
        return fail(
            "cudnn",
            "cudnn_version_mismatch",
            f"cuDNN {have} ({resolution.path}, what the loader takes for {wanted}) but TensorFlow "
            f"was built with {built}",
            "cuDNN needs the same major version and an equal or higher minor version.\n" + details,
            aside or _libraries_fix(snapshot, matrix),
            observed=observed,
        )
    return ok(
        "cudnn",
        f"cuDNN {have} ({wanted} -> {resolution.path}) matches the build's {built}",
        details,
        observed,
    )
