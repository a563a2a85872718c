"""`gpucheck fleet`: the fleet report for people (Rich), machines (JSON), issues (Markdown) and
CI (JUnit, one testcase per node)."""

from __future__ import annotations

from typing import Any

from rich.console import Group as RichGroup
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from tf_gpucheck.fleet import NO_ANSWER, UNREADABLE, FleetReport, Group
from tf_gpucheck.fleet.hostlist import compact
from tf_gpucheck.render.console import Command
from tf_gpucheck.render.format import human_bytes, text

FLEET_SCHEMA_VERSION = 1
STYLES = {"ok": "ok", "warn": "warn", "fail": "fail", NO_ANSWER: "fail", UNREADABLE: "fail"}
LABELS = {
    "ok": "ok",
    "warn": "warn",
    "fail": "FAIL",
    NO_ANSWER: "no answer",
    UNREADABLE: "unreadable",
}


def _counts(report: FleetReport) -> str:
    counts = report.counts
    parts = [f"{n} {LABELS[s] if s != 'fail' else 'fail'}" for s, n in counts.items() if n]
    total = len(report.nodes)
    return f"{total} node{'s' if total != 1 else ''}: " + ", ".join(parts)


def _group_title(group: Group) -> str:
    if group.status in ("fail", "warn"):
        return f"{group.cause or group.check} ({group.check})"
    if group.status == NO_ANSWER:
        return "did not answer"
    if group.status == UNREADABLE:
        return "unreadable file"
    return "every check passed"


def _groups_grid() -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True, min_width=10)
    table.add_column(justify="right", no_wrap=True, min_width=3)
    table.add_column(overflow="fold")
    return table


def render_fleet(report: FleetReport, *, verbose: bool = False) -> RenderableType:
    verdict = report.verdict
    head = Text()
    head.append(verdict.upper(), style=STYLES[verdict])
    head.append(f"  {_counts(report)}")
    parts: list[RenderableType] = [head, Text("")]
    groups = _groups_grid()
    for group in report.groups:
        groups.add_row(
            Text(LABELS[group.status], style=STYLES[group.status]),
            str(len(group.nodes)),
            Text(_group_title(group), style="heading"),
        )
        groups.add_row("", "", text(compact(group.nodes)))
        if group.summary:
            groups.add_row("", "", text(group.summary))
        if group.fix:
            parts.append(groups)
            parts.append(Command(group.fix, "fix: ", indent=14))
            groups = _groups_grid()
        if group.status in (NO_ANSWER, UNREADABLE):
            for node in report.nodes:
                if node.name in group.nodes:
                    groups.add_row("", "", Text(f"{node.source}: {node.problem}", style="muted"))
    parts.append(groups)
    if report.odd_ones_out:
        parts += [Text(""), Text("odd ones out (the majority's value, then the nodes that differ)")]
        table = Table.grid(padding=(0, 2))
        table.add_column(no_wrap=True, style="muted")
        table.add_column(overflow="fold")
        table.add_column(overflow="fold", style="warn")
        table.add_column(overflow="fold")
        same = []
        for row in report.odd_ones_out:
            if not row.others and not verbose:
                same.append(row.label)
                continue
            majority = text(f"{row.majority} ({row.majority_count})")
            if not row.others:
                table.add_row(row.label, majority, "", "same on every node")
            for i, (value, nodes) in enumerate(row.others):
                table.add_row(
                    row.label if i == 0 else "",
                    majority if i == 0 else "",
                    text(value),
                    text(compact(nodes)),
                )
        if same:
            table.add_row("same on every node", text(", ".join(same)), "", "")
        parts.append(table)
    if report.lowest_free_memory is not None:
        name, index, free = report.lowest_free_memory
        parts.append(Text(f"\nlowest free GPU memory: {human_bytes(free)} on {name} (GPU {index})"))
    parts += [Text(f"note: {note}", style="muted") for note in report.notes]
    if not verbose:
        parts.append(
            Text(
                "\nevery node's findings: gpucheck fleet --json; all attributes: -v", style="muted"
            )
        )
    return RichGroup(*parts)


def fleet_to_data(report: FleetReport, *, gpucheck_version: str) -> dict[str, Any]:
    return {
        "schema_version": FLEET_SCHEMA_VERSION,
        "gpucheck_version": gpucheck_version,
        "verdict": report.verdict,
        "exit_code": report.exit_code,
        "counts": report.counts,
        "groups": [
            {
                "status": g.status,
                "cause": g.cause,
                "check": g.check,
                "summary": g.summary,
                "fix": g.fix,
                "count": len(g.nodes),
                "nodes": compact(g.nodes),
                "node_names": list(g.nodes),
            }
            for g in report.groups
        ],
        "odd_ones_out": [
            {
                "attribute": row.key,
                "majority": row.majority,
                "majority_count": row.majority_count,
                "others": [
                    {"value": value, "nodes": compact(nodes), "node_names": list(nodes)}
                    for value, nodes in row.others
                ],
            }
            for row in report.odd_ones_out
        ],
        "lowest_free_memory": (
            {
                "node": report.lowest_free_memory[0],
                "gpu": report.lowest_free_memory[1],
                "free_bytes": report.lowest_free_memory[2],
            }
            if report.lowest_free_memory
            else None
        ),
        "notes": list(report.notes),
        "nodes": [
            {
                "name": node.name,
                "source": node.source,
                "origin": node.origin,
                "status": node.status,
                "exit_code": node.exit_code,
                "problem": node.problem,
                "first_fix": node.first.to_dict() if node.first else None,
                "facts": node.facts,
                "min_free_memory": (
                    {"gpu": node.free_memory[0], "free_bytes": node.free_memory[1]}
                    if node.free_memory
                    else None
                ),
                "notes": list(node.notes),
                "findings": [f.to_dict() for f in node.findings],
            }
            for node in report.nodes
        ],
    }


def _cell(value: str) -> str:
    return value.replace("|", "\\|")


def fleet_to_markdown(report: FleetReport, *, title: str) -> str:
    lines = [f"### {title}", "", f"**Verdict: {report.verdict.upper()}** ({_counts(report)})", ""]
    lines += ["| status | nodes | count | first cause | fix |", "| --- | --- | --- | --- | --- |"]
    for g in report.groups:
        cause = f"`{g.cause}`: {_cell(g.summary or '')}" if g.cause else _group_title(g)
        fix = f"`{_cell(g.fix)}`" if g.fix else ""
        lines.append(
            f"| {LABELS[g.status]} | `{compact(g.nodes)}` | {len(g.nodes)} | {cause} | {fix} |"
        )
    broken = [n for n in report.nodes if n.status in (NO_ANSWER, UNREADABLE)]
    if broken:
        lines.append("")
        lines += [f"- `{n.source}`: {n.problem}" for n in broken]
    if report.odd_ones_out:
        lines += ["", "| attribute | majority | nodes that differ |", "| --- | --- | --- |"]
        for row in report.odd_ones_out:
            others = "; ".join(f"{_cell(v)}: `{compact(nodes)}`" for v, nodes in row.others)
            lines.append(
                f"| {row.label} | {_cell(row.majority)} ({row.majority_count}) | {others or 'none'} |"
            )
    if report.lowest_free_memory:
        name, index, free = report.lowest_free_memory
        lines += ["", f"Lowest free GPU memory: {human_bytes(free)} on `{name}` (GPU {index})"]
    if report.notes:
        lines.append("")
        lines += [f"- note: {note}" for note in report.notes]
    return "\n".join(lines) + "\n"


def fleet_to_junit(report: FleetReport, *, suite: str = "gpucheck fleet") -> str:
    """JUnit XML: one testcase per node; a failing node carries its first cause and fix, an
    unreadable file or a node that did not answer is an error."""
    from tf_gpucheck.render.junit import Case, junit

    cases = []
    for node in report.nodes:
        first = node.first
        case = Case("tf_gpucheck.fleet", node.name)
        if node.status in (NO_ANSWER, UNREADABLE):
            case = Case(
                case.classname, node.name, "error", f"{node.source}: {node.problem}", node.status
            )
        elif node.status == "fail" and first is not None:
            failing = "\n".join(
                f"{f.check}: {f.summary}" for f in node.findings if f.status.value == "fail"
            )
            message = first.summary + (f" (fix: {first.fix})" if first.fix else "")
            case = Case(
                case.classname, node.name, "failure", message, first.cause or "fail", failing
            )
        elif node.status == "warn" and first is not None:
            case = Case(case.classname, node.name, "warning", first.summary)
        cases.append(case)
    return junit(suite, cases)
