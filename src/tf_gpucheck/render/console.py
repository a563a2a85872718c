"""The one place Rich consoles are made: people read stdout, progress and logs go to stderr."""

from __future__ import annotations

import os

from rich.console import Console
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
