"""Small text formatters shared by the renderers."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text

from tf_gpucheck.snapshot import TargetInfo
from tf_gpucheck.target import describe


def human_bytes(value: int | None) -> str:
    if value is None:
        return "?"
    size = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(size) < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def human_seconds(value: float | None) -> str:
    if value is None:
        return "?"
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    if value < 1:
        return f"{value * 1e3:.1f} ms"
    return f"{value:.2f} s"


def text(value: object) -> str:
    """A value for a table cell, Rich markup escaped; None becomes an em dash."""
    if value is None or value == "":
        return "—"
    return escape(str(value))


def target_line(target: TargetInfo, source: str | None = None) -> str:
    """``diagnosing <prefix> (<why this one>)``: which environment every command speaks of;
    for a snapshot read with ``--from``, the file it came from."""
    line = describe(target.python_executable, target.prefix, target.chosen_by)
    if source is not None:
        line = line.rsplit(" (", 1)[0] + f" (recorded in {source})"
    return line


def target_header(target: TargetInfo, source: str | None = None) -> Text:
    return Text(target_line(target, source), style="muted")
