"""Doctor's fixes with the installer's answer to each (:mod:`tf_gpucheck.installer.prover`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from tf_gpucheck.checks.findings import Cause, Finding, Report, Status
from tf_gpucheck.installer.proof import Proof
from tf_gpucheck.installer.prover import Prover


def prove_report(report: Report, prover: Prover, deadline: float, *, every: bool) -> Report:
    """``report`` with its install fixes proven: the first fix always, every other with
    ``every`` (``--verbose``, JSON, Markdown). A refused fix is replaced by the next one the
    installer accepts, and the refusal goes into the cause's details."""
    wanted = [
        c
        for c in report.causes
        if c.fix and c.status in (Status.FAIL, Status.WARN) and not c.explained_by
    ]
    if not every:
        wanted = wanted[:1]
    for cause in wanted:  # start them all before waiting for any
        prover.submit(cause.fix or "")
        for fallback in cause.fallbacks:
            prover.submit(fallback)
    proven: dict[str, Cause] = {}
    for cause in wanted:
        proven[cause.code] = _settle(cause, prover, deadline)
    causes = tuple(proven.get(c.code, c) for c in report.causes)
    findings = tuple(_match(f, proven) for f in report.findings)
    return dataclasses.replace(report, causes=causes, findings=findings)


def _settle(cause: Cause, prover: Prover, deadline: float) -> Cause:
    refusals: list[str] = []
    for fix in (cause.fix or "", *cause.fallbacks):
        proof = prover.answer(fix, deadline)
        if proof is None:
            return cause
        if proof.status != "refused":
            details = cause.details
            if refusals:
                details = "\n".join([*([details] if details else []), *refusals])
            return dataclasses.replace(cause, fix=fix, proof=proof, details=details)
        refusals.append(f"refused by the installer: {fix}: {proof.reason}")
    last = refusals[-1] if refusals else ""
    return dataclasses.replace(
        cause,
        fix=f"# no install for this was accepted here; {last}",
        proof=Proof("refused", reason=last.partition(": ")[2], by="the installer"),
        details="\n".join([*([cause.details] if cause.details else []), *refusals]),
    )


def _match(finding: Finding, proven: Mapping[str, Cause]) -> Finding:
    cause = proven.get(finding.cause or "")
    if cause is None or finding.check != cause.check:
        return finding
    return dataclasses.replace(finding, fix=cause.fix, proof=cause.proof)
