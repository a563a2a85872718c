"""`gpucheck doctor`: the report for people (Rich), for machines (JSON) and for issues (Markdown)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tf_gpucheck._codec import to_data
from tf_gpucheck.checks import Report, Status
from tf_gpucheck.render.console import Command
from tf_gpucheck.render.format import text
from tf_gpucheck.snapshot import NodeInfo

if TYPE_CHECKING:
    from tf_gpucheck.installer.proof import Proof
    from tf_gpucheck.similar import Match

MARKS = {
    Status.OK: ("ok", "ok"),
    Status.WARN: ("warn", "warn"),
    Status.FAIL: ("FAIL", "fail"),
    Status.SKIP: ("skip", "skip"),
    Status.INFO: ("info", "info"),
}
REPORT_SCHEMA_VERSION = 1


def render_report(
    report: Report, *, verbose: bool = False, header: RenderableType | None = None
) -> RenderableType:
    """The verdict first (CI logs show the first line), then ``header`` (which environment),
    then one row per check; with ``verbose``, each check's evidence and fix (a fix on a line of
    its own, whole: see :class:`~tf_gpucheck.render.console.Command`)."""
    parts: list[RenderableType] = [render_verdict(report), *render_similar(report.similar)]
    if header is not None:
        parts.append(header)
    parts += [Text(f"note: {note}", style="muted") for note in report.notes]
    parts.append(Text(""))
    width = max((len(f.check) for f in report.findings), default=8)

    def grid() -> Table:
        table = Table.grid(padding=(0, 1))
        table.add_column(no_wrap=True)
        table.add_column(no_wrap=True, style="muted", min_width=width)
        table.add_column(overflow="fold")
        return table

    table = grid()
    for finding in report.findings:
        label, style = MARKS[finding.status]
        table.add_row(Text(f"[{label:>4}]", style=style), finding.check, text(finding.summary))
        if verbose:
            if finding.cause:
                table.add_row("", "", Text(f"cause: {finding.cause}", style="muted"))
            for line in finding.details.splitlines():
                table.add_row("", "", Text(line, style="muted"))
            if finding.fix and finding.status not in (Status.OK, Status.SKIP):
                parts.append(table)
                parts.append(Command(finding.fix, "fix: ", indent=width + 8))
                if finding.proof is not None:
                    parts.append(
                        Text(" " * (width + 13) + proof_words(finding.proof), style="muted")
                    )
                table = grid()
    if table.row_count:
        parts.append(table)
    if not verbose:
        parts.append(Text("\nevidence for every check: gpucheck doctor --verbose", style="muted"))
    return Group(*parts)


def _hanging(indent: str, words: str) -> RenderableType:
    """``words`` after ``indent``, wrapped lines starting under the first word (not at column 0)."""
    from rich.table import Table

    grid = Table.grid()
    grid.add_column(no_wrap=True, width=len(indent))
    grid.add_column(overflow="fold")
    grid.add_row("", Text(words, style="muted"))
    return grid


def render_verdict(report: Report, *, quiet: str | None = None) -> RenderableType:
    """The verdict, the first cause and its fix, then the other causes (``quiet``: the words
    when there is nothing to fix)."""
    verdict = report.verdict
    first = report.first_fix
    label, style = MARKS[verdict]
    if verdict is Status.OK and first is not None:
        # nothing failed, yet a cause is named (a line normal without a GPU): not "OK"
        label, style = "note", "info"
    head = Text()
    head.append(f"{label.upper()}", style=style)
    if first is None:
        if quiet is None:
            quiet = (
                "every check passed: TensorFlow can use the GPU"
                if report.gpu_usable
                else "no problem found"
            )
        head.append(f"  {quiet}")
        return head
    head.append(f"  {first.summary}")
    lines: list[RenderableType] = [head]
    if first.cause:
        # whole on one line: it holds a command to copy (gpucheck explain --cause CODE)
        lines.append(
            Command(
                f"{first.cause} (check {first.check}; more: gpucheck explain --cause "
                f"{first.cause})",
                "cause: ",
                style="muted",
            )
        )
    if first.fix:
        lines.append(Command(first.fix, "first fix: "))
        if first.proof is not None:
            lines.append(_hanging("           ", proof_words(first.proof)))
    others = [
        c
        for c in report.causes
        if c.status in (Status.FAIL, Status.WARN) and c.code != first.cause and not c.explained_by
    ]
    if others:
        lines.append(Text("then:", style="muted"))
        for cause in others[:5]:
            lines.append(_hanging("  ", f"[{cause.status.value}] {cause.summary} ({cause.code})"))
        if len(others) > 5:
            lines.append(
                Text(f"  and {len(others) - 5} more: gpucheck doctor --verbose", style="muted")
            )
    return Group(*lines)


def report_to_data(
    report: Report, *, snapshot_meta: dict[str, Any], node: NodeInfo | None = None
) -> dict[str, Any]:
    """The JSON report; ``node`` (which machine, as the snapshot names it) lets ``gpucheck fleet``
    read a set of reports."""
    first = report.first_fix
    # the verdict and the first fix first: `gpucheck doctor --json | head` shows them
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "verdict": report.verdict.value,
        "exit_code": report.exit_code,
        "gpu_usable": report.gpu_usable,
        "first_fix": first.to_dict() if first else None,
        **snapshot_meta,
        "node": to_data(node) if node is not None else None,
        "notes": list(report.notes),
        "findings": [f.to_dict() for f in report.findings],
        "causes": [c.to_dict() for c in report.causes],
        "similar": [m.to_dict() for m in report.similar],
    }


def report_to_markdown(report: Report, *, title: str, subtitle: str | None = None) -> str:
    """A report to paste into a GitHub issue: verdict, a table of checks, details folded."""
    first = report.first_fix
    lines = [f"### {title}", ""]
    if subtitle:
        lines += [f"_{subtitle}_", ""]
    lines.append(f"**Verdict: {report.verdict.value.upper()}**")
    lines += [f"- note: {note}" for note in report.notes]
    if first:
        lines.append(f"- first problem: {first.summary} (`{first.cause}`)")
        if first.fix:
            lines.append(f"- fix: `{first.fix}`")
            if first.proof is not None:
                lines.append(f"- {proof_words(first.proof)}")
    if report.similar:
        lines += similar_markdown(report.similar).rstrip("\n").split("\n")
    lines += ["", "| status | check | summary |", "| --- | --- | --- |"]
    for finding in report.findings:
        summary = finding.summary.replace("|", "\\|")
        lines.append(f"| {finding.status.value} | `{finding.check}` | {summary} |")
    detailed = [f for f in report.findings if f.details]
    if detailed:
        lines += ["", "<details><summary>Evidence</summary>", ""]
        for finding in detailed:
            lines += [f"**{finding.check}**", "", "```", finding.details, "```", ""]
        lines.append("</details>")
    return "\n".join(lines) + "\n"


def report_to_junit(report: Report, *, suite: str = "gpucheck doctor") -> str:
    """JUnit XML: one testcase per check; failures carry the summary and fix, warnings are system-out."""
    from tf_gpucheck.render.junit import Case, junit

    outcome = {Status.FAIL: "failure", Status.SKIP: "skipped", Status.WARN: "warning"}
    cases = []
    for finding in report.findings:
        fixed = finding.summary + (f" (fix: {finding.fix})" if finding.fix else "")
        cases.append(
            Case(
                "tf_gpucheck.checks",
                finding.check,
                outcome.get(finding.status, "passed"),
                finding.summary if finding.status is Status.SKIP else fixed,
                finding.cause or "fail",
                finding.details,
            )
        )
    return junit(suite, cases)


def report_to_annotations(report: Report) -> str:
    """GitHub Actions workflow commands (::error / ::warning) for failures and warnings."""

    def clean(text: str) -> str:  # workflow-command escaping
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    out = []
    for finding in report.findings:
        kind = {Status.FAIL: "error", Status.WARN: "warning"}.get(finding.status)
        if kind:
            message = finding.summary + (f" Fix: {finding.fix}" if finding.fix else "")
            out.append(f"::{kind} title=gpucheck {finding.check}::{clean(message)}")
    return "".join(line + "\n" for line in out)


def render_similar(matches: Sequence[Match]) -> list[RenderableType]:
    """The closest solved reports: what each settled on, what fixed it, where to read it."""
    if not matches:
        return []
    out: list[RenderableType] = [Text(""), Text("similar solved reports:", style="bold")]
    for match in matches:
        what = "harmless" if match.report.noise else match.report.cause
        out.append(Text(f"  {what}: {match.report.title}  ({match.score:.2f})"))
        out.append(Text(f"    what fixed it: {_first_line(match.report.fix)}", style="muted"))
        out.append(Text(f"    {match.report.url}", style="muted"))
    return out


def similar_markdown(matches: Sequence[Match]) -> str:
    if not matches:
        return ""
    out = "\n**Similar solved reports**\n\n"
    for match in matches:
        what = "harmless" if match.report.noise else f"`{match.report.cause}`"
        title = match.report.title.replace("[", "(").replace("]", ")")
        out += f"- {what}: [{title}]({match.report.url}) ({match.score:.2f})\n"
    return out


def _first_line(quote: str, width: int = 160) -> str:
    line = next((part.strip() for part in quote.splitlines() if part.strip()), "")
    more = len(quote.strip()) > len(line)
    if len(line) > width:
        line, more = line[: width - 1].rstrip(), True
    return line + (" …" if more else "")


def proof_words(proof: Proof) -> str:
    """ "proven by pip 25.2 --dry-run: numpy 2.1.3 -> 1.26.4", "not proven: no index"."""
    if proof.status == "proven":
        moves = [
            f"{name} {before or '(new)'} -> {after or '(removed)'}"
            for name, (before, after) in sorted(proof.changes.items())
        ]
        said = ", ".join(moves[:4]) + (f" and {len(moves) - 4} more" if len(moves) > 4 else "")
        return f"proven by {proof.by or 'the installer'}: " + (said or "nothing to change")
    if proof.status == "refused":
        return f"refused by {proof.by or 'the installer'}: {proof.reason}"
    return f"not proven: {proof.reason}"
