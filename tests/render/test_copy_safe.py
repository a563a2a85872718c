"""Commands the reader pastes come out whole, on one line, at any terminal width.

Run in a real pseudo-terminal of 60 and of 200 columns (gpucheck reads the width from it, as in
a user's terminal): the fix is printed in one piece, with no line break inside it, so pasting
the line runs the whole command. The terminal soft-wraps it on screen; the text has no break.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import scenario
from tests.helpers import gpucheck
from tests.test_target import make_venv
from tf_gpucheck.checks import run_checks
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.render.console import make_console
from tf_gpucheck.render.doctor import render_verdict

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def in_a_terminal(args: list[str], columns: int, cwd: Path) -> str:
    """What ``python -m tf_gpucheck ARGS`` writes to a pseudo-terminal of ``columns`` columns."""
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "GPUCHECK_WIDTH")}
    env.update({"NO_COLOR": "1", "TERM": "xterm"})
    process = subprocess.Popen(
        [sys.executable, "-m", "tf_gpucheck", *args],
        stdin=child,
        stdout=child,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        env=env,
    )
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=120)
    os.close(main)
    return ANSI.sub("", b"".join(chunks).decode("utf-8", "replace")).replace("\r\n", "\n")


@pytest.fixture(scope="module")
def deep_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv at a long path, without TensorFlow: its fix is a long install command."""
    where = tmp_path_factory.mktemp("copy") / "projects" / "a-rather-long-project-name" / ".venv"
    where.parent.mkdir(parents=True)
    return make_venv(where)


@pytest.mark.parametrize("columns", [60, 200])
def test_the_first_fix_is_one_line_at_any_width(deep_venv: Path, columns: int) -> None:
    # the install alone (where this runs, a container reaching no GPU would come first)
    out = in_a_terminal(
        ["doctor", "--no-tf", "--check", "tf_install", "--python", str(deep_venv)],
        columns,
        deep_venv.parent,
    )
    fix_lines = [line for line in out.splitlines() if line.startswith("first fix: ")]
    assert len(fix_lines) == 1, out
    fix = fix_lines[0].removeprefix("first fix: ")
    # the venv has no pip (made --without-pip): its own ensurepip comes first
    assert fix.startswith(f"{deep_venv} -m ensurepip && {deep_venv} -m pip install ")
    assert '"tensorflow' in fix  # the requirement is on the same line as the command
    assert len(fix_lines[0]) > 60  # longer than the narrow terminal: it was not wrapped


@pytest.mark.parametrize("columns", [60, 200])
def test_verbose_fixes_are_whole_lines_too(deep_venv: Path, columns: int) -> None:
    out = in_a_terminal(
        ["doctor", "--no-tf", "-v", "--python", str(deep_venv)], columns, deep_venv.parent
    )
    fixes = [line.strip() for line in out.splitlines() if line.strip().startswith("fix: ")]
    assert fixes, out
    install = [f for f in fixes if " -m pip install " in f]
    assert install, fixes
    assert all('"tensorflow' in f for f in install)


def test_explain_and_markdown_keep_commands_whole(run_cli: Any, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("TypeError: Descriptors cannot not be created directly.\n")
    markdown = run_cli(["explain", "--format", "markdown", str(log)]).stdout
    fix_line = next(line for line in markdown.splitlines() if line.startswith("- fix: "))
    assert fix_line.startswith("- fix: `pip install")
    assert fix_line.endswith("`")
    out = in_a_terminal(["explain", str(log)], 60, tmp_path)
    line = next(line for line in out.splitlines() if line.startswith("first fix: "))
    assert 'pip install "protobuf<=3.20.3"' in line


@pytest.mark.parametrize("columns", [60, 80, 200])
def test_the_cause_line_stays_whole_at_any_width(tmp_path: Path, columns: int) -> None:
    """`gpucheck doctor | cat`: no terminal, 80 columns (and 60, 200); the line holding a command
    to copy (`gpucheck explain --cause CODE`) is never broken."""
    venv = make_venv(tmp_path / "a-venv-with-a-rather-long-name-for-the-test")
    result = gpucheck(
        "doctor", "--no-tf", "--python", str(venv), "--proof-budget", "0", COLUMNS=str(columns)
    )
    cause = [line for line in result.stdout.splitlines() if line.startswith("cause: ")]
    assert len(cause) == 1, result.stdout
    code = cause[0].split()[1]
    assert cause[0].endswith(f"gpucheck explain --cause {code})"), cause[0]
    assert len(cause[0]) > 60  # it is long: kept whole, not wrapped


def test_wrapped_lines_under_then_keep_their_indent() -> None:
    report = run_checks(scenario("tf-not-installed"), load_matrix())
    console = make_console()
    console.width = 60
    with console.capture() as capture:
        console.print(render_verdict(report))
    lines = capture.get().splitlines()
    after = lines[lines.index("then:") + 1 :] if "then:" in lines else []
    assert after, capture.get()
    for line in after:
        assert line.startswith("  "), f"wrapped to column 0: {line!r}"


def test_the_install_hint_in_fleets_help_is_one_word_at_80_columns() -> None:
    out = gpucheck("fleet", "--help", COLUMNS="80")
    assert "'tf_gpucheck[ray]'" in out.stdout
