"""gpucheck doctor: every check over one snapshot, one verdict, the first thing to fix."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tf_gpucheck.checks import diagnosis, facts, remedies
from tf_gpucheck.checks.findings import Finding, Report, Status
from tf_gpucheck.checks.registry import REGISTRY, Check, check_ids
from tf_gpucheck.checks.requirements import Requirements, check_requirements
from tf_gpucheck.errors import GpucheckError
from tf_gpucheck.installer import writer
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import Snapshot

if TYPE_CHECKING:
    from tf_gpucheck.similar import Match

__all__ = [
    "Finding",
    "Report",
    "Requirements",
    "Status",
    "check_ids",
    "diagnose",
    "require_gpu",
    "run_checks",
    "select_checks",
]


def select_checks(ids: Sequence[str] | None) -> list[Check]:
    if not ids:
        return list(REGISTRY)
    known = {c.id: c for c in REGISTRY}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise GpucheckError(
            f"unknown check {unknown[0]!r}",
            reference="check-unknown",
            hint=f"one of: {', '.join(known)} (gpucheck doctor --list)",
        )
    return [known[i] for i in ids]


def run_checks(
    snapshot: Snapshot,
    matrix: Matrix,
    *,
    checks: Sequence[str] | None = None,
    allow_cpu: bool = False,
    strict: bool = False,
    requirements: Requirements | None = None,
    logs: Sequence[tuple[str, Sequence[str]]] = (),
    similar_exclude: str | None = None,
) -> Report:
    """Run the checks (all, or those named) over ``snapshot``, then the diagnosis over their
    findings, TensorFlow's log and ``logs`` ((label, lines) of the user's own program, as
    ``doctor --log`` reads them). One crashing check cannot hide the others."""
    usable = facts.gpu_usable(snapshot)
    findings = []
    for item in select_checks(checks):
        try:
            finding = item.function(snapshot, matrix)
        except Exception as exc:  # a bug in one check is a finding, not a crash
            finding = Finding(
                item.id,
                Status.FAIL,
                f"the check crashed: {type(exc).__name__}: {exc}",
                cause="check_crashed",
            )
        if allow_cpu and not usable and finding.status is Status.FAIL:
            finding = _allow_cpu(finding, gpu_check=item.gpu)
        if finding.plan is not None:
            finding = dataclasses.replace(
                finding,
                fix=writer.write(finding.plan, snapshot),
                fallbacks=tuple(writer.write(f, snapshot) for f in finding.alternatives),
            )

        findings.append(finding)
    if requirements is not None and requirements.any:
        findings += check_requirements(
            snapshot, matrix, requirements
        )  # demanded: never softened by --allow-cpu
    findings += _user_log_findings(logs, findings, matrix)
    known = diagnosis.Known.from_snapshot(snapshot)
    evidence = diagnosis.classify_evidence(
        _log_sources(snapshot, logs), gpu_expected=facts.gpu_expected(snapshot), known=known
    )
    result = diagnosis.diagnose(
        findings,
        evidence,
        fix_for=remedies.planned(known, matrix),
        witnesses=diagnosis.witness_names(snapshot.frameworks.frameworks),
    )
    matches = _similar(logs, similar_exclude)
    if logs and matches and not any(c.status in (Status.FAIL, Status.WARN) for c in result.causes):
        # nothing on the machine or in the log names a cause: the closest solved reports may,
        # exactly as explain lets them
        from tf_gpucheck.checks import textual
        from tf_gpucheck.reading import logscan

        lines = [line for _, text in logs for line in text]
        hinted = textual.similar_findings(matches, findings, logscan.classify(lines), known, matrix)
        if hinted:
            result = diagnosis.diagnose(
                [*findings, *hinted],
                evidence,
                fix_for=remedies.planned(known, matrix),
                witnesses=diagnosis.witness_names(snapshot.frameworks.frameworks),
            )
    return Report(
        findings=result.findings,
        strict=strict,
        gpu_usable=usable,
        causes=result.causes,
        notes=facts.not_checked(snapshot),
        similar=tuple(matches),
        hint_info=bool(logs),  # asked about a log: name its likely cause even when it is a hint
    )


CONTRADICTED_BY = {
    "cuda_libs_missing": "cuda_libraries",
    "cudnn_missing": "cudnn",
    "cudnn_version_mismatch": "cudnn",
    "no_nvidia_driver": "nvidia_driver",
    "nvml_driver_mismatch": "nvidia_driver",
    "driver_too_old": "driver_version",
    "tf_cpu_only_build": "tf_build",
    "tf_not_installed": "tf_install",
    "multiple_tf_distributions": "tf_install",
    "keras_mismatch": "keras",
    "numpy_incompatible": "tf_requirements",
    "protobuf_incompatible": "tf_requirements",
    "tf_requirement_unmet": "tf_requirements",
    "module_shadowed": "user_import",
    "pythonpath_foreign": "user_import",
    "gpu_hidden_by_env": "gpu_visibility",
    "compute_capability_unsupported": "compute_capability",
    "compute_capability_too_old": "compute_capability",
    "container_no_gpu": "place",
    "pod_no_gpu": "place",
    "slurm_no_gpu": "place",
    "xla_libdevice_missing": "xla",
    "xla_ptxas_missing": "xla",
}
"""The live check that observes what a cause claims: where it passed here, a log that claims the
cause is contradicted by it (the log came from another setting, or an earlier state)."""


def _user_log_findings(
    logs: Sequence[tuple[str, Sequence[str]]], live: Sequence[Finding], matrix: Matrix
) -> list[Finding]:
    """The user's own logs (``doctor --log``) read as ``explain`` reads a text, so doctor names a
    cause its log shows at least as high as explain does; what the text states about versions is
    left to the live checks, and a cause a live check contradicts is kept as information that
    says which check."""
    from tf_gpucheck.checks import textual

    checks = {f.check: f for f in live}
    registered = {c.id for c in REGISTRY}
    found: list[Finding] = []
    for label, lines in logs:
        read = textual.read(lines, matrix, source=label)
        for said in read.findings:
            if said.check in registered and said.stated:
                continue  # the text's stated versions: the live checks judge the machine itself
            judge = checks.get(CONTRADICTED_BY.get(said.cause or "", ""))
            if judge is not None and judge.status is Status.OK:
                said = dataclasses.replace(  # noqa: PLW2901 - the same finding, demoted
                    said,
                    status=Status.INFO,
                    summary=f"{label} says: {said.summary}; but check {judge.check} finds "
                    f"here: {judge.summary}",
                )
            found.append(said)
    return found


def _similar(
    logs: Sequence[tuple[str, Sequence[str]]], exclude: str | None = None
) -> tuple[Match, ...]:
    if not logs:
        return ()  # the knowledge base loads only for a user's own log
    from tf_gpucheck import similar

    return tuple(similar.for_logs(logs, exclude=exclude))


def _log_sources(
    snapshot: Snapshot, logs: Sequence[tuple[str, Sequence[str]]]
) -> list[tuple[str, Sequence[str]]]:
    sources: list[tuple[str, Sequence[str]]] = [
        ("TensorFlow's start-up log", snapshot.tensorflow.log)
    ]
    if snapshot.tensorflow.traceback:
        sources.append(("the import traceback", snapshot.tensorflow.traceback.splitlines()))
    return sources + list(logs)


ALLOWED_CPU = " (a warning with --allow-cpu)"
"""The mark of a GPU check's failure that --allow-cpu made a warning."""


def _allow_cpu(finding: Finding, *, gpu_check: bool) -> Finding:
    """--allow-cpu: on a CPU-only runner a CPU-only TensorFlow is what was asked for, and a
    missing GPU is a warning; everything else that fails still fails."""
    if finding.cause == "tf_cpu_only_build":
        return dataclasses.replace(
            finding,
            status=Status.INFO,
            summary=f"{finding.summary} (as expected with --allow-cpu)",
        )
    if gpu_check:
        return dataclasses.replace(
            finding, status=Status.WARN, summary=f"{finding.summary}{ALLOWED_CPU}"
        )
    return finding


def diagnose(
    *, python: str | None = None, checks: Sequence[str] | None = None, timeout_s: float = 120.0
) -> Report:
    """Probe this machine (or ``python``'s environment) and run the doctor's checks: the findings as data."""
    from tf_gpucheck.examine import examine

    return examine(python=python, timeout_s=timeout_s, checks=checks).report


def require_gpu(
    min_count: int = 1,
    min_compute_capability: str | None = None,
    min_free_memory: str | int | None = None,
    *,
    python: str | None = None,
) -> Report:
    """Raise a GpucheckError carrying doctor's first failing finding and its fix unless TensorFlow
    can use ``min_count`` GPUs of the given capability and free memory; return the report otherwise."""
    from tf_gpucheck.checks.requirements import parse_capability, parse_size
    from tf_gpucheck.errors import ExitCode
    from tf_gpucheck.examine import examine

    requirements = Requirements(
        require_gpu=True,
        min_gpus=min_count,
        min_compute_capability=parse_capability("min_compute_capability", min_compute_capability)
        if min_compute_capability
        else None,
        min_free_memory_bytes=parse_size("min_free_memory", min_free_memory)
        if isinstance(min_free_memory, str)
        else min_free_memory,
    )
    report = examine(python=python, requirements=requirements).report
    unmet = [
        f for f in report.findings if f.check.startswith("require_") and f.status is Status.FAIL
    ]
    first = report.first_fix
    if unmet and first is not None:
        raise GpucheckError(
            f"no usable GPU: {first.summary} [{first.cause}]",
            reference="gpu-required",
            hint=first.fix,
            exit_code=ExitCode.FAILURE,
        )
    return report
