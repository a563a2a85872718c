"""`gpucheck fix`: the plan, and what applying it did, cause by cause."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from tf_gpucheck.fix import FixRun, Undo, cause_changes
from tf_gpucheck.render.console import Command


def _changes(changes: dict[str, tuple[str | None, str | None]]) -> str:
    words = []
    for name, (old, new) in sorted(changes.items()):
        if old is None:
            words.append(f"{name} {new} (new)")
        elif new is None:
            words.append(f"{name} {old} removed")
        else:
            words.append(f"{name} {old} -> {new}")
    return ", ".join(words) or "nothing to change"


def render_plan(run: FixRun) -> RenderableType:
    parts: list[RenderableType] = []
    if run.refused:
        parts.append(
            Text("gpucheck will not change this environment: ", style="fail") + Text(run.refused)
        )
    runnable = [(i, s) for i, s in enumerate(run.plan.steps) if s.runnable]
    if not run.plan.steps:
        if run.before.exit_code == 0 and not any(
            c.status.value in ("fail", "warn") for c in run.before.causes
        ):
            parts.append(Text("Nothing to fix: no check fails or warns.", style="ok"))
        else:
            parts.append(
                Text(
                    "Nothing for gpucheck fix to do: no failing or warning cause has a fix it "
                    "could plan (with --allow-cpu, a GPU check's warning is accepted, not fixed); "
                    "gpucheck doctor lists them."
                )
            )
    if runnable and not run.refused:
        parts.append(Text("Plan: what gpucheck fix will run in this environment", style="heading"))
        for number, (index, step) in enumerate(runnable, start=1):
            parts.append(
                Text(f" {number}. ", style="heading") + Text(f"{step.cause}: {step.summary}")
            )
            parts.append(Command(step.printed, "$ ", indent=4))
            proof = run.proofs.get(index)
            if proof is not None:
                if proof.ok:
                    parts.append(
                        Text(f"    the resolver picks: {_changes(proof.changes)}", style="muted")
                    )
                else:
                    parts.append(Text(f"    cannot be proven: {proof.reason}", style="fail"))
    manual = run.plan.manual if not run.refused else run.plan.steps
    if manual:
        parts.append(Text("Do this yourself (gpucheck does not run it)", style="heading"))
        for step in manual:
            why = f" [{step.why}]" if step.why else ""
            parts.append(
                Text(" - ", style="heading")
                + Text(f"{step.cause}: {step.summary}")
                + Text(why, style="muted")
            )
            parts.append(Command(step.printed, "", indent=3))
    return Group(*parts)


def render_result(run: FixRun) -> RenderableType:
    parts: list[RenderableType] = []
    if run.journal is not None:
        parts.append(Text(f"journal: {run.journal.path}", style="muted"))
    if run.rolled_back:
        head = Text("ROLLED BACK ", style="fail")
        head.append(run.rollback_reason)
        parts.append(head)
        if run.not_restored:
            parts.append(Text("could not restore: " + ", ".join(run.not_restored), style="fail"))
        else:
            parts.append(
                Text("the environment is as it was before (every version restored)", style="ok")
            )
        return Group(*parts)
    if run.after is None:
        return Group(*parts)
    moved = cause_changes(run.before, run.after)
    for code in moved["healed"]:
        parts.append(Text("healed     ", style="ok") + Text(code))
    for code in moved["remaining"]:
        parts.append(Text("remaining  ", style="warn") + Text(code))
    if run.changes:
        parts.append(Text("changed: " + "; ".join(run.changes), style="muted"))
    first = run.after.first_fix
    if first is not None and first.fix:
        parts.append(Text(f"next: {first.cause}: {first.summary}"))
        parts.append(Command(first.fix, "fix: ", indent=2))
    else:
        parts.append(Text("nothing left to fix", style="ok"))
    return Group(*parts)


def run_to_data(run: FixRun) -> dict[str, Any]:
    steps = []
    for index, step in enumerate(run.plan.steps):
        proof = run.proofs.get(index)
        steps.append(
            {
                "cause": step.cause,
                "summary": step.summary,
                "command": step.printed,
                "runs": step.runnable and not run.refused,
                "why_not": step.why or (run.refused and "refused") or None,
                "proven": None if proof is None else proof.ok,
                "proof": None
                if proof is None
                else {
                    "changes": {k: {"from": a, "to": b} for k, (a, b) in proof.changes.items()},
                    "reason": proof.reason or None,
                },
            }
        )
    data: dict[str, Any] = {
        "prefix": run.env.prefix,
        "refused": run.refused,
        "steps": steps,
        "applied": run.applied is not None and not run.rolled_back,
        "rolled_back": run.rolled_back,
        "rollback_reason": run.rollback_reason or None,
        "not_restored": run.not_restored,
        "changes": run.changes,
        "journal": str(run.journal.path) if run.journal else None,
        "exit_code": run.exit_code,
    }
    if run.after is not None:
        data["causes"] = cause_changes(run.before, run.after)
    return data


def run_to_json(run: FixRun) -> str:
    return json.dumps(run_to_data(run), indent=2) + "\n"


def render_undo(result: Undo) -> RenderableType:
    if result.journal is None:
        return Text(
            "no journal of an applied fix for this environment: nothing to undo", style="muted"
        )
    parts: list[RenderableType] = [Text(f"journal: {result.journal.path}", style="muted")]
    if not result.plan:
        parts.append(
            Text("the environment already matches the journal: nothing to undo", style="ok")
        )
        return Group(*parts)
    parts.append(Text("restore" if not result.done else "restored", style="heading"))
    parts.extend(Text(f"  {line}") for line in result.plan)
    if result.not_restored:
        parts.append(Text("could not restore: " + ", ".join(result.not_restored), style="fail"))
    return Group(*parts)
