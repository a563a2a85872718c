"""gpucheck doctor: every check over one snapshot, one verdict, the first thing to fix."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gpucheck.doctor import facts
from gpucheck.doctor.checks import REGISTRY, Check, check_ids
from gpucheck.doctor.findings import Finding, Report, Status
from gpucheck.errors import GpucheckError
from gpucheck.matrix import Matrix
from gpucheck.snapshot import Snapshot

__all__ = ["Finding", "Report", "Status", "check_ids", "run_checks", "select_checks"]


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
) -> Report:
    """Run the checks (all, or those named) over ``snapshot``; one crashing check cannot hide the others."""
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
        if allow_cpu and item.gpu and not usable and finding.status is Status.FAIL:
            finding = dataclasses.replace(
                finding,
                status=Status.WARN,
                summary=f"{finding.summary} (a warning with --allow-cpu)",
            )
        findings.append(finding)
    return Report(findings=tuple(findings), strict=strict, gpu_usable=usable)
