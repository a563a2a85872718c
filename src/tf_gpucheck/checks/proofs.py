"""Doctor's fixes with the installer's answer to each (:mod:`tf_gpucheck.installer.prover`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from tf_gpucheck.checks.findings import Cause, Finding, Report, Status
from tf_gpucheck.installer import writer
from tf_gpucheck.installer.intent import Fix
from tf_gpucheck.installer.operations import Operation
from tf_gpucheck.installer.proof import Proof
from tf_gpucheck.installer.prover import Prover
from tf_gpucheck.snapshot import Snapshot


def prove_report(
    report: Report,
    prover: Prover,
    deadline: float,
    *,
    every: bool,
    snapshot: Snapshot | None = None,
) -> Report:
    """``report`` with its install fixes proven: the first fix always, every other with
    ``every`` (``--verbose``, JSON, Markdown). A refused fix is replaced by the next one the
    installer accepts, and the refusal goes into the cause's details; when it accepts none, a
    fresh environment of the same Python (``snapshot``) is the fix, the refusal said on it."""
    wanted = [
        c
        for c in report.causes
        if c.fix and c.status in (Status.FAIL, Status.WARN) and not c.explained_by
    ]
    if not every:
        wanted = wanted[:1]
    for cause in wanted:  # start them all before waiting for any
        prover.submit(cause.fix or "", written_operations(cause.fix or "", cause.plan, snapshot))
    proven: dict[str, Cause] = {}
    for cause in wanted:
        proven[cause.code] = _settle(cause, prover, deadline, snapshot)
    causes = tuple(proven.get(c.code, c) for c in report.causes)
    findings = tuple(_match(f, proven) for f in report.findings)
    return dataclasses.replace(report, causes=causes, findings=findings)


def _settle(cause: Cause, prover: Prover, deadline: float, snapshot: Snapshot | None) -> Cause:
    refusals: list[str] = []
    plans: tuple[Fix | None, ...] = cause.alternatives
    if len(plans) != len(cause.fallbacks):
        plans = (None,) * len(cause.fallbacks)
    candidates = [(cause.fix or "", cause.plan), *zip(cause.fallbacks, plans, strict=True)]
    if cause.plan is not None and snapshot is not None:
        # pip may refuse the user site (another copy in the environment would take precedence):
        # the environment itself is the next place it may accept
        here = writer.write(cause.plan, snapshot, user=False)
        if here != cause.fix:
            candidates.append((here, cause.plan))
    for fix, plan in candidates:
        user = False if fix != cause.fix and plan is cause.plan else None
        proof = prover.answer(fix, deadline, written_operations(fix, plan, snapshot, user=user))
        if proof is None:
            return cause
        if proof.status != "refused":
            details = cause.details
            if refusals:
                details = "\n".join([*([details] if details else []), *refusals])
            return dataclasses.replace(cause, fix=fix, plan=plan, proof=proof, details=details)
        refusals.append(f"refused by the installer: {fix}: {proof.reason}")
    last = refusals[-1] if refusals else ""
    reason = last.rpartition(": ")[2]
    details = "\n".join([*([cause.details] if cause.details else []), *refusals])
    if snapshot is not None and snapshot.target.python_executable:
        fresh = writer.fresh_environment(cause.plan, snapshot, reason)
        proof = Proof("not_proven", reason="a new environment cannot be asked before it exists")
        return dataclasses.replace(cause, fix=fresh, proof=proof, details=details)
    return dataclasses.replace(
        cause,
        fix=f"# no install for this was accepted here: {reason}",
        proof=Proof("refused", reason=reason, by="the installer"),
        details=details,
    )


def written_operations(
    fix: str, plan: Fix | None, snapshot: Snapshot | None, *, user: bool | None = None
) -> tuple[tuple[Operation, ...], str]:
    """What ``fix`` runs, as the writer made it with the line from ``plan``; nothing for a fix
    that is words or was not written from a plan here (a printed line is never read back)."""
    if plan is None or snapshot is None:
        return (), WORDS
    made = writer.written(plan, snapshot, user=user)
    return (made.operations, made.why_not) if made.line == fix else ((), WORDS)


WORDS = "a fix in words: yours to run, nothing the installer is asked"


def _match(finding: Finding, proven: Mapping[str, Cause]) -> Finding:
    cause = proven.get(finding.cause or "")
    if cause is None or finding.check != cause.check:
        return finding
    return dataclasses.replace(finding, fix=cause.fix, proof=cause.proof)
