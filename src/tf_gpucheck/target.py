"""Which Python environment gpucheck diagnoses, and why that one.

The rule, in order: ``--python PATH`` (or a name on PATH); else the active virtual environment
(``VIRTUAL_ENV``), else the active conda environment (``CONDA_PREFIX``), when it is not
gpucheck's own; else gpucheck's own interpreter. An environment is identified by its prefix and
the executable path as given, never by the file the path resolves to: every venv made from one
base Python links to the same binary, yet each has its own packages.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from tf_gpucheck.errors import GpucheckError

CHOSEN_BY_WORDS = {
    "python_flag": "--python",
    "virtual_env": "active virtual environment",
    "conda_env": "active conda environment",
    "gpucheck": "gpucheck's own environment",
    "unknown": "not recorded",
    "stated": "the facts a text states",
}
"""How each way of choosing the target reads in a header."""


@dataclass(frozen=True)
class Target:
    """The interpreter to run the probes and children in."""

    python: str
    """Absolute path as given or found; symlinks are deliberately not resolved."""
    chosen_by: str
    """``python_flag``, ``virtual_env``, ``conda_env`` or ``gpucheck``."""
    cwd: str | None = None
    """The folder the user runs their program from (``--cwd``); ``None``: the current one."""

    @property
    def is_own(self) -> bool:
        """The very interpreter gpucheck runs in (same path, so the same environment)."""
        return _same_path(self.python, sys.executable)


def own_target() -> Target:
    return Target(os.path.abspath(sys.executable), "gpucheck")


def _same_path(a: str, b: str) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def _environment_python(prefix: str) -> str | None:
    for relative in (
        ("bin", "python"),
        ("bin", "python3"),
        ("Scripts", "python.exe"),
        ("python.exe",),
    ):
        candidate = os.path.join(prefix, *relative)
        if os.path.isfile(candidate):
            return os.path.abspath(candidate)
    return None


def resolve_python(python: str) -> str:
    """A ``--python`` value as an absolute path: an existing executable file, or a name on PATH."""
    candidate = python if os.sep in python or "/" in python else (shutil.which(python) or python)
    candidate = os.path.expanduser(candidate)
    if os.path.isdir(candidate):
        inside = _environment_python(candidate)
        if inside is None:
            dangling = [
                os.path.join(candidate, sub, name)
                for sub in ("bin", "Scripts")
                for name in ("python", "python3", "python.exe")
                if os.path.islink(os.path.join(candidate, sub, name))
            ]
            if dangling and broken_venv(dangling[0]) is not None:
                return os.path.abspath(dangling[0])  # the probe reports the broken environment
            if dangling:
                target = os.readlink(dangling[0])
                raise GpucheckError(
                    f"--python {python!r}: its {os.path.relpath(dangling[0], candidate)} is a "
                    f"link to {target}, which does not exist (the Python it was made from is "
                    "gone)",
                    reference="python-not-found",
                    hint=f"make the environment again: python3 -m venv --clear {candidate}",
                )
            raise GpucheckError(
                f"--python {python!r} is a folder with no bin/python in it",
                reference="python-not-found",
                hint="give the interpreter, e.g. --python ~/venvs/tf/bin/python",
            )
        return inside
    if not os.path.isfile(candidate) and broken_venv(candidate) is not None:
        return os.path.abspath(candidate)  # the probe reports the broken environment
    if not os.path.isfile(candidate):
        raise GpucheckError(
            f"--python {python!r}: no such interpreter",
            reference="python-not-found",
            hint="give the path of a Python executable, e.g. --python ~/venvs/tf/bin/python",
        )
    if not os.access(candidate, os.X_OK):
        raise GpucheckError(f"--python {python!r} is not executable", reference="python-not-found")
    return os.path.abspath(candidate)


def broken_venv(python: str) -> str | None:
    """Why a virtual environment's interpreter cannot run, when that is it: its ``bin/python``
    links to a base Python that is gone (uninstalled, upgraded, moved). ``None`` otherwise."""
    if not os.path.islink(python) or os.path.exists(python):
        return None
    root = os.path.dirname(os.path.dirname(os.path.abspath(python)))
    config = os.path.join(root, "pyvenv.cfg")
    try:
        with open(config, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    home = next(
        (
            line.partition("=")[2].strip()
            for line in text.splitlines()
            if line.partition("=")[0].strip() == "home"
        ),
        "",
    )
    return (
        f"the virtual environment {root} is broken: its Python links to "
        f"{os.readlink(python)}, which is gone (its base Python {home or 'is'} was removed "
        "or moved)"
    )


def choose_target(python: str | None, environ: Mapping[str, str] | None = None) -> Target:
    """Apply the rule in this module's docstring."""
    if python is not None:
        return Target(resolve_python(python), "python_flag")
    environ = os.environ if environ is None else environ
    own_prefix = os.path.realpath(sys.prefix)
    for variable, chosen_by in (("VIRTUAL_ENV", "virtual_env"), ("CONDA_PREFIX", "conda_env")):
        prefix = environ.get(variable)
        if not prefix:
            continue
        if os.path.realpath(prefix) == own_prefix:  # gpucheck lives in the active environment
            return Target(own_target().python, chosen_by)
        # An active environment without a working interpreter is reported as such (the probe
        # cannot run it), never quietly replaced by gpucheck's own.
        inside = _environment_python(prefix) or os.path.join(
            os.path.abspath(prefix), "bin", "python"
        )
        return Target(inside, chosen_by)
    return own_target()


def pip_command(python_executable: str, chosen_by: str, *, windows: bool = False) -> str:
    """How to run the target's pip: plain ``pip`` inside the active environment, else through
    the target interpreter itself (``pip`` on PATH may belong to another Python). Quoted for
    the shell of the target's OS (cmd and PowerShell take double quotes, not single)."""
    if chosen_by in ("python_flag", "gpucheck") and python_executable:
        return f"{shell_quote(python_executable, windows=windows)} -m pip"
    return "pip"


def shell_quote(path: str, *, windows: bool = False) -> str:
    """A path for the target's shell (cmd and PowerShell take double quotes, not single)."""
    if windows:
        return f'"{path}"' if " " in path else path
    return shlex.quote(path)


def rerun(python_executable: str, chosen_by: str, *args: str, windows: bool = False) -> str:
    """``gpucheck <args>`` for the same environment: ``--python`` kept where it chose the
    target (a re-run hint that dropped it would diagnose another environment)."""
    words = ["gpucheck", *args]
    if chosen_by == "python_flag" and python_executable:
        words[2:2] = ["--python", shell_quote(python_executable, windows=windows)]
    return " ".join(words)


def describe(python_executable: str, prefix: str | None, chosen_by: str) -> str:
    """The header line every command prints: ``diagnosing <prefix> (<why>)``."""
    where = prefix or python_executable or "an unknown interpreter"
    return f"diagnosing {where} ({CHOSEN_BY_WORDS.get(chosen_by, chosen_by)})"
