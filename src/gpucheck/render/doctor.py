"""`gpucheck doctor`: the report for people (Rich), for machines (JSON) and for issues (Markdown)."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpucheck.doctor import Report, Status
from gpucheck.render.format import text

MARKS = {
    Status.OK: ("ok", "ok"),
    Status.WARN: ("warn", "warn"),
    Status.FAIL: ("FAIL", "fail"),
    Status.SKIP: ("skip", "skip"),
    Status.INFO: ("info", "info"),
}
REPORT_SCHEMA_VERSION = 1


def render_report(report: Report, *, verbose: bool = False) -> RenderableType:
    parts: list[RenderableType] = [_verdict(report)]
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True, style="muted")
    table.add_column(overflow="fold")
    for finding in report.findings:
        label, style = MARKS[finding.status]
        table.add_row(Text(f"[{label:>4}]", style=style), finding.check, text(finding.summary))
        if verbose:
            if finding.cause:
                table.add_row("", "", Text(f"cause: {finding.cause}", style="muted"))
            for line in finding.details.splitlines():
                table.add_row("", "", Text(line, style="muted"))
            if finding.fix and finding.status not in (Status.OK, Status.SKIP):
                table.add_row("", "", Text(f"fix: {finding.fix}"))
    parts += [Text(""), table]
    if not verbose:
        parts.append(Text("\nevidence for every check: gpucheck doctor --verbose", style="muted"))
    return Group(*parts)


def _verdict(report: Report) -> RenderableType:
    verdict = report.verdict
    first = report.first_fix
    label, style = MARKS[verdict]
    head = Text()
    head.append(f"{label.upper()}", style=style)
    if first is None:
        head.append(
            "  every check passed: TensorFlow can use the GPU"
            if report.gpu_usable
            else "  no problem found"
        )
        return head
    head.append(f"  {first.summary}")
    lines: list[RenderableType] = [head]
    if first.cause:
        lines.append(Text(f"cause: {first.cause} (check {first.check})", style="muted"))
    if first.fix:
        fix = Text("first fix: ", style="heading")
        fix.append(first.fix)
        lines.append(fix)
    return Group(*lines)


def report_to_data(report: Report, *, snapshot_meta: dict[str, Any]) -> dict[str, Any]:
    first = report.first_fix
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        **snapshot_meta,
        "verdict": report.verdict.value,
        "exit_code": report.exit_code,
        "gpu_usable": report.gpu_usable,
        "first_fix": first.to_dict() if first else None,
        "findings": [f.to_dict() for f in report.findings],
    }


def report_to_markdown(report: Report, *, title: str) -> str:
    """A report to paste into a GitHub issue: verdict, a table of checks, details folded."""
    first = report.first_fix
    lines = [f"### {title}", "", f"**Verdict: {report.verdict.value.upper()}**"]
    if first:
        lines.append(f"- first problem: {first.summary} (`{first.cause}`)")
        if first.fix:
            lines.append(f"- fix: `{first.fix}`")
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
