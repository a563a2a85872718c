"""The doctor's checks: small pure functions ``(snapshot, matrix) -> Finding``, one registry.

Checks are listed bottom-up, layer by layer (platform, Python, TensorFlow, driver, libraries,
GPUs, what TensorFlow made of them), so the first failure in this order is the first thing to
fix. A check reads the snapshot and the matrix only; it never reaches the hardware.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from tf_gpucheck._numbers import is_whole_number
from tf_gpucheck.checks import facts, logscan, remedies
from tf_gpucheck.checks.diagnosis import Known
from tf_gpucheck.checks.findings import Finding, fail, info, ok, skip, warn
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import LibraryInfo, Snapshot

CheckFunction = Callable[[Snapshot, Matrix], Finding]


@dataclass(frozen=True)
class Check:
    id: str
    title: str
    function: CheckFunction
    gpu: bool
    """Only matters for using a GPU: --allow-cpu turns its failure into a warning."""


REGISTRY: list[Check] = []


def check(id: str, title: str, *, gpu: bool = False) -> Callable[[CheckFunction], CheckFunction]:
    def register(function: CheckFunction) -> CheckFunction:
        REGISTRY.append(Check(id, title, function, gpu))
        return function

    return register


def _uninstall_and_install(snapshot: Snapshot, matrix: Matrix, remove: list[str]) -> str:
    return remedies.replace_distributions(Known.from_snapshot(snapshot), matrix, remove)


def _python_to_install(snapshot: Snapshot, matrix: Matrix) -> str:
    newest = matrix.newest_first()[0]
    top = newest.python.split(",")[-1].split("-")[-1].strip()
    return f"use Python {top} (TensorFlow {newest.version} supports Python {newest.python})"


# --- platform and Python -------------------------------------------------------------------


@check("platform", "Operating system can run TensorFlow on an NVIDIA GPU")
def platform(snapshot: Snapshot, matrix: Matrix) -> Finding:
    system = snapshot.system
    version = facts.tf_version(snapshot)
    if system.os == "Darwin":
        return fail(
            "platform",
            "macos_no_cuda",
            "macOS has no CUDA: TensorFlow cannot use an NVIDIA GPU here",
            matrix.fact("macos_no_cuda").summary,
            "pip install tensorflow tensorflow-metal  # Apple GPUs through Metal instead",
        )
    if system.os == "Windows":
        last = matrix.fact("windows_native_last_gpu").value or "2.10"
        if version and _minor(version) > _minor(last):
            return fail(
                "platform",
                "windows_native_unsupported",
                f"TensorFlow {version} has no GPU support on native Windows (the last was {last})",
                matrix.fact("windows_native_last_gpu").summary,
                remedies.remedy_for("windows_native_unsupported", snapshot, matrix),
            )
        return ok(
            "platform",
            f"native Windows, TensorFlow {version or '(not installed)'}: GPU support up to {last}",
        )
    if system.is_wsl:
        return info(
            "platform",
            "WSL2: the GPU comes from the Windows driver",
            "Under WSL2 libcuda.so comes from /usr/lib/wsl/lib, put there by the Windows NVIDIA driver. "
            "Do not install a Linux NVIDIA driver inside WSL; update the driver on the Windows side.",
        )
    if system.os != "Linux":
        return warn(
            "platform",
            "platform_unknown",
            f"{system.os} is not a platform TensorFlow builds GPU wheels for",
        )
    return ok("platform", f"Linux {system.arch}")


def _minor(version: str) -> tuple[int, int]:
    try:
        v = Version(version)
    except InvalidVersion:
        return (0, 0)
    return (v.major, v.minor)


@check("python", "Python version is supported by TensorFlow")
def python(snapshot: Snapshot, matrix: Matrix) -> Finding:
    py = snapshot.system.python_version
    target = snapshot.target
    exe = target.python_executable or snapshot.system.python_executable
    problem = target.error or snapshot.packages.error
    if problem:
        # Never judge with gpucheck's own facts: say what the target is and why it is unusable.
        if not py:
            fix = f"point --python at a Python interpreter; {_python_to_install(snapshot, matrix)}"
            if target.chosen_by in ("virtual_env", "conda_env"):
                env = os.path.dirname(os.path.dirname(exe))
                fix = (
                    f"the active environment {env} has no working Python: recreate it "
                    f"(python3 -m venv {env}) or deactivate it; or pass --python PATH"
                )
            return fail(
                "python",
                "python_unusable",
                f"{exe} did not report a Python version: it cannot be diagnosed",
                problem,
                fix,
            )
        from tf_gpucheck.recommend import recommend

        rec = recommend(snapshot, matrix)
        best = (
            f"the newest TensorFlow for Python {py} is {rec.release.version}" if rec.release else ""
        )
        return fail(
            "python",
            "python_unusable",
            f"Python {py} at {exe} could not be queried" + (f"; {best}" if best else ""),
            problem,
            f'{exe} -c "import sys; print(sys.prefix)"  # must run cleanly: fix what stops it '
            "(a broken sitecustomize, PYTHONPATH or environment), or point --python elsewhere",
        )
    if not py:
        return skip("python", "the interpreter did not report its version")
    row = facts.release(snapshot, matrix)
    installed = facts.tf_version(snapshot)
    if row is not None:
        if row.supports_python(py):
            return ok(
                "python", f"Python {py} is supported by TensorFlow {installed} ({row.python})"
            )
        return warn(
            "python",
            "python_unsupported",
            f"Python {py} is outside TensorFlow {installed}'s tested range {row.python}",
            "TensorFlow publishes wheels only for the Python versions it was tested with.",
            f"use a Python in {row.python}, or a TensorFlow release that supports Python {py}",
        )
    if installed is None:
        supporting = [r for r in matrix.newest_first() if r.supports_python(py)]
        if not supporting:
            return fail(
                "python",
                "python_unsupported",
                f"no TensorFlow release in gpucheck's table supports Python {py}",
                fix=_python_to_install(snapshot, matrix),
            )
        newest = matrix.newest_first()[0]
        if supporting[0] is not newest:
            return info(
                "python",
                f"Python {py}: the newest TensorFlow for it is {supporting[0].version} "
                f"(Python {newest.python} runs {newest.version})",
            )
        return ok("python", f"Python {py}: the newest TensorFlow for it is {supporting[0].version}")
    return info(
        "python",
        f"TensorFlow {installed} is not in gpucheck's table; Python {py} not checked",
    )


# --- TensorFlow itself ---------------------------------------------------------------------


@check("tf_install", "One TensorFlow distribution with GPU support is installed")
def tf_install(snapshot: Snapshot, matrix: Matrix) -> Finding:
    packages = snapshot.packages
    if packages.error:
        return skip("tf_install", "the interpreter's packages could not be read (see python)")
    main = facts.main_distributions(snapshot)
    names = [d.name for d in main]
    listing = ", ".join(f"{d.name} {d.version}" for d in packages.tensorflow)
    if not main:
        from tf_gpucheck.recommend import recommend
        from tf_gpucheck.target import describe

        rec = recommend(snapshot, matrix)
        target = snapshot.target
        where = describe(target.python_executable, target.prefix, target.chosen_by)
        details = [f"Interpreter: {snapshot.system.python_executable} ({where})"]
        details += [f"- {reason}" for reason in rec.reasons]
        if target.chosen_by == "gpucheck" and facts.isolated_tool_environment(target.prefix):
            # Never install TensorFlow into gpucheck's own pipx / uv tool environment.
            return fail(
                "tf_install",
                "tf_not_installed",
                "no environment to diagnose: gpucheck runs from its own isolated environment "
                "(pipx / uv tool), which has no TensorFlow",
                "\n".join(details),
                "activate your project's virtual environment (source .venv/bin/activate) and run "
                "gpucheck again, or: gpucheck doctor --python /path/to/project/python",
            )
        if rec.command:
            fix = rec.command
        elif rec.python_upgrade and snapshot.system.os == "Windows":
            fix = (
                f"use Python {rec.python_upgrade} for native-Windows GPU support "
                '(pip install "tensorflow<2.11"), or WSL2 for current releases'
            )
        elif rec.python_upgrade:
            extra = "[and-cuda]" if snapshot.system.os == "Linux" else ""
            fix = f'use Python {rec.python_upgrade}, then: pip install "tensorflow{extra}"'
        else:
            fix = 'pip install "tensorflow[and-cuda]"'
        return fail(
            "tf_install",
            "tf_not_installed",
            "TensorFlow is not installed in this Python",
            "\n".join(details),
            fix,
        )
    if snapshot.system.os == "Windows" and set(names) == {"tensorflow", "tensorflow-intel"}:
        names = ["tensorflow"]  # tensorflow depends on tensorflow-intel on Windows (2.12-2.15)
    if len(names) > 1:
        return fail(
            "tf_install",
            "multiple_tf_distributions",
            f"{len(names)} TensorFlow distributions are installed at once: {', '.join(names)}",
            f"They all write the same `tensorflow` package; whichever was installed last wins. Installed: {listing}",
            _uninstall_and_install(snapshot, matrix, names),
        )
    name = names[0]
    if name in facts.CPU_ONLY_DISTRIBUTIONS:
        return fail(
            "tf_install",
            "tf_cpu_only_build",
            f"{name} is installed: it has no GPU support",
            matrix.fact("tensorflow_cpu_no_gpu").summary,
            _uninstall_and_install(snapshot, matrix, [name]),
        )
    if name == "tensorflow-gpu":
        return warn(
            "tf_install",
            "tensorflow_gpu_deprecated",
            "tensorflow-gpu is deprecated",
            matrix.fact("tensorflow_gpu_deprecated").summary,
            _uninstall_and_install(snapshot, matrix, ["tensorflow-gpu"]),
        )
    return ok("tf_install", f"{listing}")


@check("tf_import", "TensorFlow imports and starts")
def tf_import(snapshot: Snapshot, matrix: Matrix) -> Finding:
    tf = snapshot.tensorflow
    if not tf.probed:
        return skip("tf_import", "TensorFlow was not imported (--no-tf)")
    if tf.installed is False:
        return skip("tf_import", "TensorFlow is not installed")
    log_tail = "\n".join(tf.log[-8:])
    if tf.timed_out:
        return fail(
            "tf_import",
            "tf_probe_timeout",
            tf.error or "TensorFlow did not finish starting",
            f"Last log lines:\n{log_tail}",
            "gpucheck doctor --timeout 600  # or look for a hung driver in dmesg",
        )
    if tf.returncode is not None and tf.returncode < 0:
        if tf.returncode == -4:  # SIGILL
            return fail(
                "tf_import",
                "cpu_unsupported",
                "TensorFlow crashed with an illegal instruction",
                "Official TensorFlow wheels need a CPU with AVX. CPU features: "
                + (" ".join(snapshot.system.cpu_features) or "unknown"),
                remedies.remedy_for("cpu_unsupported", snapshot, matrix),
            )
        return fail(
            "tf_import",
            "tf_crashed",
            tf.error or "TensorFlow crashed",
            f"Last log lines:\n{log_tail}",
            f"{snapshot.target.python_executable or 'python'} -X faulthandler -c "
            '"import tensorflow as tf; tf.config.list_physical_devices()"  # shows where it crashes',
        )
    if tf.error:
        summary = " ".join(tf.error.split())  # one line: the error may span several
        if len(summary) > 240:
            summary = summary[:237] + "..."
        return fail(
            "tf_import",
            "tf_import_failed",
            summary,
            f"{tf.error}\nLast log lines:\n{log_tail}",
            remedies.remedy_for("tf_import_failed", snapshot, matrix),
        )
    return ok("tf_import", f"TensorFlow {tf.version} imports in {tf.import_seconds or 0:.1f} s")


@check("tf_build", "TensorFlow was built with CUDA")
def tf_build(snapshot: Snapshot, matrix: Matrix) -> Finding:
    cuda_build = facts.is_cuda_build(snapshot)
    if cuda_build is None:
        why = "it was not imported" if not snapshot.tensorflow.probed else "it did not import"
        return skip("tf_build", f"TensorFlow's build is unknown ({why})")
    inferred = facts.build_inferred(snapshot)
    if inferred is not None:
        row = facts.release(snapshot, matrix)
        built = f" with CUDA {row.cuda} and cuDNN {row.cudnn}" if row and row.cuda else ""
        return info(
            "tf_build",
            f"TensorFlow did not report its build; the {inferred} wheel for Linux x86_64 is built{built}",
            "The later checks judge the libraries against that build.",
        )
    if facts.build_value(snapshot, "is_rocm_build") is True:
        return fail(
            "tf_build",
            "tf_cpu_only_build",
            "this TensorFlow is built for AMD ROCm, not CUDA",
            fix=_uninstall_and_install(
                snapshot, matrix, [d.name for d in facts.main_distributions(snapshot)]
            ),
        )
    if not cuda_build:
        return fail(
            "tf_build",
            "tf_cpu_only_build",
            "this TensorFlow is a CPU-only build: it cannot use any GPU",
            f"Installed: {', '.join(d.name + ' ' + d.version for d in snapshot.packages.tensorflow)}",
            _uninstall_and_install(
                snapshot, matrix, [d.name for d in facts.main_distributions(snapshot)]
            ),
        )
    cuda = facts.build_cuda(snapshot, matrix) or "?"
    cudnn = facts.build_cudnn(snapshot, matrix) or "?"
    if not snapshot.tensorflow.probed:
        return info(
            "tf_build",
            f"not imported (--no-tf): TensorFlow {facts.tf_version(snapshot)}'s Linux wheel is "
            f"built with CUDA {cuda} and cuDNN {cudnn} (compat_matrix.yaml)",
        )
    return ok("tf_build", f"built with CUDA {cuda} and cuDNN {cudnn}")


# --- the driver ----------------------------------------------------------------------------


@check("nvidia_driver", "NVIDIA driver is present and answers", gpu=True)
def nvidia_driver(snapshot: Snapshot, matrix: Matrix) -> Finding:
    nvml = snapshot.nvml
    if snapshot.system.os == "Darwin":
        return skip("nvidia_driver", "no NVIDIA driver exists for macOS")
    if nvml.available:
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
    cpu_note = "TensorFlow will run on the CPU."
    seen = facts.tf_gpus(snapshot)
    others = [f for f in snapshot.frameworks.frameworks if f.gpu_usable]
    if seen or others or logscan.shows_working_driver(snapshot.tensorflow.log):
        # CUDA reached the GPU (TensorFlow, or PyTorch/JAX): the driver works, NVML did not answer
        how = (
            f"TensorFlow uses {len(seen)} GPU(s)"
            if seen
            else f"{facts.framework_label(others[0])} uses the GPU"
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
        what = (
            "no NVIDIA driver: NVML library not found"
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
    if toolkit and facts.driver_supports(driver, toolkit):
        return ok(
            "driver_version", f"driver {driver} >= {toolkit}, the minimum for CUDA {cuda}", details
        )
    upgrade = f"upgrade the NVIDIA driver to {toolkit or floor} or newer"
    if floor and facts.driver_supports(driver, floor):
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


def _unmet_pins(snapshot: Snapshot) -> tuple[list[str], list[str]]:
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


# --- the GPUs ------------------------------------------------------------------------------


@check("gpu_visibility", "CUDA_VISIBLE_DEVICES leaves GPUs visible", gpu=True)
def gpu_visibility(snapshot: Snapshot, matrix: Matrix) -> Finding:
    visible, value = facts.visible_gpus(snapshot)
    if value is None:
        return ok("gpu_visibility", "CUDA_VISIBLE_DEVICES is not set: every GPU is visible")
    if not snapshot.nvml.gpus:
        return skip(
            "gpu_visibility",
            f"CUDA_VISIBLE_DEVICES={value!r}, but the driver lists no GPU to compare",
        )
    if not visible:
        return fail(
            "gpu_visibility",
            "gpu_hidden_by_env",
            f"CUDA_VISIBLE_DEVICES={value!r} hides every GPU from TensorFlow",
            f"The driver sees {len(snapshot.nvml.gpus)} GPU(s); CUDA shows a process only those listed "
            "in CUDA_VISIBLE_DEVICES, up to the first entry that names no GPU.",
            remedies.remedy_for("gpu_hidden_by_env", snapshot, matrix),
        )
    shown = ", ".join(str(g.index) for g in visible)
    if len(visible) < len(snapshot.nvml.gpus):
        return info(
            "gpu_visibility",
            f"CUDA_VISIBLE_DEVICES={value!r}: TensorFlow may use GPU {shown} "
            f"of {len(snapshot.nvml.gpus)}",
        )
    return ok("gpu_visibility", f"CUDA_VISIBLE_DEVICES={value!r} shows every GPU")


@check("compute_capability", "Each GPU's compute capability is supported by the build", gpu=True)
def compute_capability(snapshot: Snapshot, matrix: Matrix) -> Finding:
    visible, _ = facts.visible_gpus(snapshot)
    if not visible or facts.is_cuda_build(snapshot) is not True:
        return skip("compute_capability", "no visible GPU, or not a CUDA build")
    found = facts.compute_capabilities(snapshot, matrix)
    if found is None:
        return skip("compute_capability", "the build's compute capabilities are unknown")
    caps, origin = found
    worst: Finding | None = None
    lines = [f"Build ships: {' '.join(caps)} (from {origin})"]
    unknown = [gpu for gpu in visible if not gpu.compute_capability]
    if len(unknown) == len(visible):
        return info(
            "compute_capability",
            "the GPUs' compute capability is unknown (the driver did not report it): not checked",
            lines[0],
        )
    for gpu in unknown:
        lines.append(f"GPU {gpu.index} {gpu.name}: compute capability unknown, not checked")
    for gpu in visible:
        if not gpu.compute_capability:
            continue
        fit = facts.fit(gpu.compute_capability, caps)
        label = f"GPU {gpu.index} {gpu.name} (compute capability {gpu.compute_capability})"
        lines.append(f"{label}: {fit.kind}{' via ' + fit.via if fit.via else ''}")
        finding: Finding | None = None
        if fit.kind == "ptx":
            finding = warn(
                "compute_capability",
                "ptx_jit_required",
                f"{label}: no binary kernels, CUDA JIT-compiles {fit.via} PTX on first use (can take 30 minutes or more)",
                fix=remedies.remedy_for("ptx_jit_required", snapshot, matrix),
            )
        elif fit.kind == "too_old":
            finding = fail(
                "compute_capability",
                "compute_capability_too_old",
                f"{label} is older than this build supports: TensorFlow ignores it",
                fix=_older_release_fix(snapshot, matrix, gpu.compute_capability),
            )
        elif fit.kind == "unsupported":
            finding = fail(
                "compute_capability",
                "compute_capability_unsupported",
                f"{label}: this build has neither kernels nor PTX for it",
                fix=f'pip install -U "tensorflow[and-cuda]"  # a newer build may ship sm_{gpu.compute_capability.replace(".", "")}',
            )
        if finding and (worst is None or finding.status.severity > worst.status.severity):
            worst = finding
    details = "\n".join(lines)
    if worst is not None:
        return Finding(worst.check, worst.status, worst.summary, details, worst.fix, worst.cause)
    if unknown:
        return info(
            "compute_capability",
            f"{len(visible) - len(unknown)} GPU(s) have binary kernels in this build; "
            f"{len(unknown)} of unknown compute capability not checked",
            details,
        )
    return ok("compute_capability", "every visible GPU has binary kernels in this build", details)


def _older_release_fix(snapshot: Snapshot, matrix: Matrix, capability: str) -> str:
    for row in matrix.newest_first():
        caps = row.compute_capabilities
        if caps and facts.fit(capability, [*caps.sass, *caps.ptx]).kind == "native":
            return f"{facts.install_command(row, snapshot)}  # the newest release with kernels for {capability}"
    return f"no TensorFlow release in gpucheck's table ships kernels for compute capability {capability}"


_FIND_WHY = (
    "run your program with TF_CPP_MIN_LOG_LEVEL=0 and read its log with gpucheck explain "
    "(or add it here: gpucheck doctor --log FILE)"
)


@check("tf_gpus", "TensorFlow sees every visible GPU", gpu=True)
def tf_gpus(snapshot: Snapshot, matrix: Matrix) -> Finding:
    visible, _ = facts.visible_gpus(snapshot)
    if not snapshot.tensorflow.probed or snapshot.tensorflow.installed is not True:
        return skip("tf_gpus", "TensorFlow was not imported")
    seen = facts.tf_gpus(snapshot)
    if not visible:
        if seen:
            return ok("tf_gpus", f"TensorFlow sees {len(seen)} GPU(s)")
        if not snapshot.nvml.gpus and logscan.shows_gpu(snapshot.tensorflow.log):
            return fail(
                "tf_gpus",
                "tf_sees_fewer_gpus",
                "TensorFlow's log shows a GPU, but TensorFlow created no GPU device",
                "The driver did not list the GPU to gpucheck; TensorFlow's own log did.",
                _FIND_WHY,
            )
        return skip("tf_gpus", "no GPU is visible to compare with")
    if len(seen) >= len(visible):
        return ok("tf_gpus", f"TensorFlow sees all {len(visible)} visible GPU(s)")
    reasons = [
        f"{line.rule.explanation}: {line.message}"
        for line in logscan.classify_cached(snapshot.tensorflow.log)
        if line.rule and line.rule.kind in ("actionable", "no_gpu")
    ]
    details = (
        "Why, from TensorFlow's log:\n" + "\n".join(reasons)
        if reasons
        else "TensorFlow's log gives no reason."
    )
    return fail(
        "tf_gpus",
        "tf_sees_fewer_gpus",
        f"the driver shows {len(visible)} GPU(s), TensorFlow sees {len(seen)}",
        details,
        _FIND_WHY,
    )


@check("xla", "XLA can compile for the GPU (ptxas, libdevice)", gpu=True)
def xla(snapshot: Snapshot, matrix: Matrix) -> Finding:
    if (
        not snapshot.nvml.gpus
        or facts.is_cuda_build(snapshot) is not True
        or not snapshot.libraries.probed
    ):
        return skip("xla", "no GPU or not a CUDA build")
    log_says = [
        line
        for line in logscan.classify_cached(snapshot.tensorflow.log)
        if line.rule and line.rule.cause in ("xla_libdevice_missing", "xla_ptxas_missing")
    ]
    libdevice, ptxas = snapshot.libraries.libdevice, snapshot.libraries.ptxas
    fix = remedies.remedy_for("xla_libdevice_missing", snapshot, matrix)
    if libdevice is None:
        status = fail if log_says else warn
        return status(
            "xla",
            "xla_libdevice_missing",
            "libdevice.10.bc not found: jit_compile=True will fail on the GPU",
            "Looked in the pip nvidia-cuda-nvcc wheel, --xla_gpu_cuda_data_dir and CUDA_HOME/nvvm/libdevice.",
            fix,
        )
    if ptxas is None:
        return warn(
            "xla",
            "xla_ptxas_missing",
            "ptxas not found: XLA falls back to the driver's PTX compiler",
            f"libdevice: {libdevice}",
            fix,
        )
    return ok("xla", "ptxas and libdevice found", f"ptxas: {ptxas}\nlibdevice: {libdevice}")


@check("cuda_wheels", "pip CUDA wheels satisfy TensorFlow's and-cuda pins", gpu=True)
def cuda_wheels(snapshot: Snapshot, matrix: Matrix) -> Finding:
    pins = snapshot.packages.and_cuda_requirements
    if not pins:
        return skip("cuda_wheels", "this TensorFlow has no and-cuda extra")
    if not snapshot.packages.nvidia:
        return skip(
            "cuda_wheels", "no pip nvidia-* wheels: the CUDA libraries come from the system"
        )
    unmet, wanted = _unmet_pins(snapshot)
    if not unmet:
        return ok("cuda_wheels", f"the pip CUDA wheels satisfy all {len(pins)} and-cuda pins")
    return fail(
        "cuda_wheels",
        "and_cuda_pins_unmet",
        f"{len(unmet)} pip CUDA wheel{'s' if len(unmet) != 1 else ''} do not match TensorFlow's "
        f"and-cuda pins: {unmet[0]}",
        "TensorFlow "
        + (facts.tf_version(snapshot) or "")
        + " was built against these versions; pip does not enforce an extra's pins once "
        "another install changed a wheel.\n" + "\n".join(unmet),
        facts.with_target_pip("pip install " + " ".join(f'"{w}"' for w in wanted), snapshot),
    )


@check("keras", "Keras matches TensorFlow")
def keras(snapshot: Snapshot, matrix: Matrix) -> Finding:
    version = facts.tf_version(snapshot)
    if not version:
        return skip("keras", "TensorFlow is not installed")
    tf_minor = _minor(version)
    keras_version = snapshot.packages.keras
    tf_keras = snapshot.packages.tf_keras
    legacy = (snapshot.system.env.get("TF_USE_LEGACY_KERAS") or "").lower() in ("1", "true", "yes")
    if tf_minor < (2, 6):
        return skip("keras", f"TensorFlow {version} bundles its own Keras")
    if tf_minor >= (2, 16):
        if legacy:
            if tf_keras is None or _minor(tf_keras) != tf_minor:
                return fail(
                    "keras",
                    "keras_mismatch",
                    f"TF_USE_LEGACY_KERAS is set but tf-keras {tf_keras or 'is not installed'}",
                    "With TF_USE_LEGACY_KERAS=1, tf.keras is the tf-keras package, whose version must match TensorFlow's.",
                    f'pip install "tf-keras~={tf_minor[0]}.{tf_minor[1]}.0"',
                )
            return ok("keras", f"tf-keras {tf_keras} (TF_USE_LEGACY_KERAS)")
        if keras_version is None or _minor(keras_version)[0] < 3:
            return fail(
                "keras",
                "keras_mismatch",
                f"TensorFlow {version} needs Keras 3, found {keras_version or 'none'}",
                "Since TensorFlow 2.16, tf.keras is Keras 3.",
                'pip install "keras>=3"',
            )
        return ok(
            "keras",
            f"Keras {keras_version} (Keras 3, as TensorFlow {tf_minor[0]}.{tf_minor[1]} expects)",
        )
    if keras_version is None or _minor(keras_version) != tf_minor:
        return fail(
            "keras",
            "keras_mismatch",
            f"TensorFlow {version} needs Keras {tf_minor[0]}.{tf_minor[1]}, found {keras_version or 'none'}",
            "Up to TensorFlow 2.15, tf.keras is the keras package of the same minor version.",
            f'pip install "keras~={tf_minor[0]}.{tf_minor[1]}.0"',
        )
    return ok("keras", f"Keras {keras_version} matches TensorFlow {version}")


@check("gpu_matmul", "A small matrix product on each GPU matches the CPU's", gpu=True)
def gpu_matmul(snapshot: Snapshot, matrix: Matrix) -> Finding:
    ops = snapshot.tensorflow.ops
    cpu = next((op for op in ops if "CPU" in op.device and op.ok), None)
    gpu_ops = [op for op in ops if "GPU" in op.device]
    if not gpu_ops:
        return skip("gpu_matmul", "no GPU device to run on")
    for op in gpu_ops:
        if not op.ok:
            return fail(
                "gpu_matmul",
                "gpu_op_failed",
                f"the test product failed on {op.device}",
                op.error or "",
            )
        if (
            cpu
            and cpu.checksum
            and op.checksum is not None
            and abs(op.checksum - cpu.checksum) > 1e-3 * abs(cpu.checksum)
        ):
            return fail(
                "gpu_matmul",
                "gpu_result_mismatch",
                f"{op.device} computed {op.checksum:g}, the CPU {cpu.checksum:g}",
                "A wrong result on the GPU points at faulty hardware, a broken driver or overclocking.",
            )
    timings = ", ".join(
        f"{op.device} {op.seconds * 1e3:.1f} ms" for op in gpu_ops if op.seconds is not None
    )
    return ok("gpu_matmul", f"{len(gpu_ops)} GPU(s) computed the same product as the CPU", timings)


@check(
    "other_frameworks",
    "Other frameworks (PyTorch, JAX, CuPy) on the GPU: evidence about the driver",
)
def other_frameworks(snapshot: Snapshot, matrix: Matrix) -> Finding:
    """Another framework using the GPU proves the driver and the GPU work; none seeing it points
    to the driver or the machine. Facts only: the diagnosis links them to TensorFlow's symptoms."""
    probed = snapshot.frameworks
    if not probed.probed:
        return skip("other_frameworks", f"not probed: {probed.reason or 'no reason recorded'}")
    found = list(probed.frameworks)
    details = "\n".join(facts.framework_evidence(f) for f in found)
    using = [f for f in found if f.gpu_usable]
    if using:
        names = facts.join_names([facts.framework_label(f) for f in using])
        verb = "uses" if len(using) == 1 else "use"
        return info(
            "other_frameworks",
            f"{names} {verb} the GPU here, so the driver and the GPU work",
            details,
        )
    tried = [f for f in found if f.built_with_cuda is not False and f.gpu_usable is False]
    if not tried:
        cpu_only = [f for f in found if f.built_with_cuda is False]
        if cpu_only and len(cpu_only) == len(found):
            names = facts.join_names([facts.framework_label(f) for f in cpu_only])
            return skip(
                "other_frameworks",
                f"{names}: {'a CPU-only build' if len(cpu_only) == 1 else 'CPU-only builds'}, "
                "no evidence about the GPU",
                details,
            )
        return skip("other_frameworks", "no other framework could be asked about the GPU", details)
    names = facts.join_names([facts.framework_label(f) for f in tried])
    verb = "does" if len(tried) == 1 else "do"
    if facts.gpu_usable(snapshot):
        return info(
            "other_frameworks",
            f"{names} {verb} not see the GPU, though TensorFlow does: the problem is in "
            f"{'its' if len(tried) == 1 else 'their'} own build or libraries",
            details,
        )
    either = " either" if snapshot.tensorflow.probed and snapshot.tensorflow.installed else ""
    return info(
        "other_frameworks",
        f"{names} {verb} not see the GPU{either}: that points to the driver or the machine",
        details,
        cause="other_frameworks_no_gpu",
    )


@check("tf_config", "TF_CONFIG describes a multi-worker cluster this host belongs to")
def tf_config(snapshot: Snapshot, matrix: Matrix) -> Finding:
    from tf_gpucheck.checks.multiworker import judge_tf_config

    return judge_tf_config(snapshot)


@check("tf_log", "TensorFlow's start-up log")
def tf_log(snapshot: Snapshot, matrix: Matrix) -> Finding:
    if not snapshot.tensorflow.log:
        return skip("tf_log", "no log captured")
    expect_gpu = facts.gpu_expected(snapshot)
    lines = logscan.classify_cached(snapshot.tensorflow.log)
    actionable = [
        line
        for line in lines
        if line.rule
        and (line.rule.kind == "actionable" or (line.rule.kind == "no_gpu" and expect_gpu))
    ]
    described = []
    for line in lines:
        if line.rule is None:
            continue
        label: str = line.rule.kind
        if label == "no_gpu":
            label = "actionable" if expect_gpu else "expected without a GPU"
        described.append(f"[{label}] {line.message}\n    -> {line.rule.explanation}")
    details = "\n".join(described)
    harmless = sum(1 for line in lines if line.rule and line.rule.kind == "harmless")
    if actionable:
        first = actionable[0]
        assert first.rule is not None
        return warn(
            "tf_log",
            first.rule.cause or "log_actionable",
            f"{len(actionable)} actionable line(s), first: {first.rule.explanation}",
            details,
        )
    return ok(
        "tf_log",
        f"nothing actionable ({harmless} known harmless line(s), {len(lines)} in all)",
        details,
    )


def check_ids() -> list[str]:
    return [c.id for c in REGISTRY]
