"""The target interpreter: its version and its installed distributions (facts, no judgement)."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass

from gpucheck._children import script
from gpucheck._process import describe_exit, run_child


@dataclass(frozen=True)
class RawDistribution:
    name: str
    """Normalised (PEP 503) name."""
    version: str
    requires: tuple[str, ...] | None
    """Requires-Dist lines, for TensorFlow distributions only."""
    libs: tuple[str, ...] | None
    """Shared libraries the distribution installed, for nvidia-* wheels only."""


@dataclass(frozen=True)
class InterpreterFacts:
    python_version: str
    python_executable: str
    distributions: tuple[RawDistribution, ...]
    error: str | None = None


def is_current(python: str | None) -> bool:
    if python is None:
        return True
    try:
        return os.path.samefile(python, sys.executable)
    except OSError:
        return False


def probe_interpreter(python: str | None, timeout_s: float = 60.0) -> InterpreterFacts:
    """Read the interpreter's facts: in-process for gpucheck's own Python, else in a child."""
    if is_current(python):
        from gpucheck._children import interpreter_probe

        return _facts(interpreter_probe.collect())
    assert python is not None
    try:
        result = run_child([python, script("interpreter_probe")], timeout_s=timeout_s)
    except OSError as exc:
        return InterpreterFacts("", python, (), error=f"cannot run {python}: {exc.strerror}")
    if result.returncode != 0:
        tail = result.stderr.strip().splitlines()[-1:] or [""]
        return InterpreterFacts(
            "", python, (), error=f"{python} {describe_exit(result.returncode)}: {tail[0]}".strip()
        )
    try:
        return _facts(json.loads(result.stdout))
    except (ValueError, KeyError, TypeError) as exc:
        return InterpreterFacts("", python, (), error=f"{python} gave unreadable facts: {exc}")


def _facts(data: dict[str, object]) -> InterpreterFacts:
    dists = []
    for item in data["distributions"]:  # type: ignore[attr-defined]
        requires = item.get("requires")
        libs = item.get("libs")
        dists.append(
            RawDistribution(
                name=str(item["name"]),
                version=str(item["version"]),
                requires=tuple(requires) if requires is not None else None,
                libs=tuple(libs) if libs is not None else None,
            )
        )
    return InterpreterFacts(
        python_version=str(data["python_version"]),
        python_executable=str(data["python_executable"]),
        distributions=tuple(dists),
    )
