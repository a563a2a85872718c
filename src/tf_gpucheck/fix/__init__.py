"""``gpucheck fix``: doctor's package fixes applied to the target environment, proven, undoable.

diagnose -> plan (doctor's own fixes: :mod:`.plan`) -> prove each operation with the installer's
resolver -> show the plan -> (after a yes) journal the environment, apply -> diagnose again ->
keep the change only if no cause got worse, else put everything back (:mod:`.apply`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tf_gpucheck._process import allow_children, kill_all_children
from tf_gpucheck.checks.findings import Report, Status
from tf_gpucheck.fix.apply import (
    Applied,
    Journal,
    apply_steps,
    conda_owned,
    is_tool_environment,
    latest_journal,
    prove,
    put_back,
    refuse,
)
from tf_gpucheck.fix.environment import Environment, diff, read_environment
from tf_gpucheck.fix.plan import Plan, Step, make_plan
from tf_gpucheck.installer.proof import Proof
from tf_gpucheck.snapshot import Snapshot

__all__ = [
    "FixRun",
    "Plan",
    "Step",
    "cause_changes",
    "prepare",
    "run_fix",
    "undo",
]


@dataclass
class FixRun:
    """Everything ``gpucheck fix`` did, for the renderers."""

    plan: Plan
    env: Environment
    before: Report
    proofs: dict[int, Proof] = field(default_factory=dict)
    """Index of a runnable step -> the proof of its first operation (against today's environment)."""
    refused: str | None = None
    applied: Applied | None = None
    after: Report | None = None
    journal: Journal | None = None
    rolled_back: bool = False
    rollback_reason: str = ""
    not_restored: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    asked: bool = False
    """A yes was asked for and not given (nothing changed)."""

    @property
    def proven(self) -> bool:
        return all(p.ok for p in self.proofs.values())

    @property
    def exit_code(self) -> int:
        if self.applied and self.applied.interrupted:
            return 130
        if self.refused or self.rolled_back or (self.applied and self.applied.failed):
            return 1
        report = self.after or self.before
        if self.after is None and self.plan.runnable and not self.proven:
            return 1
        return report.exit_code


def prepare(
    report: Report, snapshot: Snapshot, python: str, *, own_tool: bool, allow_conda: bool = False
) -> FixRun:
    """The plan, the environment it changes, and the proof of each step (nothing changes)."""
    plan = make_plan(report, snapshot)
    env = read_environment(python)
    run = FixRun(plan, env, report)
    run.refused = refuse(env, own_tool and is_tool_environment(env.prefix))
    if run.refused:
        return run
    for index, step in enumerate(plan.steps):
        if step.runnable:
            proof = prove(step.operations[0], env)
            conda = None if allow_conda else conda_owned(proof, env)
            run.proofs[index] = Proof("refused", proof.changes, conda) if conda else proof
    return run


def run_fix(
    run: FixRun,
    diagnose: Callable[[], Report],
    say: Callable[[str], None],
    *,
    allow_conda: bool = False,
) -> FixRun:
    """Apply the proven plan: journal, apply, diagnose again, keep it only if nothing got worse."""
    journal = Journal.start(run.env)
    run.journal = journal
    try:
        run.applied = apply_steps(run.plan.runnable, journal, say, allow_conda=allow_conda)
    except KeyboardInterrupt:
        kill_all_children()
        allow_children()
        run.applied = Applied(interrupted=True)
        run.rolled_back, run.rollback_reason = True, "interrupted"
        run.not_restored = _put_back_uninterrupted(journal)
        return run
    if run.applied.failed is not None:
        run.rolled_back = True
        run.rollback_reason = f"{run.applied.failed.cause}: {run.applied.reason}"
        run.not_restored = _put_back_uninterrupted(journal)
        return run
    run.after = diagnose()
    run.changes = diff(journal.before, read_environment(run.env.python).versions())
    worse = cause_changes(run.before, run.after)["new"]
    if worse:
        run.rolled_back = True
        run.rollback_reason = "the checks afterwards are worse: " + ", ".join(worse)
        run.not_restored = _put_back_uninterrupted(journal)
        return run
    journal.note(
        status="applied", changes=run.changes, after=read_environment(run.env.python).versions()
    )
    return run


def _put_back_uninterrupted(journal: Journal) -> list[str]:
    """Restore with Ctrl-C held off: a second Ctrl-C must not leave it half done."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return put_back(journal)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return put_back(journal)
    finally:
        signal.signal(signal.SIGINT, previous)


def cause_changes(before: Report, after: Report) -> dict[str, list[str]]:
    """Causes healed, still there, and new failures, by code."""

    def codes(report: Report, statuses: tuple[Status, ...]) -> list[str]:
        out: list[str] = []
        for cause in report.causes:
            if cause.status in statuses and cause.code not in out:
                out.append(cause.code)
        return out

    was = codes(before, (Status.FAIL, Status.WARN))
    now = codes(after, (Status.FAIL, Status.WARN))
    failing_before = set(codes(before, (Status.FAIL,)))
    return {
        "healed": [c for c in was if c not in now],
        "remaining": [c for c in now if c in was],
        "new": [c for c in codes(after, (Status.FAIL,)) if c not in failing_before],
    }


@dataclass
class Undo:
    journal: Journal | None
    plan: list[str]
    """What changes back (``name now -> recorded``)."""
    not_restored: list[str] = field(default_factory=list)
    done: bool = False


def undo(python: str, *, apply: bool) -> Undo:
    """The last journal of this environment, and (with ``apply``) its versions restored."""
    env = read_environment(python)
    journal = latest_journal(env.prefix)
    if journal is None:
        return Undo(None, [])
    plan = diff(env.versions(), journal.before)
    result = Undo(journal, plan)
    if apply and plan:
        result.not_restored = put_back(journal)
        journal.note(status="undone" if not result.not_restored else "restore-incomplete")
        result.done = True
    return result
