"""Checks judge; the commands a user is told to run are built in one room (installer/): no string
in checks/ is a command of an installer, a shell or a variable, apart from words that describe
what the user did ("the user site (pip install --user)")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import tf_gpucheck.checks

CHECKS = Path(tf_gpucheck.checks.__file__).parent
COMMAND = re.compile(
    r"\b(?:pip3? (?:install|uninstall)(?: -\S+)* (?!of\b)[\"\w]|-m (?:pip|venv|ensurepip)\b|rm -rf|mv \S+ \S+"
    r"|export [A-Z_]+=|unset [A-Z_]+|conda install|sudo \w)"
)


def _strings(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    return [
        (n.lineno, n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def test_no_string_in_checks_is_a_command() -> None:
    found = [
        f"{path.relative_to(CHECKS)}:{line}: {text[:80]!r}"
        for path in sorted(CHECKS.rglob("*.py"))
        for line, text in _strings(path)
        if COMMAND.search(text)
    ]
    assert found == []
    assert COMMAND.search('pip install "tensorflow[and-cuda]"')  # the pattern sees a command
    assert not COMMAND.search("the user site (pip install --user)")
    assert not COMMAND.search("remove the !pip install of tensorflow")
