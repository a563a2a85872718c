"""The installer's own answer to a command, before anything changes: its dry run.

``pip install --dry-run --report`` (pip 22.2+) and ``uv pip install --dry-run`` resolve the
command against the index and say what they would install; every requirement the command names
must be met by the version they pick. A command the resolver rejects is **refused** with the
installer's own line; one that could not be asked (no index, an old pip) is **not proven**.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tf_gpucheck._process import ChildResult, run_child
from tf_gpucheck.installer.operations import Operation

REPORT_PIP = Version("22.2")
"""pip's ``install --dry-run --report`` (pip 22.2 release notes)."""


@dataclass(frozen=True)
class Target:
    """Where the installer is asked: the target's interpreter, the versions installed in it, its
    pip's version (``None``: no pip), the user's variables and folder, and the distributions it
    sees that lie outside a virtual environment (the user site, the base's site-packages).
    Plain data: a worker's request carries it through :mod:`tf_gpucheck._codec`."""

    python: str
    versions: dict[str, str] = field(default_factory=dict)
    pip: str | None = None
    environ: dict[str, str] | None = None
    cwd: str | None = None
    outside: tuple[str, ...] = ()


@dataclass(frozen=True)
class Proof:
    """The installer's answer to one command."""

    status: Literal["proven", "refused", "not_proven"]
    changes: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    """name -> (version now or None, version after or None)."""
    reason: str = ""
    """refused: the installer's own line; not proven: why not."""
    by: str = ""
    """What answered ("pip 25.2 --dry-run")."""

    @property
    def ok(self) -> bool:
        return self.status == "proven"

    def to_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "by": self.by,
            "detail": self.reason,
            "changes": {name: list(pair) for name, pair in self.changes.items()},
        }


def uv_executable() -> str | None:
    return shutil.which("uv")


def prove(operation: Operation, target: Target, timeout_s: float = 600.0) -> Proof:
    """What ``operation`` would change in ``target``, from the installer's own dry run. What lies
    outside a virtual environment (``target.outside``) the venv's pip leaves ("Not uninstalling
    ... outside environment"); its base interpreter's pip (``operation.python``) removes those."""
    python, now, pip = target.python, dict(target.versions), target.pip
    environ, cwd, outside = target.environ, target.cwd, target.outside
    if operation.verb == "uninstall":
        names = [normal(n) for n in operation.names()]
        away = {normal(n) for n in outside}
        base = operation.python is not None and operation.python != python
        gone = [n for n in names if n in now and (n in away) == base]
        return Proof("proven", {n: (now[n], None) for n in gone}, by="pip uninstall")
    by = f"pip {pip} --dry-run" if operation.runner == "pip" else "uv --dry-run"
    if operation.runner == "uv":
        uv = uv_executable()
        if uv is None:
            return Proof("refused", reason="this environment was made by uv and uv is not on PATH")
        result = run_child(
            [*operation.argv(python, uv), "--dry-run"],
            timeout_s=timeout_s,
            env=operation.environment(environ),
            cwd=cwd,
            background=True,
        )
        if result.returncode != 0:
            return _unanswered(result, timeout_s, "uv --dry-run") or _failed(
                result.stderr or result.stdout, "uv --dry-run"
            )
        picked, dropped = _uv_dry_run(result.stderr + result.stdout)
    else:
        if pip is None:
            return Proof(
                "refused", reason="this environment has no pip (python -m ensurepip adds it)"
            )
        if _version(pip) < REPORT_PIP:
            return Proof(
                "not_proven",
                reason=f"pip {pip} cannot show what it would install (--dry-run --report "
                f"needs pip {REPORT_PIP}); the plan cannot be proven here",
            )
        with tempfile.TemporaryDirectory(prefix="gpucheck-fix-") as tmp:
            report_path = Path(tmp) / "report.json"
            # pip's own temporary files (a wheel it downloads to read, pip-unpack-*) go in here
            # too: a dry run stopped at the proof's deadline leaves nothing behind in /tmp
            env = dict(operation.environment(environ) or os.environ)
            env["TMPDIR"] = tmp
            result = run_child(
                [*operation.argv(python), "--dry-run", "--quiet", "--no-input", "--retries", "1",
                 "--report", str(report_path)],
                timeout_s=timeout_s, env=env, cwd=cwd, background=True,
            )  # fmt: skip
            if result.returncode != 0:
                by = f"pip {pip} --dry-run"
                return _unanswered(result, timeout_s, by) or _failed(
                    result.stderr or result.stdout, by
                )
            try:
                report = json.loads(report_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return Proof("not_proven", reason="pip wrote no report")
        picked = {
            normal(item["metadata"]["name"]): str(item["metadata"]["version"])
            for item in report.get("install", [])
        }
        dropped = set()
    changes: dict[str, tuple[str | None, str | None]] = {
        name: (now.get(name), version)
        for name, version in picked.items()
        if now.get(name) != version
    }
    for name in dropped:
        changes.setdefault(name, (now.get(name), None))
    for requirement in operation.requirements:
        problem = _unmet(requirement, picked, now)
        if problem:
            return Proof("refused", changes, problem, by)
    return Proof("proven", changes, by=by)


def _uv_dry_run(text: str) -> tuple[dict[str, str], set[str]]:
    """uv's ``Would install`` list: `` + name==version`` and `` - name==version`` lines."""
    picked: dict[str, str] = {}
    dropped: set[str] = set()
    for line in text.splitlines():
        words = line.strip().split()
        if len(words) == 2 and words[0] in ("+", "-") and "==" in words[1]:
            name, _, version = words[1].partition("==")
            if words[0] == "+":
                picked[normal(name)] = version
            else:
                dropped.add(normal(name))
    return picked, dropped - set(picked)


def _unmet(requirement: str, picked: dict[str, str], now: dict[str, str]) -> str | None:
    try:
        parsed = Requirement(requirement)
    except InvalidRequirement:
        return f"{requirement!r} is not a requirement pip can read"
    name = normal(parsed.name)
    version = picked.get(name) or now.get(name)
    if version is None:
        return f"the resolver picks no {parsed.name}"
    if parsed.specifier and not parsed.specifier.contains(version, prereleases=True):
        return f"the resolver picks {parsed.name} {version}, not {parsed.specifier}"
    return None


def _version(text: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        return Version("0")


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    return (errors or lines or ["the installer failed"])[-1][:300]


NETWORK_TROUBLE = (
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "Connection refused",
    "ConnectTimeoutError",
    "ReadTimeoutError",
    "Max retries exceeded",
    "Could not fetch URL",
    "failed to fetch",
    "Failed to fetch",
    "dns error",
    "error sending request",
    "offline mode",
)
"""Lines of pip and uv that say the index could not be reached (not an answer about the command)."""


LOCAL_TROUBLE = (
    # pip's create_os_error_message (pip/_internal/commands/install.py): a full disk, a file
    # too large, a folder it cannot write; seen: "[Errno 28] No space left on device"
    "Could not install packages due to an OSError",
    # uv: Rust's io::Error of a full disk, a quota, a file too large, e.g. "No space left on
    # device (os error 28)"; other os errors (a build tool missing) are answers about the command
    "(os error 28)",
    "(os error 122)",
    "(os error 27)",
)
"""Lines that say the installer could not run on this machine (not an answer about the command:
the same command may be accepted once the machine is in order)."""


def _unanswered(result: ChildResult, timeout_s: float, by: str) -> Proof | None:
    """A dry run that did not finish (it ran past its time, or was stopped): no answer about
    the command."""
    if result.timed_out:
        return Proof(
            "not_proven", reason=f"the installer had not answered in {timeout_s:.0f} s", by=by
        )
    if result.returncode is not None and result.returncode < 0:
        return Proof("not_proven", reason="the installer was stopped before it answered", by=by)
    return None


def _failed(text: str, by: str) -> Proof:
    line = last_line(text)
    if any(marker in text for marker in NETWORK_TROUBLE):
        return Proof("not_proven", reason=f"the package index did not answer: {line}", by=by)
    if any(marker in text for marker in LOCAL_TROUBLE):
        return Proof("not_proven", reason=f"the installer could not run here: {line}", by=by)
    return Proof("refused", reason=line, by=by)


def normal(name: str) -> str:
    """PEP 503's normal form of a distribution name."""
    return canonicalize_name(name)
