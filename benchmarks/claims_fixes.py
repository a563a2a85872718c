"""The printed first fix, run on a copy of the environment, and the size of its change against the
oracle's smallest one (benchmarks/claims.py)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

import claims_recipes as recipes
from claims_oracle import (
    LEGACY_KERAS_MISSING,
    PROBE,
    Oracle,
    PipProblem,
    _specifier,
    _under,
    oracle_causes,
    parse_pip_check,
)
from claims_statements import _TF_DISTRIBUTIONS, run_doctor

Json = dict[str, Any]

# --- the first fix, run ---------------------------------------------------------------------

_PIP = re.compile(r"^pip(3(\.\d+)?)?$")
_PYTHON = re.compile(r"^python(3(\.\d+)?)?$")
_NEEDS_DOWNLOAD = re.compile(
    r"No matching distribution found|Could not find a version that satisfies|"
    r"not found in the provided package locations|not found in the cache|offline|"
    r"No solution found when resolving|"
    # pip offline, where the wheelhouse lacks what one candidate needs (the and-cuda extra's
    # nvidia wheels): "Cannot install tensorflow[and-cuda]==2.16.1 and ...==2.16.2 because these
    # package versions have conflicting dependencies"; the dry run against the index decides
    r"because these package versions have conflicting dependencies|ResolutionImpossible|"
    # uv offline, its metadata cached but not the wheel: "Failed to download `x==1`" caused by
    # "Network connectivity is disabled, but the requested data wasn't found in the cache"
    r"Failed to download|Network connectivity is disabled",
    re.IGNORECASE,
)
HOST_FIX = re.compile(
    r"\b(docker|podman|sudo|nvidia-ctk|systemctl|reboot|apt(-get)?|kubectl)\b|--gpus|nvidia-smi|driver"
)


IMPORT_CHECKS = frozenset({"tf_import", "tf_gpus", "gpu_matmul", "tf_log", "other_frameworks"})
"""Checks that see only what importing TensorFlow shows (skipped with --no-tf)."""


@dataclass
class FixResult:
    status: str
    """works, works_dry_run, fails, not_checkable, none"""
    fix: str | None
    cause: str | None
    why: str
    seconds: float = 0.0
    changed: list[str] = field(default_factory=list)
    """What the fix, run, changed: "numpy 2.2.6 -> 1.26.4", "keras (new) -> 3.12.0"."""
    size: str = ""
    """The oracle's judgment of its size: ``no_larger``, ``larger: ...`` (an accepted change the
    oracle made by its own experiment changes fewer distributions or crosses no major release of
    TensorFlow or Keras where the fix does), ``no_smaller: ...`` (the installer accepts no change
    of the oracle's), ``unjudged: ...`` with the reason, or "" where not asked."""


def split_fix(fix: str) -> list[list[str]] | None:
    """``a && b  # comment`` as argument lists; None when the shell syntax is not plain."""
    try:
        tokens = shlex.split(fix, comments=True)
    except ValueError:
        return None
    if any(t in ("|", ";", "||", ">", "<", "&") for t in tokens):
        return None
    parts: list[list[str]] = [[]]
    for token in tokens:
        if token == "&&":
            parts.append([])
        else:
            parts[-1].append(token)
    return [p for p in parts if p]


def _tilde(word: str, env: Mapping[str, str]) -> str:
    """``~`` or ``~/...`` at a word's start as the shell expands it (the fix prints it unquoted),
    with the user's $HOME (the copy's)."""
    home = env.get("HOME")
    if home and (word == "~" or word.startswith("~/")):
        return home + word[1:]
    return word


def _rewrite(value: str, w: Path, copy: Path) -> str:
    """``$W/...`` as ``$COPY/...`` (whole path components only)."""
    return re.sub(re.escape(str(w)) + r"(?=/|:|\s|$)", str(copy), value)


@dataclass
class Part:
    kind: str  # pip, uv, unset, export, file, venv
    argv: list[str]
    outside: bool = False
    """acts on an interpreter outside the copy: only its dry run is ever run"""
    subcommand: str = ""
    python: str | None = None
    """the interpreter it acts on, where known"""
    environ: dict[str, str] = field(default_factory=dict)
    """variables set before it on the line (``PIP_NO_INDEX=0 pip install ...``)"""


_DIST_FOLDERS = """
import json, os, sys
import importlib.metadata as m
out = {}
for name in sys.argv[1:]:
    try:
        out[name] = os.path.realpath(str(m.distribution(name).locate_file("")))
    except Exception:
        pass
print(json.dumps(out))
"""


def _dist_folders(
    python: str, names: list[str], env: Mapping[str, str], cwd: Path
) -> dict[str, str] | None:
    """Where ``python``, in the user's setting, finds each of ``names`` (``None``: it did not
    answer)."""
    code, text = _run([python, "-c", _DIST_FOLDERS, *names], env, cwd)
    try:
        line = next(x for x in reversed(text.splitlines()) if x.startswith("{"))
        found = json.loads(line) if code == 0 else None
    except (ValueError, StopIteration):
        return None
    return found if isinstance(found, dict) else None


def _shebang(script: str) -> str | None:
    try:
        with open(script, "rb") as handle:
            line = handle.readline(300).decode(errors="replace")
    except OSError:
        return None
    return line[2:].strip().split()[0] if line.startswith("#!") and line[2:].strip() else None


_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def _classify(part: list[str], env: Mapping[str, str], copy: Path) -> Part | None:
    """One ``&&`` part of a fix; ``NAME=value`` words before its command are that command's
    variables, as the shell takes them."""
    environ: dict[str, str] = {}
    while part and (assignment := _ASSIGNMENT.match(part[0])):
        environ[assignment.group(1)] = assignment.group(2)
        part = part[1:]
    if not part:
        return None
    classified = _classify_command(part, {**env, **environ}, copy)
    if classified is not None:
        classified.environ = environ
    return classified


def _classify_command(part: list[str], env: Mapping[str, str], copy: Path) -> Part | None:
    head = part[0]
    base = os.path.basename(head)
    path = env.get("PATH", "")

    def inside(exe: str) -> bool:
        return _under(exe, os.path.realpath(copy)) or os.path.abspath(exe).startswith(
            str(copy) + "/"
        )

    def resolve(exe: str) -> str | None:
        return exe if "/" in exe else shutil.which(exe, path=path)

    if head == "unset":
        return Part("unset", part[1:])
    if head == "export":
        return Part("export", part[1:])
    if head in ("mv", "rm"):
        paths = [p for p in part[1:] if not p.startswith("-")]
        if not paths or not all(os.path.abspath(p).startswith(str(copy) + "/") for p in paths):
            return None
        return Part("file", part)
    if _PYTHON.match(base) and part[1:3] == ["-m", "venv"]:
        # a fresh environment: made for real where it goes into the copy (its $HOME)
        folders = [p for p in part[3:] if not p.startswith("-")]
        exe = resolve(head)
        if exe is None or len(folders) != 1 or not inside(folders[0]):
            return None
        return Part("venv", [exe, *part[1:]], python=os.path.join(folders[0], "bin", "python"))
    if _PIP.match(base) or (_PYTHON.match(base) and part[1:3] == ["-m", "pip"]):
        exe = resolve(head)
        args = part[1:] if _PIP.match(base) else part[3:]
        sub = args[0] if args else ""
        if exe is None:
            return Part("pip", part, outside=True, subcommand=sub)
        if inside(exe):
            # a copy's bin/pip runs the original's python (its shebang): use the copy's python
            python = os.path.join(os.path.dirname(exe), "python") if _PIP.match(base) else exe
            return Part("pip", [python, "-m", "pip", *args], subcommand=sub, python=python)
        acts_on = _shebang(exe) if _PIP.match(base) else exe
        return Part("pip", [exe, *part[1:]], outside=True, subcommand=sub, python=acts_on)
    if head == "uv" and part[1:2] != ["pip"]:
        # any other uv command (uv add, uv sync, a doubled "uv uv"): run as written, in the copy
        return Part(
            "uv",
            [str(recipes.CACHE / "bin" / "uv"), *part[1:]],
            subcommand=part[1] if len(part) > 1 else "",
        )
    if head == "uv" and part[1:2] == ["pip"]:
        args = part[2:]
        chosen: str | None = None
        for i, arg in enumerate(args):
            if arg == "--python" and i + 1 < len(args):
                chosen = resolve(args[i + 1])
            elif arg.startswith("--python="):
                chosen = resolve(arg.split("=", 1)[1])
        if chosen is None:
            chosen = env.get("VIRTUAL_ENV")
        out = chosen is None or not inside(chosen) or "--system" in args
        return Part(
            "uv",
            [str(recipes.CACHE / "bin" / "uv"), "pip", *args],
            outside=out,
            subcommand=args[0] if args else "",
            python=chosen,
        )
    return None


def _dry(part: Part) -> list[str] | None:
    """The same command with --dry-run (pip: without --report, which would skip PEP 668)."""
    argv = list(part.argv)
    if part.subcommand != "install":
        return None
    at = argv.index("install")
    return [*argv[: at + 1], "--dry-run", *argv[at + 1 :]]


@dataclass(frozen=True)
class PipOptions:
    no_index: bool
    find_links: tuple[str, ...]


_PIP_OPTIONS = (
    "import json\n"
    "from pip._internal.commands import create_command\n"
    "o, _ = create_command('install').parse_args([])\n"
    "print(json.dumps([bool(o.no_index), list(o.find_links or [])]))"
)


def _pip_options(part: Part, env: Mapping[str, str], cwd: Path) -> PipOptions | None:
    """What the user's pip takes from its variables and config files (pip's own option parser,
    run by the interpreter that runs that pip, in the user's setting); None where unknown."""
    argv = part.argv
    python = argv[0] if argv[1:3] == ["-m", "pip"] else _shebang(argv[0]) or part.python
    if not python:
        return None
    code, text = _run([python, "-c", _PIP_OPTIONS], env, cwd, timeout=60)
    try:
        no_index, find_links = json.loads(text.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    return PipOptions(bool(no_index), tuple(str(f) for f in find_links)) if code == 0 else None


def _dry_wheels(
    part: Part,
    env: Mapping[str, str],
    options: PipOptions | None,
    built: recipes.Built,
    target: str,
) -> dict[str, str]:
    """The variables of a fix's dry run against the index: the user's own, plus, where their pip
    uses an index, the wheelhouses as find-links after their own (pip prefers a file found there
    to the same file on an index: nothing is downloaded twice, and what it resolves is the same,
    since every wheel there came from the index). The fix's requirements are downloaded there
    first (once per Python version)."""
    out = dict(env)
    if options is None or options.no_index or built.dry_wheels is None:
        return out
    wheels = built.dry_wheels
    if part.python and os.path.realpath(part.python) == os.path.realpath(target):
        specs = recipes.requirement_specs(part.argv[part.argv.index("install") :])
        wheels.ensure(built.python_minor, specs, deps="--no-deps" not in part.argv)
    out["PIP_FIND_LINKS"] = " ".join(
        [*options.find_links, str(built.wheelhouse), str(wheels.folder)]
    )
    return out


def _run(argv: list[str], env: Mapping[str, str], cwd: Path, timeout: int = 900) -> tuple[int, str]:
    try:
        proc = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            env=dict(env),
            cwd=cwd,
            check=False,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {timeout} s"
    except OSError as exc:
        return 127, str(exc)
    text = "\n".join(
        line
        for line in (proc.stdout + proc.stderr).splitlines()
        if "is ignored: it is neither" not in line
    )
    return proc.returncode, text


def _error_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("ERROR:", "error:", "×", "Error")):
            return line[:240]
    return (lines[-1] if lines else "")[:240]


PACKAGE_CHECKS = frozenset({"tf_requirements", "tf_install"})
"""Checks that read what is installed (metadata, the installer's check), whatever the import
does: a cause of theirs that appears only after a fix, the fix brought."""


def _package_causes(report: Json) -> set[str]:
    return {
        str(f["cause"])
        for f in report.get("findings") or []
        if f.get("check") in PACKAGE_CHECKS and f.get("cause") and f.get("status") == "fail"
    }


def check_fix(
    built: recipes.Built,
    report: Json,
    gpucheck_python: str,
    *,
    no_tf: bool,
    activated: bool,
    oracle: Oracle | None = None,
) -> FixResult:
    """Run the printed first fix the way the contract's section 3 says; with the ``oracle``,
    judge its size against the oracle's own smallest change."""
    first = report.get("first_fix")
    if not isinstance(first, dict) or not first.get("fix"):
        return FixResult("none", None, first.get("cause") if isinstance(first, dict) else None, "")
    fix, cause = str(first["fix"]), str(first.get("cause") or "")
    start = time.monotonic()
    parts = split_fix(fix)
    if parts is None:
        return FixResult("not_checkable", fix, cause, "not a plain command line")
    w = built.w
    copy = w.parent / "wfix"
    if copy.exists():
        shutil.rmtree(copy)
    subprocess.run(["cp", "-al", str(w), str(copy)], check=True)
    try:
        base_env = built.activate_env if activated else built.user_env
        env = {k: _rewrite(v, w, copy) for k, v in base_env.items()}
        parts = [[_tilde(_rewrite(t, w, copy), env) for t in p] for p in parts]
        classified = [_classify(p, env, copy) for p in parts]
        if any(c is None for c in classified) or HOST_FIX.search(fix.split("#", maxsplit=1)[0]):
            return FixResult(
                "not_checkable", fix, cause, "not a package, variable or file operation"
            )
        cwd = Path(_rewrite(str(built.cwd), w, copy))
        # what is installed before the fix (a recipe's later step may already have moved a
        # version the user asked for: that is not the fix's doing)
        target = _rewrite(built.target, w, copy)
        before = _versions(target, env, cwd)
        # what the environment itself holds, without what PYTHONPATH lends it: a fix that only
        # stops a lent copy hiding the environment's own changes no version of the user's
        own = (
            _versions(target, {k: v for k, v in env.items() if k != "PYTHONPATH"}, cwd)
            if env.get("PYTHONPATH")
            else before
        )
        would: dict[str, str] = {}
        """What the installer's dry runs say they would install (where a download was needed)."""
        dry_only = False
        fresh = False  # the fix made a new environment: the rest is judged there
        for part in classified:
            assert part is not None
            if part.kind == "unset":
                for name in part.argv:
                    env.pop(name, None)
                continue
            if part.kind == "export":
                for item in part.argv:
                    name, _, value = item.partition("=")
                    env[name] = value
                continue
            own = {**env, **part.environ}
            if part.kind == "venv":
                code, text = _run(part.argv, own, cwd)
                if code != 0 or part.python is None or not os.path.exists(part.python):
                    return FixResult(
                        "fails",
                        fix,
                        cause,
                        f"makes no environment: exits {code}: {_error_line(text)}",
                    )
                target, fresh = part.python, True
                continue
            if part.kind == "file":
                code, text = _run(part.argv, own, cwd)
                if code != 0:
                    return FixResult(
                        "fails", fix, cause, f"{part.argv[0]} exits {code}: {_error_line(text)}"
                    )
                continue
            if part.outside and part.kind == "pip" and part.subcommand == "uninstall":
                # another interpreter (a venv's base) uninstalling what the user's setting shows
                # it: run for real only where all it finds lies in the copy (the user site there)
                names = [a for a in part.argv[part.argv.index("uninstall") + 1 :] if a[:1] != "-"]
                found = _dist_folders(part.python or part.argv[0], names, own, cwd)
                if found is None or any(
                    not _under(f, os.path.realpath(copy)) for f in found.values()
                ):
                    return FixResult(
                        "not_checkable", fix, cause, f"it uninstalls outside the copy: {found}"
                    )
                code, text = _run(part.argv, own, cwd)
                if code != 0:
                    return FixResult("fails", fix, cause, f"exits {code}: {_error_line(text)}")
                continue
            if part.outside and part.python is None and part.kind == "pip":
                return FixResult(
                    "fails", fix, cause, f"{part.argv[0]}: command not found on the user's PATH"
                )
            if part.outside or dry_only:
                dry = _dry(part)
                if dry is None:
                    return FixResult(
                        "not_checkable",
                        fix,
                        cause,
                        f"{part.subcommand} on an interpreter outside the environment",
                    )
                options = _pip_options(part, own, cwd) if part.kind == "pip" else None
                code, text = _run(dry, _dry_wheels(part, own, options, built, target), cwd)
                if code != 0 and "no such option: --dry-run" in text:
                    # pip before 22.2: the download the wheelhouse lacks cannot be asked about
                    # without making it
                    return FixResult(
                        "not_checkable",
                        fix,
                        cause,
                        "needs a download the wheelhouse lacks, and this pip has no --dry-run",
                    )
                if code != 0:
                    return FixResult(
                        "fails", fix, cause, f"the installer refuses: {_error_line(text)}"
                    )
                # the same interpreter: the same folder (every venv's python links to its base
                # interpreter, so the files themselves would make all venvs one)
                diagnosed = os.path.realpath(os.path.dirname(built.target))
                acts_on = os.path.realpath(os.path.dirname(part.python or "/nonexistent/x"))
                if part.outside and acts_on != diagnosed:
                    return FixResult(
                        "fails",
                        fix,
                        cause,
                        f"accepted, but acts on {part.python or part.argv[0]}, not {built.target}",
                    )
                dry_only = True  # the diagnosed interpreter lies outside $W (the system's)
                continue
            # the harness's own wheelhouse stands in for the index, so only where the user's pip
            # (its own option parser, in their setting, with the fix's variables) uses an index
            options = _pip_options(part, own, cwd) if part.kind == "pip" else None
            offline = dict(own)
            if options is not None and not options.no_index:
                offline["PIP_NO_INDEX"] = "1"
                offline["PIP_FIND_LINKS"] = " ".join([*options.find_links, str(built.wheelhouse)])
            elif part.kind == "pip":
                pass  # no index for this pip (or its options unknown): the command as it is
            else:
                offline["UV_OFFLINE"] = "1"
                offline["UV_FIND_LINKS"] = str(built.wheelhouse)
            code, text = _run(part.argv, offline, cwd)
            if code == 0:
                continue
            if _NEEDS_DOWNLOAD.search(text) and part.subcommand == "install":
                dry = _dry(part)
                assert dry is not None
                code, text = _run(dry, _dry_wheels(part, own, options, built, target), cwd)
                if code != 0 and "no such option: --dry-run" in text:
                    return FixResult(  # pip before 22.2, as on the path outside the copy
                        "not_checkable",
                        fix,
                        cause,
                        "needs a download the wheelhouse lacks, and this pip has no --dry-run",
                    )
                if code != 0:
                    return FixResult(
                        "fails", fix, cause, f"the installer refuses: {_error_line(text)}"
                    )
                dry_only = True
                would.update(_would_install(text))
                continue
            return FixResult("fails", fix, cause, f"exits {code}: {_error_line(text)}")
        if dry_only:
            # its size from what the dry runs would install, over what is installed
            changed = (
                [] if fresh or not would else _changes(before, _installed_after(before, would))
            )
            size = ""
            if oracle is not None and cause in _FAMILIES_SIZED:
                size = (
                    _size(built, oracle, changed, fresh=fresh)
                    if fresh or changed
                    else "unjudged: its dry run names nothing it would install"
                )
            return FixResult(
                "works_dry_run",
                fix,
                cause,
                "needs a download the wheelhouse lacks; its dry run is accepted",
                time.monotonic() - start,
                changed,
                size,
            )
        # the cause's check decides whether TensorFlow must be imported to see it again
        again = run_doctor(
            built,
            gpucheck_python,
            no_tf=no_tf or str(first.get("check")) not in IMPORT_CHECKS,
            activated=activated and not fresh,
            target=target,
            cwd=cwd,
            env=env,
        )
        if again.report is None:
            return FixResult(
                "fails", fix, cause, f"doctor gives no report afterwards: {again.stderr_tail}"
            )
        left = {c.get("cause") for c in again.report.get("causes") or []}
        left |= {f.get("cause") for f in again.report.get("findings") or []}
        if cause in left:
            return FixResult(
                "fails", fix, cause, "doctor still reports it afterwards", time.monotonic() - start
            )
        # brought: a cause neither doctor nor the oracle's own experiments found before the fix
        # (one the oracle found, such as a second unmet range that doctor's one finding named
        # by the first range's cause, was there already)
        before_truth = set(oracle_causes(oracle)) if oracle is not None else set()
        brought = sorted(_package_causes(again.report) - _package_causes(report) - before_truth)
        if brought:
            return FixResult(
                "fails",
                fix,
                cause,
                "it brings " + ", ".join(brought),
                time.monotonic() - start,
            )
        if fresh:  # what the fix installs is there (not in a folder the user's pip points to)
            there = {canonicalize_name(n) for n in _versions(target, env, cwd)}
            named = [
                Requirement(spec).name
                for part in classified
                if part is not None and part.python == target and part.subcommand == "install"
                for spec in recipes.requirement_specs(part.argv[part.argv.index("install") :])
            ]
            absent = [n for n in named if canonicalize_name(n) not in there]
            if absent:
                return FixResult(
                    "fails",
                    fix,
                    cause,
                    f"the new environment lacks {', '.join(absent)}",
                    time.monotonic() - start,
                )
        # a fresh environment leaves the user's own as it was: nothing of theirs goes down,
        # except a version that breaks what an installed distribution declares (putting it back
        # in that range is the smallest change there is)
        breaking = _may_go_down(built, oracle.pip_check()[0]) if oracle else set()
        lower = [] if fresh else _went_down(built, target, env, cwd, before, breaking, own)
        if lower:
            return FixResult(
                "fails",
                fix,
                cause,
                "took down what the user chose: " + ", ".join(lower),
                time.monotonic() - start,
            )
        changed = [] if fresh else _changes(before, _versions(target, env, cwd))
        sized = oracle is not None and cause in _FAMILIES_SIZED
        size = _size(built, oracle, changed, fresh=fresh) if oracle is not None and sized else ""
        return FixResult("works", fix, cause, "", time.monotonic() - start, changed, size)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def _versions(target: str, env: Mapping[str, str], cwd: Path) -> dict[str, str]:
    """Each distribution's version as ``target`` sees it (the oracle's own probe)."""
    proc = subprocess.run(
        [target, "-c", PROBE, "tensorflow"],
        capture_output=True,
        text=True,
        env=dict(env),
        cwd=cwd,
        check=False,
        timeout=300,
    )
    try:
        dists = json.loads(proc.stdout).get("dists") or {}
    except ValueError:
        return {}
    return {
        str(name): str(info["version"])
        for name, info in dists.items()
        if isinstance(info, dict) and info.get("version")
    }


def _went_down(
    built: recipes.Built,
    target: str,
    env: Mapping[str, str],
    cwd: Path,
    before: Mapping[str, str],
    breaking: set[str] | frozenset[str] = frozenset(),
    own: Mapping[str, str] | None = None,
) -> list[str]:
    """The versions the user asked for that the fix lowered (from what was there before it),
    below the version the user chose: what another environment lent through ``PYTHONPATH`` may
    be newer than the user's own choice, and the user's choice is no loss. ``breaking``: the
    distributions the oracle's pip check finds outside what another declares, which may go.
    ``own``: what the environment itself held before the fix (``PYTHONPATH`` left out); a
    version it already had is not one the fix lowered (a later step of the recipe moved it)."""
    after = _versions(target, env, cwd)
    out = []
    for name, chosen in sorted(built.explicit.items()):
        key = canonicalize_name(name)
        if key in breaking:
            continue
        was, now = before.get(key), after.get(key)
        if own is not None and now is not None and own.get(key) == now:
            continue
        try:
            if was and now and Version(now) < Version(was) and Version(now) < Version(chosen):
                out.append(f"{name} {was} -> {now}")
        except InvalidVersion:
            continue
    return out


_DECLARES = """
import json, os, platform, sys
import importlib.metadata as m
names = set(sys.argv[1:])
found = {}
for d in m.distributions():
    name = (d.metadata["Name"] or "").lower().replace("_", "-").replace(".", "-")
    if name in names:
        found.setdefault(name, list(d.requires or []))
markers = {
    "python_version": "%d.%d" % sys.version_info[:2],
    "python_full_version": platform.python_version(),
    "sys_platform": sys.platform,
    "platform_system": platform.system(),
    "platform_machine": platform.machine(),
    "platform_release": platform.release(),
    "platform_version": platform.version(),
    "os_name": os.name,
    "implementation_name": sys.implementation.name,
    "platform_python_implementation": platform.python_implementation(),
    "extra": "",
}
print(json.dumps({"requires": found, "markers": markers}))
"""


def _may_go_down(built: recipes.Built, problems: Sequence[PipProblem]) -> set[str]:
    """What a fix may take below the version the user chose, by the installed metadata (read
    from the environment as built, before any fix): both sides of each requirement the pip check
    finds unmet (the installed version outside the range; a companion declaring it, such as
    tf-keras 2.17 over TensorFlow 2.15, though not TensorFlow itself), and each distribution
    whose own requirement on such a package, its marker evaluated in the target, shares no
    version with the unmet range (jax 0.6.2's ``numpy>=1.25`` against TensorFlow 2.12's
    ``numpy<=1.24.3,>=1.22``): meeting the range takes it back too."""
    out = {p.name for p in problems if p.have}
    out |= {p.of for p in problems if p.of not in _TF_DISTRIBUTIONS}
    ranges = {
        p.name: spec
        for p in problems
        if p.have and (spec := _specifier(p.requirement, p.name)) is not None
    }
    chosen = sorted({canonicalize_name(n) for n in built.explicit} - out)
    if not ranges or not chosen:
        return out
    proc = subprocess.run(
        [built.target, "-c", _DECLARES, *chosen],
        capture_output=True,
        text=True,
        env=dict(built.user_env),
        cwd=built.cwd,
        check=False,
        timeout=300,
    )
    try:
        read = json.loads(proc.stdout)
    except ValueError:
        return out
    markers = read.get("markers") or {}
    for name, lines in (read.get("requires") or {}).items():
        for line in lines:
            try:
                declared = Requirement(line)
                if declared.marker is not None and not declared.marker.evaluate(markers):
                    continue
            except (InvalidRequirement, ValueError):
                continue
            unmet = ranges.get(canonicalize_name(declared.name))
            if unmet is not None and not _share(declared.specifier, unmet):
                out.add(name)
    return out


def _share(a: SpecifierSet, b: SpecifierSet) -> bool:
    """Some version lies in both: each bound either names, and the versions just past it, are
    tried (a release between two bounds is one of them or no release is in both)."""
    tried: set[Version] = set()
    for clause in [*a, *b]:
        try:
            bound = Version(clause.version.removesuffix(".*"))
        except InvalidVersion:
            return True  # not comparable: not known to conflict
        major, minor, micro = (*bound.release, 0, 0)[:3]
        tried |= {
            bound,
            Version(f"{major}.{minor}.{micro + 1}"),
            Version(f"{major}.{minor + 1}"),
            Version(f"{major + 1}"),
        }
    if not tried:
        return True
    return any(a.contains(v, prereleases=True) and b.contains(v, prereleases=True) for v in tried)


_WOULD_PIP = re.compile(r"^Would install (?P<dists>.+)$", re.MULTILINE)
_WOULD_UV = re.compile(r"^ \+ (?P<name>[A-Za-z0-9][\w.-]*)==(?P<version>\S+)\s*$", re.MULTILINE)


def _would_install(text: str) -> dict[str, str]:
    """name -> version of what a dry run says it would install: pip's "Would install a-1.0
    b-2.0" (each item the name and version joined by the last hyphen), uv's " + a==1.0"."""
    out: dict[str, str] = {}
    for line in _WOULD_PIP.finditer(text):
        for item in line["dists"].split():
            name, _, version = item.rpartition("-")
            if name and version[:1].isdigit():
                out[canonicalize_name(name)] = version
    for match in _WOULD_UV.finditer(text):
        out[canonicalize_name(match["name"])] = match["version"]
    return out


def _installed_after(before: Mapping[str, str], would: Mapping[str, str]) -> dict[str, str]:
    """What is installed once ``would`` is: a name already there keeps its own spelling."""
    after = dict(before)
    spelled: dict[str, str] = {canonicalize_name(name): name for name in before}
    for name, version in would.items():
        after[spelled.get(name, name)] = version
    return after


def _changes(before: Mapping[str, str], after: Mapping[str, str]) -> list[str]:
    """Each distribution whose version the fix changed, added or removed."""
    out = []
    for name in sorted(set(before) | set(after)):
        was, now = before.get(name), after.get(name)
        if was != now:
            out.append(f"{name} {was or '(new)'} -> {now or '(removed)'}")
    return out


_MAJOR_WATCHED = re.compile(r"^(tensorflow(-\w+)?|tf-nightly|keras|tf-keras)$")


def _majors(changed: Sequence[str]) -> list[str]:
    """The changes that cross a major release of TensorFlow or Keras (Keras 2 to 3): code written
    for one major does not run on the other. A distribution added or removed crosses none."""
    out = []
    for line in changed:
        name, _, move = line.partition(" ")
        was, _, now = move.partition(" -> ")
        if not _MAJOR_WATCHED.match(name):
            continue
        try:
            if was == "(new)" or now == "(removed)":
                continue  # nothing was there to cross from, or nothing is left
            if Version(was).major != Version(now).major:
                out.append(line)
        except InvalidVersion:
            continue
    return out


_HOST_CAUSES = frozenset({"container_no_gpu", "no_nvidia_driver", "no_nvidia_gpu"})
"""What this machine lacks and no fix in the environment changes."""

_FAMILIES_SIZED = frozenset(
    {"numpy_incompatible", "protobuf_incompatible", "tf_requirement_unmet", "keras_mismatch"}
)


def _size(built: recipes.Built, oracle: Oracle, changed: list[str], *, fresh: bool = False) -> str:
    """The oracle's own smallest change against what the fix changed (majors crossed first, then
    how many distributions): ``no_larger``; ``larger: ...``; ``no_smaller: ...`` where the
    installer accepts no change of the oracle's in place (nothing smaller exists to prefer); or
    ``unjudged: ...`` with the reason. A ``fresh`` fix made a new environment: it is no larger
    only where no change in place is accepted."""
    problems, _tool = oracle.pip_check()
    if not problems:
        return "unjudged: the installer's check finds nothing unmet"
    smallest, why = _smallest(built, oracle, problems)
    if smallest is None:
        return why
    if fresh:
        return (
            f"larger: the fix makes a new environment; {why} changes {len(smallest)} in place: "
            + ", ".join(smallest)
        )
    ours = (len(_majors(changed)), len(changed))
    theirs = (len(_majors(smallest)), len(smallest))
    if ours <= theirs:
        return "no_larger"
    return (
        f"larger: the fix changes {len(changed)} ({len(_majors(changed))} across a "
        f"major release); {why} changes {len(smallest)}: " + ", ".join(smallest)
    )


_MACHINE = re.compile(r"No space left on device|Errno 28|MemoryError|timed out after")
"""What this machine ran out of, not the installer's judgment of the change."""


def _refused(words: str, text: str) -> str:
    """The verdict for an install that did not go through: the harness's own failure (a full
    disk) is not the installer refusing the change."""
    if _MACHINE.search(text):
        return f"unjudged: the harness failed {words}: {_error_line(text)}"
    return f"no_smaller: the installer refuses {words}: {_error_line(text)}"


def _smallest(
    built: recipes.Built, oracle: Oracle, problems: Sequence[PipProblem]
) -> tuple[list[str] | None, str]:
    """The oracle's own change: one install, into a copy, of every requirement the installer's
    check finds unmet, together with each distribution that declares one at the version it has
    (so the installer's resolver reads the range from that distribution's own metadata: pip check
    names a missing requirement without its range), unless another requirement moves it, with no
    setting of the user's and the
    harness's wheelhouse for the index. Accepted where it leaves no unmet requirement the check did
    not already list and none of those it meant. Where the wheelhouse lacks a download, the dry run
    against the index decides and what it would install is the change. Returns the changes and
    the words of the install, or None and the verdict."""
    wanted = sorted({p.requirement or p.name for p in problems})
    # a declarer is kept at its version unless it is itself what another requirement moves
    # (Keras 3.5 over TensorFlow 2.15 declares namex; TensorFlow declares keras<2.16)
    moved = {p.name for p in problems}
    wanted += sorted(
        {f"{p.of}=={p.of_version}" for p in problems if p.of_version and p.of not in moved}
    )
    if oracle_causes(oracle).get("keras_mismatch") == LEGACY_KERAS_MISSING:
        # tf.keras is tf-keras there, and none is installed: a change that meets the check
        # without it leaves that cause, so it is no smaller; the resolver picks the tf-keras
        # the pinned TensorFlow accepts
        wanted.append("tf-keras")
    words = "installing " + " ".join(wanted)
    w = built.w
    copy = w.parent / "wsmall"
    if copy.exists():
        shutil.rmtree(copy)
    subprocess.run(["cp", "-al", str(w), str(copy)], check=True)
    try:
        env = {
            k: _rewrite(v, w, copy)
            for k, v in built.user_env.items()
            if not k.startswith(("PIP_", "UV_"))
        }
        env["PIP_CONFIG_FILE"] = os.devnull
        target = _rewrite(built.target, w, copy)
        cwd = Path(_rewrite(str(built.cwd), w, copy))
        before = _versions(target, env, cwd)
        # the system's interpreter: its user site, in the copy's $HOME (never the system's own)
        user = (
            ["--user"]
            if os.path.realpath(target) == os.path.realpath(recipes.SYSTEM_PYTHON)
            else []
        )
        by_pip = bool(oracle.view("clean").get("pip"))
        if by_pip:
            argv = [target, "-m", "pip", "install", *user, *wanted]
            check = [target, "-m", "pip", "check"]
        else:
            uv = str(oracle.tools / "uv")
            argv = [uv, "pip", "install", "--python", target, *wanted]
            check = [uv, "pip", "check", "--python", target]
        offline = {
            **env,
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(built.wheelhouse),
            "UV_OFFLINE": "1",
            "UV_FIND_LINKS": str(built.wheelhouse),
        }
        code, text = _run(argv, offline, cwd)
        if code != 0 and _NEEDS_DOWNLOAD.search(text):
            at = argv.index("install")
            dry = [*argv[: at + 1], "--dry-run", *argv[at + 1 :]]
            online = dict(env)
            folders = [str(built.wheelhouse)]
            if built.dry_wheels is not None:
                built.dry_wheels.ensure(built.python_minor, wanted, deps=True)
                folders.append(str(built.dry_wheels.folder))
            online["PIP_FIND_LINKS"] = " ".join(folders)  # pip splits its variables on spaces
            if not by_pip:  # uv: each folder its own --find-links
                dry = [*dry[:3], *(a for f in folders for a in ("--find-links", f)), *dry[3:]]
            code, text = _run(dry, online, cwd)
            if code != 0:
                return None, _refused(words, text)
            after = _installed_after(before, _would_install(text))
            unmet = [
                p.requirement
                for p in problems
                if p.requirement and not _meets(after, p.name, p.requirement)
            ]
            if unmet:
                return None, f"no_smaller: {words} leaves {', '.join(unmet)} unmet (its dry run)"
            return _changes(before, after), words + " (its dry run)"
        if code != 0:
            return None, _refused(words, text)
        _code, text = _run(check, env, cwd)
        left = parse_pip_check(text)
        if any(p in left for p in problems) or any(p not in problems for p in left):
            return None, f"no_smaller: {words} leaves the check unmet: {_error_line(text)}"
        return _changes(before, _versions(target, env, cwd)), words
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def _meets(after: Mapping[str, str], name: str, requirement: str) -> bool:
    """Whether the version of ``name`` in ``after`` is in ``requirement``'s range."""
    have = {canonicalize_name(n): v for n, v in after.items()}.get(canonicalize_name(name))
    try:
        return have is not None and Requirement(requirement).specifier.contains(
            have, prereleases=True
        )
    except (InvalidRequirement, InvalidVersion):
        return False
