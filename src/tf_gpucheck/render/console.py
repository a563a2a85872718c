"""The one place Rich consoles are made: people read stdout, progress and logs go to stderr."""

from __future__ import annotations

import os
from collections.abc import Iterator

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.text import Text
from rich.theme import Theme

from tf_gpucheck._numbers import is_whole_number

THEME = Theme(
    {
        "ok": "green",
        "warn": "yellow",
        "fail": "bold red",
        "skip": "dim",
        "info": "cyan",
        "muted": "dim",
        "heading": "bold",
    }
)


def make_console(*, stderr: bool = False) -> Console:
    """A console that honours NO_COLOR and, for tests, GPUCHECK_WIDTH."""
    width = os.environ.get("GPUCHECK_WIDTH")
    return Console(
        stderr=stderr,
        theme=THEME,
        width=int(width) if width and is_whole_number(width) else None,
        highlight=False,
        soft_wrap=False,
    )


class Command:
    """A command the reader pastes: printed whole on its own line at any terminal width (the
    terminal soft-wraps it on screen, the copied text has no line break in it), never folded,
    cut or wrapped by gpucheck. :func:`emit` prints it so; printed any other way it is one Text."""

    def __init__(self, command: str, label: str = "", *, indent: int = 0, style: str = "") -> None:
        self.command = command
        self.label = label
        self.indent = indent
        self.style = style

    def text(self) -> Text:
        line = Text(" " * self.indent)
        if self.label:
            line.append(self.label, style=self.style or "heading")
        line.append(self.command, style=self.style)
        return line

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.text()


def _flatten(renderable: RenderableType) -> Iterator[RenderableType]:
    if isinstance(renderable, Group):
        for item in renderable.renderables:
            yield from _flatten(item)
    else:
        yield renderable


def emit(console: Console, renderable: RenderableType) -> None:
    """Print what a renderer made; every :class:`Command` in it (in Groups, at any depth) on a
    line of its own, whole, whatever the width."""
    items = list(_flatten(renderable))
    pending: list[RenderableType] = []
    for item in items:
        if isinstance(item, Command):
            if pending:
                console.print(Group(*pending))
                pending = []
            console.print(item.text(), soft_wrap=True)
        else:
            pending.append(item)
    if pending:
        console.print(Group(*pending))
