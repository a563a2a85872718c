"""The bottom layer: the operating system and the Python version."""

from __future__ import annotations

import os

from packaging.version import InvalidVersion, Version

from tf_gpucheck.checks import facts, remedies
from tf_gpucheck.checks.findings import Finding, fail, info, ok, skip, warn
from tf_gpucheck.checks.registry import check
from tf_gpucheck.installer import commands, intent
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import Snapshot


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
            intent.install(
                "tensorflow", "tensorflow-metal", note="Apple GPUs through Metal instead"
            ),
        )
    if system.os == "Windows":
        last = matrix.fact("windows_native_last_gpu").value or "2.10"
        if version and minor_version(version) > minor_version(last):
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
    if not system.os and facts.stated_only(snapshot):
        return skip("platform", "the text does not state the OS")
    if system.os != "Linux":
        return warn(
            "platform",
            "platform_unknown",
            f"{system.os} is not a platform TensorFlow builds GPU wheels for",
        )
    return ok("platform", f"Linux {system.arch}")


def minor_version(version: str) -> tuple[int, int]:
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
                fix = commands.recreate_or_deactivate(env)
            if problem.startswith("the virtual environment "):
                env = os.path.dirname(os.path.dirname(exe))
                return fail(
                    "python",
                    "python_unusable",
                    f"a broken virtual environment: {env}'s Python is gone",
                    problem,
                    commands.recreate_venv(env),
                )
            return fail(
                "python",
                "python_unusable",
                f"{exe} did not report a Python version: it cannot be diagnosed",
                problem,
                fix,
            )
        from tf_gpucheck.installer.recommend import recommend

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
