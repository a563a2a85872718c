"""`gpucheck lint`: findings with their file and line, for people, machines, issues and CI."""

from __future__ import annotations

import json

from rich.console import Group, RenderableType
from rich.text import Text

from tf_gpucheck.checks.findings import Status
from tf_gpucheck.lint import LintReport
from tf_gpucheck.render.console import Command
from tf_gpucheck.render.doctor import MARKS


def _where(file: str, line: int | None) -> str:
    return f"{file}:{line}" if line else file


def render_report(report: LintReport) -> RenderableType:
    label, style = MARKS[report.verdict]
    shown = [f for f in report.findings if f.status is not Status.OK]
    head = Text(label.upper(), style=style)
    head.append(
        f"  {len(report.files)} file(s): "
        + (f"{len(shown)} finding(s)" if shown else "nothing to fix")
    )
    parts: list[RenderableType] = [head]
    for finding in sorted(report.findings, key=lambda f: (-f.status.severity, f.file, f.line or 0)):
        mark, mark_style = MARKS[finding.status]
        line = Text(f"[{mark:>4}] ", style=mark_style)
        line.append(_where(finding.file, finding.line), style="heading")
        line.append(f"  {finding.summary}")
        if finding.cause:
            line.append(f" ({finding.cause})", style="muted")
        parts.append(line)
        if finding.fix and finding.status in (Status.FAIL, Status.WARN):
            parts.append(Command(finding.fix, "fix: ", indent=7))
    return Group(*parts)


def report_to_data(report: LintReport) -> dict[str, object]:
    return {
        "verdict": report.verdict.value,
        "exit_code": report.exit_code(),
        "files": list(report.files),
        "findings": [f.to_dict() for f in report.findings],
    }


def report_to_json(report: LintReport) -> str:
    return json.dumps(report_to_data(report), indent=2) + "\n"


def report_to_markdown(report: LintReport) -> str:
    lines = ["### gpucheck lint", "", f"**Verdict: {report.verdict.value.upper()}**", ""]
    lines += ["| status | where | finding | fix |", "| --- | --- | --- | --- |"]
    for f in report.findings:
        fix = "`" + f.fix.replace("|", "\\|") + "`" if f.fix else ""
        summary = f.summary.replace("|", "\\|") + (f" (`{f.cause}`)" if f.cause else "")
        lines.append(f"| {f.status.value} | `{_where(f.file, f.line)}` | {summary} | {fix} |")
    return "\n".join(lines) + "\n"


def github_annotations(report: LintReport) -> str:
    """GitHub Actions workflow commands: an error or warning on the file and line."""
    out = []
    for f in report.findings:
        if f.status not in (Status.FAIL, Status.WARN):
            continue
        level = "error" if f.status is Status.FAIL else "warning"
        where = f"file={f.file}" + (f",line={f.line}" if f.line else "")
        message = f"{f.summary} [{f.cause}]" + (f" Fix: {f.fix}" if f.fix else "")
        out.append(f"::{level} {where}::{message.replace('%', '%25').replace(chr(10), '%0A')}")
    return "\n".join(out) + ("\n" if out else "")
