"""Prove, journal, apply, put back.

- **Prove**: before an operation runs, the installer's own resolver says what it would do
  (``pip install --dry-run --report``, pip 22.2+; ``uv pip install --dry-run``); every
  requirement the step names must be met by the version it picks, or nothing runs.
- **Journal**: before the first change, the environment's distributions and versions are
  written to a journal folder the user can read (``journal.json``), and the files of every
  distribution an operation will replace or remove are linked beside it.
- **Apply**: the installer runs with its own output shown as it goes.
- **Put back**: a failed operation, Ctrl-C, or checks afterwards that are worse than before
  restore the recorded versions (:func:`tf_gpucheck.fix.environment.restore`);
  ``gpucheck fix --undo`` does the same for the last journal.
"""

from __future__ import annotations

import json
import os
import shlex
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tf_gpucheck._process import run_child_streaming
from tf_gpucheck.fix.environment import (
    Environment,
    backup,
    read_environment,
    restore,
    trees,
)
from tf_gpucheck.fix.plan import TENSORFLOW_DISTRIBUTIONS, Step
from tf_gpucheck.installer.operations import Operation
from tf_gpucheck.installer.proof import Proof, Target, last_line, uv_executable
from tf_gpucheck.installer.proof import prove as prove_command


def prove(operation: Operation, env: Environment, timeout_s: float = 600.0) -> Proof:
    """What ``operation`` would change in ``env``, from the installer's own dry run."""
    root = os.path.realpath(env.prefix).rstrip(os.sep) + os.sep
    outside = sorted(
        d.name for d in env.dists if env.in_venv and not os.path.realpath(d.info).startswith(root)
    )
    target = Target(env.python, env.versions(), env.pip, outside=tuple(outside))
    return prove_command(operation, target, timeout_s)


def conda_owned(proof: Proof, env: Environment) -> str | None:
    """Why pip must not change what conda installed (conda keeps its own record of it), or
    ``None``."""
    conda = [
        name
        for name in proof.changes
        if (dist := env.get(name)) is not None and (dist.installer or "").strip() == "conda"
    ]
    if not conda:
        return None
    return (
        f"{', '.join(conda)} was installed by conda: change it with conda (conda install "
        f"{' '.join(conda)}), or let pip replace it: gpucheck fix --allow-conda"
    )


# --- the journal -------------------------------------------------------------------------


def state_dir() -> Path:
    """Where journals live: ``GPUCHECK_STATE_DIR``, else ``$XDG_STATE_HOME/gpucheck``, else
    ``~/.local/state/gpucheck``."""
    explicit = os.environ.get("GPUCHECK_STATE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "gpucheck"


@dataclass
class Journal:
    folder: Path
    data: dict[str, Any]

    @property
    def path(self) -> Path:
        return self.folder / "journal.json"

    @classmethod
    def start(cls, env: Environment) -> Journal:
        root = state_dir() / "fix"
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        root.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix=f"{stamp}-", dir=root))
        journal = cls(
            folder,
            {
                "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "python": env.python,
                "prefix": env.prefix,
                "before": env.versions(),
                "steps": [],
                "saved": {},
                "trees": {},
                "status": "started",
            },
        )
        journal.save()
        return journal

    def save(self) -> None:
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(self.data, indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, self.path)

    def note(self, **fields: Any) -> None:
        self.data.update(fields)
        self.save()

    @property
    def before(self) -> dict[str, str]:
        return dict(self.data["before"])

    @property
    def saved(self) -> dict[str, dict[str, str]]:
        return {k: dict(v) for k, v in self.data["saved"].items()}


def latest_journal(prefix: str) -> Journal | None:
    """The newest journal for the environment at ``prefix`` that changed something."""
    root = state_dir() / "fix"
    if not root.is_dir():
        return None
    for folder in sorted(root.iterdir(), reverse=True):
        try:
            data = json.loads((folder / "journal.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if data.get("prefix") == prefix and data.get("status") == "applied":
            return Journal(folder, data)
    return None


# --- apply -------------------------------------------------------------------------------


@dataclass
class Applied:
    done: list[Step] = field(default_factory=list)
    failed: Step | None = None
    reason: str = ""
    interrupted: bool = False
    stale: list[Step] = field(default_factory=list)
    """Steps not run because an earlier one changed TensorFlow (they were planned for the old
    one): the diagnosis afterwards says what is left."""
    changes: list[str] = field(default_factory=list)


class StepFailed(Exception):
    pass


def apply_steps(
    steps: tuple[Step, ...],
    journal: Journal,
    say: Callable[[str], None],
    *,
    allow_conda: bool = False,
    timeout_s: float = 3600.0,
) -> Applied:
    """Run every operation of every step; stop at the first that cannot be proven or fails.
    Ctrl-C propagates after the journal says where it stopped (the caller puts things back)."""
    applied = Applied()
    python = journal.data["python"]
    for number, step in enumerate(steps):
        changed_tf = False
        for operation in step.operations:
            env = read_environment(python)
            proof = prove(operation, env)
            if not proof.ok:
                applied.failed, applied.reason = step, proof.reason
                return applied
            conda = conda_owned(proof, env)
            if conda and not allow_conda:
                applied.failed, applied.reason = step, conda
                return applied
            touched = [n for n, (old, _) in proof.changes.items() if old is not None]
            changed_tf = changed_tf or bool(set(proof.changes) & TENSORFLOW_DISTRIBUTIONS)
            files = read_environment(python, with_files=touched)
            old = [d for d in files.dists if d.name in touched]
            saved = backup(old, journal.folder / "files")
            for folder, listed in trees(old).items():
                journal.data["trees"].setdefault(folder, listed)
            journal.data["saved"].update(
                {k: v for k, v in saved.items() if k not in journal.data["saved"]}
            )
            journal.data["steps"].append(
                {"cause": step.cause, "command": step.printed, "status": "running"}
            )
            journal.save()
            argv = operation.argv(python, uv_executable() or "uv")
            variables = [f"{name}={shlex.quote(value)}" for name, value in operation.environ]
            say("$ " + " ".join([*variables, shlex.join(argv)]))
            result = run_child_streaming(
                argv, timeout_s=timeout_s, on_line=say, env=operation.environment()
            )
            for line in result.stderr.splitlines():
                say(line)
            journal.data["steps"][-1]["status"] = "done" if result.returncode == 0 else "failed"
            journal.save()
            if result.returncode != 0:
                applied.failed = step
                applied.reason = last_line(result.stderr or result.stdout)
                return applied
        applied.done.append(step)
        if changed_tf and number + 1 < len(steps):
            applied.stale = list(steps[number + 1 :])
            say(
                "TensorFlow changed: the rest of the plan was made for the old one; diagnosing again"
            )
            break
    return applied


def put_back(journal: Journal) -> list[str]:
    """Restore the journal's recorded versions; what could not be restored, if anything."""
    python = journal.data["python"]
    env = read_environment(python)
    reinstall = [python, "-m", "pip"] if env.pip else None
    outcome = restore(
        python, journal.before, journal.saved, reinstall, journal.data.get("trees") or {}
    )
    journal.note(
        status="restored" if not outcome.failed else "restore-incomplete",
        restored=outcome.restored,
        removed=outcome.removed,
        not_restored=outcome.failed,
    )
    return outcome.failed


def refuse(env: Environment, own_tool: bool) -> str | None:
    """Why gpucheck must not change this environment at all, or ``None``."""
    if env.externally_managed and not env.in_venv:
        return (
            f"{env.prefix} is marked externally managed (PEP 668): its packages belong to the "
            "system's package manager; make a virtual environment (python3 -m venv ~/venv) and "
            "run gpucheck fix --python ~/venv/bin/python"
        )
    if own_tool:
        return (
            f"{env.prefix} is gpucheck's own tool environment (pipx or uv tool): point --python "
            "at the environment your code runs in"
        )
    return None


def is_tool_environment(prefix: str) -> bool:
    parts = Path(prefix).parts
    return ("pipx" in parts and "venvs" in parts) or ("uv" in parts and "tools" in parts)
