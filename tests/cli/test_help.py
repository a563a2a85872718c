"""The help pages: the top-level page without Typer, and every command's exit codes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.helpers import gpucheck


@pytest.mark.parametrize("columns", ["40", "64", "80", "132"])
def test_the_top_level_help_printed_without_typer_is_typers_page(columns: str) -> None:
    """`gpucheck --help` is printed without loading Typer and the commands (tf_gpucheck/cli/
    _help.py); it must be the page Typer prints, character for character, at any width."""
    env = {**os.environ, "COLUMNS": columns, "NO_COLOR": "1"}
    typer_page = subprocess.run(
        [sys.executable, "-c", "from tf_gpucheck.cli import main; main(['--help'])"],
        capture_output=True, text=True, check=True, env=env,
    ).stdout  # fmt: skip
    for flag in ("--help", "-h"):
        fast = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "tf_gpucheck", flag],
            capture_output=True, text=True, check=True, env=env,
        )  # fmt: skip
        assert fast.stdout == typer_page
        assert "typer" not in fast.stderr  # the import log: Typer was never loaded
    assert "Commands:" in typer_page
    assert "configure-memory" in typer_page


@pytest.mark.parametrize("command", ["detect", "matrix", "configure-memory", "benchmark"])
def test_every_command_says_its_exit_codes(command: str) -> None:
    out = gpucheck(command, "--help", COLUMNS="200")
    assert "Exit 0:" in out.stdout, out.stdout
