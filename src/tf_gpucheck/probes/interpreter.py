"""The target interpreter: its version, its environment and its installed distributions.

Facts, no judgement. gpucheck's own interpreter is read in-process; any other runs the
``interpreter_probe`` child (which runs on Python 2.7 and 3.5+). An interpreter that cannot run
it still gets its version read from ``python -V``, and the reason is kept: gpucheck never
substitutes its own facts for the target's.
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tf_gpucheck._children import script
from tf_gpucheck._process import describe_exit, run_child
from tf_gpucheck.target import Target, own_target


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
    """"" when the interpreter did not say."""
    python_executable: str
    distributions: tuple[RawDistribution, ...]
    error: str | None = None
    prefix: str | None = None
    base_prefix: str | None = None
    kind: str | None = None
    user_site: str | None = None


_VERSION = re.compile(r"\bPython (\d+\.\d+(?:\.\d+)?\S*)")


def probe_interpreter(target: Target | None = None, timeout_s: float = 60.0) -> InterpreterFacts:
    """Read the target's facts: in-process for gpucheck's own interpreter, else in a child."""
    target = target or own_target()
    python = target.python
    if target.is_own:
        from tf_gpucheck._children import interpreter_probe

        return _facts(interpreter_probe.collect(), python)
    with tempfile.TemporaryDirectory(prefix="gpucheck-interpreter-") as tmp:
        out = Path(tmp) / "facts.json"
        try:
            result = run_child([python, script("interpreter_probe"), str(out)], timeout_s=timeout_s)
        except OSError as exc:
            return InterpreterFacts("", python, (), error=f"cannot run {python}: {exc.strerror}")
        try:
            written = out.read_text(encoding="utf-8")
        except OSError:
            written = ""
    if result.returncode == 0:
        try:
            return _facts(json.loads(written), python)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            said = (result.stdout.strip() or result.stderr.strip()).splitlines()[:1]
            problem = f"{python} gave unreadable facts ({exc})" + (
                f"; it printed: {said[0][:200]}" if said else ""
            )
    else:
        lines = result.stderr.strip().splitlines()
        tail = lines[-1] if lines else ""
        problem = f"{python} {describe_exit(result.returncode)}: {tail}".strip().rstrip(":")
    return InterpreterFacts(version_of(python), python, (), error=problem)


def version_of(python: str, timeout_s: float = 20.0) -> str:
    """``python -V`` (stdout on Python 3, stderr on Python 2), or "" when it says nothing."""
    try:
        result = run_child([python, "-V"], timeout_s=timeout_s)
    except OSError:
        return ""
    match = _VERSION.search(result.stdout + "\n" + result.stderr)
    return match.group(1) if match else ""


def _facts(data: dict[str, Any], python: str) -> InterpreterFacts:
    dists = []
    for item in data["distributions"]:
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

    def text(key: str) -> str | None:
        value = data.get(key)
        return value if isinstance(value, str) else None

    return InterpreterFacts(
        python_version=str(data["python_version"]),
        # the path as given: a venv's bin/python, not the base binary it links to
        python_executable=python,
        distributions=tuple(dists),
        prefix=text("prefix"),
        base_prefix=text("base_prefix"),
        kind=text("kind"),
        user_site=text("user_site"),
    )
