"""`gpucheck explain`: the explained text for people (Rich), machines (JSON) and issues (Markdown)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tf_gpucheck.explain import ExplainedLine, Explanation
from tf_gpucheck.reading.textfacts import StatedFacts
from tf_gpucheck.render.doctor import (
    REPORT_SCHEMA_VERSION,
    render_similar,
    render_verdict,
    report_to_markdown,
    similar_markdown,
)
from tf_gpucheck.render.format import text

_STYLE = {
    "actionable": "fail",
    "expected without a GPU": "muted",
    "harmless": "muted",
    "good": "ok",
    "context": "info",
}


_SO_NAME = re.compile(r"\blib\w+\.so(?:\.\d+)+\b")


def stated_words(stated: StatedFacts) -> str:
    parts = []
    if stated.tf_version:
        parts.append(f"TensorFlow {stated.tf_version}")
    if stated.python_version:
        parts.append(f"Python {stated.python_version}")
    if stated.os:
        words = next((w for fact, w, _how in stated.spans if fact == "os"), "")
        library = _SO_NAME.search(words) if stated.os == "Linux" else None
        # a library's file name shows the OS, the text does not say it: say where it was seen
        seen = f" (seen in the name {library.group(0)})" if library else ""
        parts.append(stated.os + (" (WSL2)" if stated.is_wsl else "") + seen)
    elif stated.is_wsl:
        parts.append("WSL2")
    if stated.driver_version:
        cuda = f", CUDA {stated.cuda_driver_version}" if stated.cuda_driver_version else ""
        parts.append(f"driver {stated.driver_version}{cuda}")
    if stated.cuda_build_version:
        parts.append(f"built with CUDA {stated.cuda_build_version}")
    for name, capability in stated.gpus:
        parts.append(f"GPU {name}" + (f" ({capability})" if capability else ""))
    if stated.cuda_visible_devices is not None:
        parts.append(f"CUDA_VISIBLE_DEVICES={stated.cuda_visible_devices!r}")
    if stated.cuda_version:
        parts.append(f"CUDA {stated.cuda_version} installed")
    if stated.cudnn_version:
        parts.append(f"cuDNN {stated.cudnn_version}")
    for name, version in stated.packages:
        if name not in ("tensorflow", "tensorflow-gpu", "tensorflow-cpu"):
            parts.append(f"{name} {version}")
    for name, value in stated.env:
        parts.append(f"{name}={value}")
    if stated.place:
        parts.append(f"runs in {stated.place}")
    return ", ".join(parts)


def _counts(lines: tuple[ExplainedLine, ...], read: int) -> str:
    kinds: Counter[str] = Counter()
    for line in lines:
        kinds[line.kind] += line.count
    shown = ", ".join(f"{count} {kind}" for kind, count in kinds.most_common())
    recognised = sum(line.count for line in lines)
    return f"{read} line{'s' if read != 1 else ''} read, {recognised} recognised" + (
        f": {shown}" if shown else ""
    )


def _when(line: str | None) -> str:
    """The time of a repeated line's last occurrence (its logging prefix), else the line."""
    if not line:
        return "the same line"
    match = _TIME.search(line)
    return match.group(0) if match else line[:80]


_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?|\b\d{2}:\d{2}:\d{2}(?:\.\d+)?"
)


PER_RULE = 5
"""Messages shown per rule in the text output."""


def render_explanation(result: Explanation, *, verbose: bool = False) -> RenderableType:
    report = result.report
    parts: list[RenderableType] = []
    if result.read == 0:
        return Text("nothing to explain: the text is empty", style="muted")
    parts.append(render_verdict(report, quiet="nothing actionable in the text"))
    parts.append(Text(_counts(result.lines, result.read), style="muted"))
    if result.note:
        parts.append(Text(result.note, style="muted"))
    said = stated_words(result.stated)
    if said:
        parts.append(Text(f"read in the text: {said}", style="muted"))
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")
    # each message once, with how often it came (a job log repeats itself); of one rule's
    # messages the first few, then how many more (all of them are in the JSON)
    shown = 0
    quiet: Counter[tuple[str, str]] = Counter()
    per_rule: Counter[str] = Counter()
    more: Counter[str] = Counter()
    kinds: dict[str, ExplainedLine] = {}
    for line in result.lines:
        if line.kind == "actionable" or verbose:
            per_rule[line.rule] += 1
            if per_rule[line.rule] > PER_RULE:
                more[line.rule] += line.count
                kinds.setdefault(line.rule, line)
                continue
            shown += 1
            times = f"  (x{line.count}, the last: {_when(line.last)})" if line.count > 1 else ""
            table.add_row(
                Text(f"[{line.kind}]", style=_STYLE.get(line.kind, "")), text(line.text + times)
            )
            cause = f" ({line.cause})" if line.cause else ""
            table.add_row("", Text(f"-> {line.explanation}{cause}", style="muted"))
        else:
            quiet[(line.kind, line.explanation)] += line.count
    for rule, count in more.items():
        like = kinds[rule]
        table.add_row(
            Text(f"[{like.kind}]", style=_STYLE.get(like.kind, "")),
            Text(
                f"... and {count:,} more line(s) of this kind (gpucheck explain --json lists them)",
                style="muted",
            ),
        )
    if shown:
        parts += [Text(""), table]
    if quiet:
        parts.append(Text(""))
        for (kind, explanation), count in quiet.most_common():
            parts.append(Text(f"[{kind}] x{count}: {explanation}", style="muted"))
    parts += render_similar(result.similar)
    return Group(*parts)


def explanation_to_data(result: Explanation) -> dict[str, Any]:
    report = result.report
    first = report.first_fix
    stated = result.stated
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "verdict": report.verdict.value,
        "exit_code": report.exit_code,
        "first_fix": first.to_dict() if first else None,
        "findings": [f.to_dict() for f in report.findings],
        "causes": [c.to_dict() for c in report.causes],
        "stated": {
            "tf_version": stated.tf_version,
            "python_version": stated.python_version,
            "os": stated.os,
            "is_wsl": stated.is_wsl,
            "driver_version": stated.driver_version,
            "cuda_driver_version": stated.cuda_driver_version,
            "cuda_build_version": stated.cuda_build_version,
            "cudnn_build_version": stated.cudnn_build_version,
            "gpus": [{"name": name, "compute_capability": cc} for name, cc in stated.gpus],
            "cuda_visible_devices": stated.cuda_visible_devices,
            "cuda_version": stated.cuda_version,
            "cudnn_version": stated.cudnn_version,
            "packages": dict(stated.packages),
            "env": dict(stated.env),
            "place": stated.place,
            "spans": [
                {"fact": fact, "text": words, "how": how} for fact, words, how in stated.spans
            ],
        },
        "similar": [match.to_dict() for match in result.similar],
        "lines_read": result.read,
        "note": result.note,
        "lines": [line.to_dict() for line in result.lines],
    }


def explanation_to_json(result: Explanation) -> str:
    """The JSON document, indented, with one compact line per explained line: readable, and fast
    for a long job's log (json's indenting encoder is pure Python)."""
    import json

    data = explanation_to_data(result)
    lines = data.pop("lines")
    head = json.dumps(data, indent=2)
    if not lines:
        return head[:-2] + ',\n  "lines": []\n}\n'
    body = ",\n".join("    " + json.dumps(line) for line in lines)
    return head[:-2] + ',\n  "lines": [\n' + body + "\n  ]\n}\n"


def explanation_to_markdown(result: Explanation) -> str:
    said = stated_words(result.stated)
    out = report_to_markdown(
        result.report,
        title="gpucheck explain",
        subtitle=_counts(result.lines, result.read)
        + (f"; the text states: {said}" if said else ""),
    )
    actionable = [line for line in result.lines if line.kind == "actionable"]
    if actionable:
        out += "\n| line | meaning | cause |\n| --- | --- | --- |\n"
        for line in actionable:
            cell = line.text.replace("|", "\\|").replace("`", "'")
            out += f"| `{cell}` | {line.explanation} | `{line.cause}` |\n"
    return out + similar_markdown(result.similar)
