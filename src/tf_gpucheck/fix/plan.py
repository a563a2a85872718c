"""The plan: doctor's own fixes, read as package operations gpucheck may run, or left to the user.

One resolver: each step is the fix doctor prints for a cause (``Report.causes``, the same
remedies), so doctor's first fix and fix's first step never disagree. A fix is run only when
every part of it is a ``pip install`` / ``pip uninstall`` (or ``uv pip ...``) in the target
environment; anything else (a driver, sudo, a reboot, a container flag, a menu, another Python)
is a step for the user, printed and never run.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal

from packaging.requirements import InvalidRequirement, Requirement

from tf_gpucheck.checks.findings import Report, Status
from tf_gpucheck.snapshot import Snapshot

_OPTIONS_WITH_VALUE = frozenset(
    {"-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url",
     "-f", "--find-links", "--python", "-t", "--target", "--prefix", "--root", "-e",
     "--editable", "--platform", "--python-version", "--implementation", "--abi"}
)  # fmt: skip
_REFUSED_OPTIONS = frozenset({"-r", "--requirement", "-e", "--editable", "--target", "--prefix"})


@dataclass(frozen=True)
class Operation:
    """One package operation of a step, as it runs."""

    verb: Literal["install", "uninstall"]
    runner: Literal["pip", "uv"]
    args: tuple[str, ...]
    """What follows the verb, as printed (``-y`` added for pip's uninstall)."""
    requirements: tuple[str, ...]
    """The requirements (install) or names (uninstall) it names."""

    def argv(self, python: str, uv: str = "uv") -> list[str]:
        if self.runner == "uv":
            return [uv, "pip", self.verb, *self.args]
        return [python, "-m", "pip", self.verb, *self.args]

    def names(self) -> list[str]:
        out = []
        for requirement in self.requirements:
            try:
                out.append(Requirement(requirement).name)
            except InvalidRequirement:
                out.append(requirement)
        return out


@dataclass(frozen=True)
class Step:
    cause: str
    status: Status
    summary: str
    printed: str
    """The fix exactly as doctor prints it."""
    operations: tuple[Operation, ...] = ()
    """Empty: the user's to do (``why`` says why)."""
    note: str = ""
    """The fix's own comment (``# ...``)."""
    why: str = ""

    @property
    def runnable(self) -> bool:
        return bool(self.operations)


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]

    @property
    def runnable(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.runnable)

    @property
    def manual(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if not s.runnable)


def make_plan(report: Report, snapshot: Snapshot) -> Plan:
    """A step for each failing or warning cause with a fix; the same command twice is one step.
    Steps run bottom up (the diagnosis's layers: the install before the libraries before Keras),
    whatever their severity: a Keras fix made for the TensorFlow a later step replaces would be
    wrong. A GPU check's failure that ``--allow-cpu`` accepted is no step: the user said this
    machine runs on the CPU."""
    from tf_gpucheck.checks import ALLOWED_CPU
    from tf_gpucheck.checks.diagnosis import depth

    steps: list[Step] = []
    seen: set[str] = set()
    windows = snapshot.system.os == "Windows"
    for cause in report.causes:
        if cause.status not in (Status.FAIL, Status.WARN) or not cause.fix or cause.explained_by:
            continue
        if cause.fix in seen or cause.summary.endswith(ALLOWED_CPU):
            continue
        seen.add(cause.fix)
        steps.append(read_step(cause.code, cause.status, cause.summary, cause.fix, windows))
    steps.sort(key=lambda step: depth(step.cause))
    return Plan(tuple(steps))


TENSORFLOW_DISTRIBUTIONS = frozenset(
    {"tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-intel",
     "tensorflow-macos", "intel-tensorflow"}
)  # fmt: skip
"""A step that changes one of these makes the later steps (planned for the old TensorFlow) stale."""


def read_step(cause: str, status: Status, summary: str, fix: str, windows: bool = False) -> Step:
    """A printed fix as a step: its operations when all of it is package work, else the user's."""
    command, _, note = _split_comment(fix)

    def manual(why: str) -> Step:
        return Step(cause, status, summary, fix, (), note.strip(), why)

    if windows:
        return manual("gpucheck fix runs package steps on Linux and macOS")
    if "sudo " in f" {command} ":
        return manual("needs administrator rights")
    try:
        words = shlex.split(command)
    except ValueError:
        return manual("not a single command")
    if not words:
        return manual("not a command")
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
            return manual(operation)
        operations.append(operation)
    return Step(cause, status, summary, fix, tuple(operations), note.strip())


def _split_comment(fix: str) -> tuple[str, str, str]:
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


def _operation(words: list[str]) -> Operation | str:
    runner: Literal["pip", "uv"]
    if words[:1] in (["pip"], ["pip3"]):
        runner, rest = "pip", words[1:]
    elif len(words) >= 3 and words[1:3] == ["-m", "pip"]:
        runner, rest = "pip", words[3:]
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
    return Operation(verb, runner, tuple(args), tuple(requirements))
