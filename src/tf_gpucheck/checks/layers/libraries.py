"""The CUDA libraries and cuDNN TensorFlow loads."""

from __future__ import annotations

import functools
import os

from packaging.requirements import InvalidRequirement, Requirement

from tf_gpucheck._numbers import is_whole_number
from tf_gpucheck.checks import facts, remedies
from tf_gpucheck.checks.findings import Finding, fail, ok, skip
from tf_gpucheck.checks.registry import check
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import LibraryInfo, Snapshot

# --- CUDA libraries ------------------------------------------------------------------------

REQUIRED_LIBRARIES = (
    "libcudart",
    "libcublas",
    "libcublasLt",
    "libcufft",
    "libcusparse",
    "libcusolver",
    "libcurand",
)


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


def _major(version: str | None) -> str | None:
    return version.split(".")[0] if version else None


def _library_problem(lib: LibraryInfo, want_major: str | None) -> str | None:
    if not lib.locations:
        return f"{lib.name} not found"
    if lib.loadable is False:
        return f"{lib.name} does not load: {lib.load_error}"
    if want_major and lib.version and _major(lib.version) != want_major:
        return f"{lib.name} is version {lib.version}, TensorFlow needs {want_major}.x"
    return None


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


def _libraries_fix(snapshot: Snapshot, matrix: Matrix) -> str | None:
    return remedies.remedy_for("cuda_libs_missing", snapshot, matrix)


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
    cuda_major = _major(facts.build_cuda(snapshot, matrix))
    problems = []
    for name in REQUIRED_LIBRARIES:
        lib = by_name.get(name)
        if lib is None:
            continue
        problem = _library_problem(lib, cuda_major if name == "libcudart" else None)
        if problem:
            problems.append(problem)
    details = "\n".join(_describe(by_name[n]) for n in REQUIRED_LIBRARIES if n in by_name)
    if problems:
        return fail(
            "cuda_libraries",
            "cuda_libs_missing",
            f"{len(problems)} CUDA librar{'y' if len(problems) == 1 else 'ies'} missing or broken: {problems[0]}",
            details,
            _libraries_fix(snapshot, matrix),
        )
    sources = sorted(
        {
            by_name[n].locations[0].source
            for n in REQUIRED_LIBRARIES
            if n in by_name and by_name[n].locations
        }
    )
    return ok(
        "cuda_libraries",
        f"all {len(REQUIRED_LIBRARIES)} CUDA libraries found and load ({', '.join(sources)})",
        details,
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
    built = facts.build_cudnn(snapshot, matrix)
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
    # cuda_dnn.cc: the runtime must have the same major version and an equal or higher minor.
    have_parts = [int(p) for p in have.split(".")[:2] if is_whole_number(p)]
    built_parts = [int(p) for p in built.split(".")[:2] if is_whole_number(p)]
    if have_parts[:1] != built_parts[:1] or (
        len(have_parts) > 1 and len(built_parts) > 1 and have_parts[1] < built_parts[1]
    ):
        return fail(
            "cudnn",
            "cudnn_version_mismatch",
            f"cuDNN {have} is loaded but TensorFlow was built with {built}",
            "cuDNN needs the same major version and an equal or higher minor version.\n"
            + _describe(lib),
            _libraries_fix(snapshot, matrix),
        )
    return ok("cudnn", f"cuDNN {have} matches the build's {built}")
