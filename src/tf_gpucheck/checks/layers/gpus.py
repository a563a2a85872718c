"""The GPUs: visible, supported by the build, seen by TensorFlow."""

from __future__ import annotations

import dataclasses

from tf_gpucheck.checks import facts, remedies
from tf_gpucheck.checks.findings import Finding, fail, info, ok, skip, warn
from tf_gpucheck.checks.registry import check
from tf_gpucheck.installer import commands, intent
from tf_gpucheck.installer.intent import Fix
from tf_gpucheck.matrix import Architecture, Matrix
from tf_gpucheck.matrix import fit as capability_fit
from tf_gpucheck.reading import logscan
from tf_gpucheck.snapshot import NvmlGpu, Snapshot

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
        predates = _gpus_newer_than_build(snapshot, matrix, visible)
        if predates is not None:
            return predates
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
    build_cuda = facts.build_cuda(snapshot, matrix)
    for gpu in visible:
        if not gpu.compute_capability:
            continue
        fit = capability_fit(gpu.compute_capability, caps)
        label = f"GPU {gpu.index} {gpu.name} (compute capability {gpu.compute_capability})"
        lines.append(f"{label}: {fit.kind}{' via ' + fit.via if fit.via else ''}")
        finding: Finding | None = None
        newer = _newer_than_cuda(matrix, gpu.compute_capability, build_cuda)
        if newer is not None:
            finding = _predates(snapshot, matrix, gpu, *newer)
        elif fit.kind == "ptx":
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
                fix=intent.install(
                    "tensorflow[and-cuda]",
                    options=("-U",),
                    note=f"a newer build may ship sm_{gpu.compute_capability.replace('.', '')}",
                ),
            )
        if finding and (worst is None or finding.status.severity > worst.status.severity):
            worst = finding
    details = "\n".join(lines)
    if worst is not None:
        return dataclasses.replace(worst, details=details)
    if unknown:
        return info(
            "compute_capability",
            f"{len(visible) - len(unknown)} GPU(s) have binary kernels in this build; "
            f"{len(unknown)} of unknown compute capability not checked",
            details,
        )
    return ok("compute_capability", "every visible GPU has binary kernels in this build", details)


def _gpus_newer_than_build(
    snapshot: Snapshot, matrix: Matrix, visible: list[NvmlGpu]
) -> Finding | None:
    """Without the build's kernel list: a GPU whose architecture is newer than the build's CUDA
    is judged anyway (the kernels cannot include it)."""
    cuda = facts.build_cuda(snapshot, matrix)
    for gpu in visible:
        newer = _newer_than_cuda(matrix, gpu.compute_capability or "", cuda)
        if newer is not None:
            return _predates(snapshot, matrix, gpu, *newer)
    return None


def _predates(
    snapshot: Snapshot, matrix: Matrix, gpu: NvmlGpu, arch: Architecture, cuda: str
) -> Finding:
    """The failure of a GPU whose architecture is newer than the CUDA the build was made with."""
    summary = (
        f"GPU {gpu.index} {gpu.name} (compute capability {gpu.compute_capability}): CUDA {cuda}, "
        f"which this TensorFlow was built with, predates {arch.name} (first supported in CUDA "
        f"{arch.first_cuda}): the build has no code for this GPU and that CUDA's libraries do not "
        "support it (at best the driver JIT-compiles PTX, slowly, if the build ships any)"
    )
    return fail(
        "compute_capability",
        "compute_capability_unsupported",
        summary,
        fix=_newer_release_fix(snapshot, matrix, gpu.compute_capability or ""),
    )


def _newer_than_cuda(
    matrix: Matrix, capability: str, cuda: str | None
) -> tuple[Architecture, str] | None:
    """The architecture row and the build's CUDA, when that CUDA is older than the first one
    NVIDIA's release notes say supports ``capability``."""
    arch = matrix.architecture(capability)
    if arch is None or not cuda:
        return None
    try:
        if _release(cuda) < _release(arch.first_cuda):
            return arch, cuda
    except ValueError:
        return None
    return None


def _release(version: str) -> tuple[int, int]:
    """A CUDA release's major and minor: ``8`` is 8.0 (the matrix writes TensorFlow 1.0's CUDA
    so), not older than it."""
    major, _, rest = version.partition(".")
    return int(major), int(rest.partition(".")[0] or 0)


def _newer_release_fix(snapshot: Snapshot, matrix: Matrix, capability: str) -> str | Fix:
    """The oldest TensorFlow release whose CUDA supports ``capability`` and that ships kernels
    or PTX for it."""
    arch = matrix.architecture(capability)
    for row in sorted(matrix.tensorflow, key=lambda r: r.minor):
        if not row.cuda or (arch and _release(row.cuda) < _release(arch.first_cuda)):
            continue
        caps = row.compute_capabilities
        if caps and capability_fit(capability, [*caps.sass, *caps.ptx]).kind in ("native", "ptx"):
            return commands.install_command(row, snapshot).also(
                f"TensorFlow {row.version} (CUDA {row.cuda}) runs compute capability {capability}"
            )
    return (
        f"no TensorFlow release in gpucheck's table runs compute capability {capability}: use a "
        "build made with a newer CUDA (NVIDIA's NGC TensorFlow container, or a source build)"
    )


def _older_release_fix(snapshot: Snapshot, matrix: Matrix, capability: str) -> str | Fix:
    for row in matrix.newest_first():
        caps = row.compute_capabilities
        if caps and capability_fit(capability, [*caps.sass, *caps.ptx]).kind == "native":
            return commands.install_command(row, snapshot).also(
                f"the newest release with kernels for {capability}"
            )
    return f"no TensorFlow release in gpucheck's table ships kernels for compute capability {capability}"


def _find_why(snapshot: Snapshot) -> str:
    return (
        "run your program with TF_CPP_MIN_LOG_LEVEL=0 and read its log with gpucheck explain "
        f"(or add it here: {commands.rerun(snapshot, 'doctor', '--log', 'FILE')})"
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
                _find_why(snapshot),
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
        _find_why(snapshot),
    )
