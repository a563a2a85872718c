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
from tf_gpucheck._codec import DecodeError, from_data
from tf_gpucheck._process import describe_exit, run_child
from tf_gpucheck.snapshot import ImportsInfo
from tf_gpucheck.target import Target, own_target


@dataclass(frozen=True)
class RawDistribution:
    name: str
    """Normalised (PEP 503) name."""
    version: str
    requires: tuple[str, ...] | None
    """Requires-Dist lines (requires.txt of an egg-info), verbatim; ``None``: not read."""
    libs: tuple[str, ...] | None
    """Shared libraries the distribution installed, for nvidia-* wheels only."""
    location: str | None = None
    """site, user_site, system_site, pythonpath, other (see ``Distribution.location``)."""
    requested: bool | None = None
    """The installer wrote REQUESTED: the user asked for it by name (not a dependency)."""
    installed_at: float | None = None
    """When its metadata folder was written (seconds since the epoch)."""
    pth: str | None = None
    """The ``.pth`` file that put its folder on sys.path (``location`` ``other``)."""
    twins: tuple[str, ...] = ()
    """Versions of other records of this name in the same folder (``pip install --target DIR
    --upgrade`` leaves the old one): which record an installer reads is its own choice."""


@dataclass(frozen=True)
class InterpreterFacts:
    python_version: str
    """"" when the interpreter did not say."""
    python_executable: str
    distributions: tuple[RawDistribution, ...]
    error: str | None = None
    prefix: str | None = None
    base_prefix: str | None = None
    base_executable: str | None = None
    base_pip: bool | None = None
    base_externally_managed: bool | None = None
    kind: str | None = None
    user_site: str | None = None
    markers: dict[str, str] | None = None
    """The target's environment markers (python_version, sys_platform, platform_system,
    platform_machine) for evaluating requirements; ``None`` when it did not say."""
    imports: ImportsInfo | None = None
    installer: str | None = None
    """``pip`` when the environment has pip, ``uv`` when uv made it without pip, else ``None``."""
    makes_venvs: bool | None = None
    """``python -m venv`` with pip works here (``venv`` and ``ensurepip`` are there)."""

    @property
    def pip_version(self) -> str | None:
        return next((d.version for d in self.distributions if d.name == "pip"), None)


_VERSION = re.compile(r"\bPython (\d+\.\d+(?:\.\d+)?\S*)")


def probe_interpreter(
    target: Target | None = None, timeout_s: float = 60.0, cwd: str | None = None
) -> InterpreterFacts:
    """Read the target's facts: in-process for gpucheck's own interpreter, else in a child.

    ``cwd`` is the folder the user runs their program from: the probe follows ``import
    tensorflow`` from there (found, never executed)."""
    target = target or own_target()
    python = target.python
    if target.is_own:
        from tf_gpucheck._children import interpreter_probe

        return _facts(interpreter_probe.collect(cwd), python)
    with tempfile.TemporaryDirectory(prefix="gpucheck-interpreter-") as tmp:
        out = Path(tmp) / "facts.json"
        argv = [python, script("interpreter_probe"), str(out), *([cwd] if cwd else [])]
        try:
            result = run_child(argv, timeout_s=timeout_s, cwd=tmp)
        except OSError as exc:
            from tf_gpucheck.target import broken_venv

            broken = broken_venv(python)
            return InterpreterFacts(
                "", python, (), error=broken or f"cannot run {python}: {exc.strerror}"
            )
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
        location = item.get("location")
        dists.append(
            RawDistribution(
                name=str(item["name"]),
                version=str(item["version"]),
                requires=tuple(requires) if requires is not None else None,
                libs=tuple(libs) if libs is not None else None,
                location=location if isinstance(location, str) else None,
                requested=_flag(item.get("requested")),
                installed_at=float(item["installed_at"])
                if isinstance(item.get("installed_at"), (int, float))
                else None,
                pth=item["pth"] if isinstance(item.get("pth"), str) else None,
                twins=tuple(str(v) for v in item.get("twins") or () if v is not None),
            )
        )

    def text(key: str) -> str | None:
        value = data.get(key)
        return value if isinstance(value, str) else None

    markers = {
        name: value
        for name, value in (
            ("python_version", ".".join(str(data["python_version"]).split(".")[:2])),
            ("python_full_version", str(data["python_version"])),
            ("sys_platform", text("sys_platform")),
            ("platform_system", text("platform_system")),
            ("platform_machine", text("platform_machine")),
        )
        if value
    }

    return InterpreterFacts(
        python_version=str(data["python_version"]),
        # the path as given: a venv's bin/python, not the base binary it links to
        python_executable=python,
        distributions=tuple(dists),
        prefix=text("prefix"),
        base_prefix=text("base_prefix"),
        base_executable=text("base_executable"),
        base_pip=_flag(data.get("base_pip")),
        base_externally_managed=_flag(data.get("base_externally_managed")),
        kind=text("kind"),
        user_site=text("user_site"),
        markers=markers if "sys_platform" in markers else None,
        imports=_imports(data.get("imports")),
        installer=text("installer"),
        makes_venvs=_flag(data.get("makes_venvs")),
    )


def _imports(data: object) -> ImportsInfo | None:
    """The probe's ``imports`` section, read as the snapshot reads it (one contract);
    ``None`` when it has none (an older probe's output)."""
    if not isinstance(data, dict):
        return None
    try:
        return from_data(ImportsInfo, data)
    except DecodeError as exc:
        return ImportsInfo(cwd=None, error=f"the probe's imports are unreadable: {exc}")


def _flag(value: object) -> bool | None:
    return value if isinstance(value, bool) else None
