"""A printed command read back into the package operations it runs (``pip install``,
``pip uninstall``, ``uv pip ...``), or why it is not one: what ``gpucheck fix`` runs and what
the proof asks the installer about."""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from packaging.requirements import InvalidRequirement, Requirement

_OPTIONS_WITH_VALUE = frozenset(
    {"-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url",
     "-f", "--find-links", "--python", "-t", "--target", "--prefix", "--root", "-e",
     "--editable", "--platform", "--python-version", "--implementation", "--abi"}
)  # fmt: skip
_REFUSED_OPTIONS = frozenset({"-r", "--requirement", "-e", "--editable", "--prefix"})
OUTSIDE_OPTIONS = frozenset({"-t", "--target"})
"""An install into a folder of the user's (``pip install --target DIR``, the folder a
``PYTHONPATH`` TensorFlow lives in): the installer proves it, ``gpucheck fix`` leaves it to the
user (the environment it records and restores does not hold that folder)."""


@dataclass(frozen=True)
class Operation:
    """One package operation of a step, as it runs."""

    verb: Literal["install", "uninstall"]
    runner: Literal["pip", "uv"]
    args: tuple[str, ...]
    """What follows the verb, as printed (``-y`` added for pip's uninstall)."""
    requirements: tuple[str, ...]
    """The requirements (install) or names (uninstall) it names."""
    environ: tuple[tuple[str, str], ...] = ()
    """The installer's variables set before it on the line (``PIP_NO_INDEX=0 pip install ...``)."""
    python: str | None = None
    """The interpreter ``P -m pip`` names by its full path: the command is proven and run with
    that interpreter, whichever it is (the target's own, or a venv's base interpreter, which
    uninstalls from the user site); ``None``: a bare ``pip`` or ``uv``, run for the target."""

    def environment(self, base: Mapping[str, str] | None = None) -> dict[str, str] | None:
        """The environment it runs in: ``base`` (else this process's) with its own variables;
        ``None`` (inherit) when it sets none and no ``base`` is given."""
        if not self.environ:
            return dict(base) if base is not None else None
        return {**(base if base is not None else os.environ), **dict(self.environ)}

    def argv(self, python: str, uv: str = "uv") -> list[str]:
        if self.runner == "uv":
            return [uv, "pip", self.verb, *self.args]
        return [self.python or python, "-m", "pip", self.verb, *self.args]

    def names(self) -> list[str]:
        out = []
        for requirement in self.requirements:
            try:
                out.append(Requirement(requirement).name)
            except InvalidRequirement:
                out.append(requirement)
        return out


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
