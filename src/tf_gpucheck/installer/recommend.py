"""The one resolver for "what should I install here": the newest TensorFlow release that the
target's Python, this OS, this driver and these GPUs can run, with the exact command.

``gpucheck matrix --recommend`` prints it, and every doctor fix that installs TensorFlow uses it,
so a fix never names a release that pip would refuse for the target's Python.
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from tf_gpucheck.installer import commands, intent, writer
from tf_gpucheck.installer.intent import Fix
from tf_gpucheck.matrix import Matrix, TfRelease, driver_supports
from tf_gpucheck.matrix import driver_floor as matrix_driver_floor
from tf_gpucheck.matrix import fit as capability_fit
from tf_gpucheck.snapshot import Snapshot


@dataclass(frozen=True)
class Recommendation:
    release: TfRelease | None
    command: str | None
    reasons: tuple[str, ...]
    """Why this release (and why not newer ones)."""
    driver_upgrade: str | None = None
    """The driver to install first (or to reach the newest release), when the current one falls short."""
    python_upgrade: str | None = None
    """The Python to install when the target's is too old or too new for the newest release."""
    plan: Fix | None = None
    """``command`` as a value."""


def _gpu_fit(row: TfRelease, snapshot: Snapshot) -> tuple[bool, list[str]]:
    caps = row.compute_capabilities
    notes: list[str] = []
    if caps is None:
        return True, notes
    ok = True
    for gpu in snapshot.nvml.gpus:
        if not gpu.compute_capability:
            continue
        fit = capability_fit(gpu.compute_capability, [*caps.sass, *caps.ptx])
        if fit.kind in ("too_old", "unsupported"):
            ok = False
        elif fit.kind == "ptx":
            notes.append(
                f"GPU {gpu.index} ({gpu.compute_capability}) runs {fit.via} PTX: slow first start (JIT)"
            )
    return ok, notes


def _minor_of(version: str | None) -> tuple[int, int] | None:
    try:
        v = Version(version or "")
    except InvalidVersion:
        return None
    return (v.major, v.minor)


def recommend(snapshot: Snapshot, matrix: Matrix, *, prefer: str | None = None) -> Recommendation:
    """The release to install. ``prefer`` (an installed version such as "2.15.1") wins when it
    runs here, so a fix keeps the user's release instead of upgrading it behind their back."""
    system = snapshot.system
    if system.os == "Darwin":
        plan = intent.install("tensorflow", "tensorflow-metal")
        return Recommendation(
            None,
            writer.write(plan, snapshot),
            (matrix.fact("macos_no_cuda").summary,),
            plan=plan,
        )
    candidates = [r for r in matrix.newest_first() if r.cuda]
    if not candidates:
        return Recommendation(None, None, ("the compatibility table has no GPU release",))
    newest_overall = candidates[0]
    reasons: list[str] = []
    if system.os == "Windows":
        last = matrix.fact("windows_native_last_gpu").value or "2.10"
        candidates = [
            r for r in candidates if r.minor <= Version(last).release[:2] and r.windows_native_cuda
        ]
        reasons.append(
            f"native Windows: GPU support ends with TensorFlow {last}; "
            f"under WSL2 you could use {newest_overall.version}"
        )
    python = system.python_version
    if not python:
        why = snapshot.target.error or "it did not report its version"
        return Recommendation(
            None,
            None,
            (*reasons, f"cannot tell which TensorFlow fits this interpreter: {why}"),
            python_upgrade=newest_overall.newest_python,
        )
    python_ok = [r for r in candidates if r.supports_python(python)]
    if not python_ok:
        newest = candidates[0] if candidates else newest_overall
        return Recommendation(
            None,
            None,
            (
                *reasons,
                f"no TensorFlow release with GPU support runs on Python {python}; "
                f"TensorFlow {newest.version} supports Python {newest.python}",
            ),
            python_upgrade=newest.newest_python,
        )
    python_upgrade = None
    if python_ok[0] is not candidates[0]:
        python_upgrade = candidates[0].newest_python
        reasons.append(
            f"Python {python}: the newest release for it is {python_ok[0].version} "
            f"(Python {python_upgrade} runs {candidates[0].version})"
        )
    ordered = python_ok
    wanted = _minor_of(prefer)
    preferred = next((r for r in python_ok if r.minor == wanted), None)
    if preferred is not None:
        ordered = [preferred, *[r for r in python_ok if r is not preferred]]
    return _for_driver(snapshot, matrix, ordered, python_ok[0], reasons, python_upgrade)


def _for_driver(
    snapshot: Snapshot,
    matrix: Matrix,
    ordered: list[TfRelease],
    newest: TfRelease,
    reasons: list[str],
    python_upgrade: str | None,
) -> Recommendation:
    nvml = snapshot.nvml
    first = ordered[0]

    def made(row: TfRelease, why: list[str], driver_upgrade: str | None) -> Recommendation:
        plan = commands.install_command(row, snapshot, matrix.linux_wheel_pip(row))
        return Recommendation(
            row,
            writer.write(plan, snapshot),
            (*reasons, *why),
            driver_upgrade=driver_upgrade,
            python_upgrade=python_upgrade,
            plan=plan,
        )

    if not nvml.available or not nvml.driver_version:
        toolkit, floor = matrix_driver_floor(
            matrix, first.cuda or "", windows=snapshot.system.os == "Windows"
        )
        return made(
            first,
            [f"no NVIDIA driver answered ({nvml.error}); install one first"],
            toolkit or floor,
        )
    driver = nvml.driver_version
    best_compat: TfRelease | None = None
    for row in ordered:
        toolkit, floor = matrix_driver_floor(
            matrix, row.cuda or "", windows=snapshot.system.os == "Windows"
        )
        gpus_ok, gpu_notes = _gpu_fit(row, snapshot)
        if not gpus_ok:
            continue
        if toolkit and driver_supports(driver, toolkit):
            upgrade = None
            why = [f"driver {driver} fully supports CUDA {row.cuda}", *gpu_notes]
            if row is not newest and row is not first:
                newest_toolkit, _ = matrix_driver_floor(
                    matrix, newest.cuda or "", windows=snapshot.system.os == "Windows"
                )
                why.insert(
                    0,
                    f"TensorFlow {newest.version} needs CUDA {newest.cuda} (driver >= {newest_toolkit})",
                )
                upgrade = newest_toolkit
            return made(row, why, upgrade)
        if best_compat is None and floor and driver_supports(driver, floor):
            best_compat = row
    if best_compat is not None:
        toolkit, _floor = matrix_driver_floor(
            matrix, best_compat.cuda or "", windows=snapshot.system.os == "Windows"
        )
        return made(
            best_compat,
            [
                f"driver {driver} runs CUDA {best_compat.cuda} only through minor-version compatibility "
                "(no PTX JIT)"
            ],
            toolkit,
        )
    toolkit, floor = matrix_driver_floor(
        matrix, newest.cuda or "", windows=snapshot.system.os == "Windows"
    )
    return Recommendation(
        None,
        None,
        (*reasons, f"driver {driver} is too old for every release that fits these GPUs"),
        driver_upgrade=toolkit or floor,
        python_upgrade=python_upgrade,
    )
