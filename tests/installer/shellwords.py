"""A printed fix read as a shell reads it, into the package operations it names: the tests'
oracle for "the printed line runs exactly the operations the writer made" (gpucheck itself never
reads a line back)."""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
from typing import Literal

from tf_gpucheck.installer.operations import Operation

_REFUSED_OPTIONS = frozenset({"-r", "--requirement", "-e", "--editable", "--prefix"})

_OPTIONS_WITH_VALUE = frozenset(
    {"-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url",
     "-f", "--find-links", "--python", "-t", "--target", "--prefix", "--root", "-e",
     "--editable", "--platform", "--python-version", "--implementation", "--abi"}
)  # fmt: skip


def read_command(fix: str) -> tuple[list[Operation], str, str]:
    """(the operations, the comment, why it is not package work) of a printed fix: operations
    only when every part of it (``&&``-chained) is a package operation in the target."""
    command, _, note = split_comment(fix)
    note = note.strip()
    if "sudo " in f" {command} ":
        return [], note, "needs administrator rights"
    try:
        words = shlex.split(command)
    except ValueError:
        return [], note, "not a single command"
    if not words:
        return [], note, "not a command"
    parts: list[list[str]] = [[]]
    for word in words:
        if word in ("&&", ";"):
            parts.append([])
        else:
            parts[-1].append(word)
    operations = []
    for part in parts:
        operation = _operation(part)
        if isinstance(operation, str):
            return [], note, operation
        operations.append(operation)
    return operations, note, ""


def split_comment(fix: str) -> tuple[str, str, str]:
    """``command  # comment`` split where the ``#`` is outside quotes."""
    quote = ""
    for index, char in enumerate(fix):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or fix[index - 1].isspace()):
            return fix[:index].rstrip(), "#", fix[index + 1 :]
    return fix, "", ""


_ASSIGNMENT = re.compile(r"^(?P<name>(?:PIP|UV)_[A-Z0-9_]+)=(?P<value>.*)$")
"""An installer's variable set for one command (``PIP_NO_INDEX=0``); no other variable is run."""


def _operation(words: list[str]) -> Operation | str:
    environ: list[tuple[str, str]] = []
    while words and (assignment := _ASSIGNMENT.match(words[0])):
        environ.append((assignment.group("name"), assignment.group("value")))
        words = words[1:]
    operation = _package_operation(words)
    if isinstance(operation, str) or not environ:
        return operation
    return dataclasses.replace(operation, environ=tuple(environ))


def _package_operation(words: list[str]) -> Operation | str:
    runner: Literal["pip", "uv"]
    python = None
    if words[:1] in (["pip"], ["pip3"]):
        runner, rest = "pip", words[1:]
    elif len(words) >= 3 and words[1:3] == ["-m", "pip"]:
        runner, rest = "pip", words[3:]
        python = words[0] if os.path.isabs(words[0]) else None
    elif words[:2] == ["uv", "pip"]:
        runner, rest = "uv", words[2:]
    else:
        return "not a package operation in this environment"
    if not rest or rest[0] not in ("install", "uninstall"):
        return f"pip {rest[0] if rest else ''} is not an install".replace("  ", " ")
    verb: Literal["install", "uninstall"] = "install" if rest[0] == "install" else "uninstall"
    args = rest[1:]
    requirements: list[str] = []
    skip = False
    for word in args:
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            if word.split("=")[0] in _REFUSED_OPTIONS:
                return f"{word} installs from outside what the plan can prove"
            skip = word in _OPTIONS_WITH_VALUE
            continue
        requirements.append(word)
    if not requirements:
        return "names no package"
    if verb == "uninstall" and runner == "pip" and "-y" not in args and "--yes" not in args:
        args = ["-y", *args]
    return Operation(verb, runner, tuple(args), tuple(requirements), python=python)
