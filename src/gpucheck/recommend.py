"""`gpucheck matrix --recommend`: the newest TensorFlow that will use this machine's GPU."""

from __future__ import annotations

from dataclasses import dataclass

from packaging.version import Version

from gpucheck.doctor import facts
from gpucheck.matrix import Matrix, TfRelease
from gpucheck.snapshot import Snapshot


@dataclass(frozen=True)
class Recommendation:
    release: TfRelease | None
    command: str | None
    reasons: tuple[str, ...]
    """Why this release (and why not newer ones)."""
    driver_upgrade: str | None = None
    """The driver to install first (or to reach the newest release), when the current one falls short."""


def _gpu_fit(row: TfRelease, snapshot: Snapshot) -> tuple[bool, list[str]]:
    caps = row.compute_capabilities
    notes: list[str] = []
    if caps is None:
        return True, notes
    ok = True
    for gpu in snapshot.nvml.gpus:
        if not gpu.compute_capability:
            continue
        fit = facts.fit(gpu.compute_capability, [*caps.sass, *caps.ptx])
        if fit.kind in ("too_old", "unsupported"):
            ok = False
        elif fit.kind == "ptx":
            notes.append(
                f"GPU {gpu.index} ({gpu.compute_capability}) runs {fit.via} PTX: slow first start (JIT)"
            )
    return ok, notes


def recommend(snapshot: Snapshot, matrix: Matrix) -> Recommendation:
    system = snapshot.system
    if system.os == "Darwin":
        return Recommendation(
            None, "pip install tensorflow tensorflow-metal", (matrix.fact("macos_no_cuda").summary,)
        )
    candidates = [r for r in matrix.newest_first() if r.cuda]
    reasons: list[str] = []
    if system.os == "Windows":
        last = matrix.fact("windows_native_last_gpu").value or "2.10"
        wsl_release = candidates[0].version if candidates else "?"
        candidates = [
            r for r in candidates if r.minor <= Version(last).release[:2] and r.windows_native_cuda
        ]
        reasons.append(
            f"native Windows: GPU support ends with TensorFlow {last}; "
            f"under WSL2 you could use {wsl_release}"
        )
    python_ok = [r for r in candidates if r.supports_python(system.python_version)]
    if not python_ok:
        return Recommendation(
            None,
            None,
            (
                *reasons,
                f"no GPU-capable TensorFlow release supports Python {system.python_version}",
            ),
        )
    if candidates and python_ok[0] is not candidates[0]:
        reasons.append(
            f"Python {system.python_version}: newest supported release is {python_ok[0].version}"
        )
    nvml = snapshot.nvml
    newest = python_ok[0]
    if not nvml.available or not nvml.driver_version:
        toolkit, floor = facts.driver_floor(snapshot, matrix, newest.cuda or "")
        return Recommendation(
            newest,
            facts.install_command(newest, snapshot),
            (*reasons, f"no NVIDIA driver answered ({nvml.error}); install one first"),
            driver_upgrade=toolkit or floor,
        )
    driver = nvml.driver_version
    best_compat: TfRelease | None = None
    for row in python_ok:
        toolkit, floor = facts.driver_floor(snapshot, matrix, row.cuda or "")
        gpus_ok, gpu_notes = _gpu_fit(row, snapshot)
        if not gpus_ok:
            continue
        if toolkit and facts.driver_supports(driver, toolkit):
            if row is not newest:
                newest_toolkit, _ = facts.driver_floor(snapshot, matrix, newest.cuda or "")
                reasons.append(
                    f"TensorFlow {newest.version} needs CUDA {newest.cuda} (driver >= {newest_toolkit})"
                )
                return Recommendation(
                    row,
                    facts.install_command(row, snapshot),
                    (*reasons, f"driver {driver} fully supports CUDA {row.cuda}", *gpu_notes),
                    driver_upgrade=newest_toolkit,
                )
            return Recommendation(
                row,
                facts.install_command(row, snapshot),
                (*reasons, f"driver {driver} fully supports CUDA {row.cuda}", *gpu_notes),
            )
        if best_compat is None and floor and facts.driver_supports(driver, floor):
            best_compat = row
    if best_compat is not None:
        toolkit, floor = facts.driver_floor(snapshot, matrix, best_compat.cuda or "")
        return Recommendation(
            best_compat,
            facts.install_command(best_compat, snapshot),
            (
                *reasons,
                f"driver {driver} runs CUDA {best_compat.cuda} only through minor-version compatibility "
                "(no PTX JIT)",
            ),
            driver_upgrade=toolkit,
        )
    toolkit, floor = facts.driver_floor(snapshot, matrix, newest.cuda or "")
    return Recommendation(
        None,
        None,
        (*reasons, f"driver {driver} is too old for every release that fits these GPUs"),
        driver_upgrade=toolkit or floor,
    )
