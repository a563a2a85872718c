"""`gpucheck explain --cause CODE` and `--list`: the documentation of the cause codes."""

from __future__ import annotations

import json

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tf_gpucheck.checks.causedocs import CauseDoc
from tf_gpucheck.render.console import Command


def render_cause(doc: CauseDoc, messages: list[tuple[str, str]]) -> RenderableType:
    parts: list[RenderableType] = [
        Text(f"{doc.code}: {doc.title}", style="heading"),
        Text(doc.meaning),
        Text(""),
        Text("confirm it by hand:", style="heading"),
    ]
    parts += [Command(step, indent=2) for step in doc.confirm]
    parts += [Text(""), Text("the fix:", style="heading")]
    for platform, fix in doc.fix:
        parts.append(Command(fix, f"{platform}: ", indent=2))
    if messages:
        parts += [Text(""), Text("messages that point to it:", style="heading")]
        parts += [Text(f"  {_short(line)}", style="muted") for _, line in messages]
    parts += [Text(""), Text("sources:", style="heading")]
    parts += [Command(source, indent=2) for source in doc.sources]
    return Group(*parts)


def _short(line: str, width: int = 200) -> str:
    return line if len(line) <= width else line[: width - 2] + " …"


def render_cause_list(docs: list[CauseDoc]) -> RenderableType:
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")
    for doc in docs:
        table.add_row(doc.code, doc.title)
    return Group(table, Text("\nmore on one: gpucheck explain --cause CODE", style="muted"))


def cause_to_data(
    doc: CauseDoc, messages: list[tuple[str, str]] | None = None
) -> dict[str, object]:
    return {
        "code": doc.code,
        "title": doc.title,
        "meaning": doc.meaning,
        "confirm": list(doc.confirm),
        "fix": dict(doc.fix),
        "sources": list(doc.sources),
        **(
            {"messages": [{"rule": rule, "example": line} for rule, line in messages]}
            if messages is not None
            else {}
        ),
    }


def cause_to_json(doc: CauseDoc, messages: list[tuple[str, str]]) -> str:
    return json.dumps(cause_to_data(doc, messages), indent=2) + "\n"


def causes_to_json(docs: list[CauseDoc]) -> str:
    return json.dumps([cause_to_data(doc) for doc in docs], indent=2) + "\n"


def readme_table(docs: list[CauseDoc]) -> str:
    """The documentation's cause table (scripts/docs_causes.py writes docs/causes.md; a test compares)."""
    lines = ["| cause | meaning |", "| --- | --- |"]
    for doc in docs:
        first = doc.meaning.split(". ")[0].rstrip(".")
        word = first.split(" ", 1)[0]
        if len(word) > 1 and word[0].isupper() and word[1:].islower():
            first = first[0].lower() + first[1:]  # "The driver" -> "the driver"; "NVML" stays
        meaning = f"{doc.title}: {first}".replace("|", "\\|")
        lines.append(f"| `{doc.code}` | {meaning} |")
    return "\n".join(lines) + "\n"
