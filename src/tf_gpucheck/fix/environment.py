"""The target environment's distributions: listed, backed up file by file, and put back.

A backup is the files each distribution's RECORD lists, hard-linked into the journal folder
(copied where a link cannot be made). pip unlinks a file before it writes one (its wheel
installer says so: "first unlinking in case it's a hard link"), and its uninstall moves files
away, so a linked backup keeps the old bytes at no cost in space. Putting back needs neither
pip nor the network: remove what was added, copy back what was backed up; only a distribution
that changed without a backup is reinstalled by version.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tf_gpucheck._children import script
from tf_gpucheck._process import run_child
from tf_gpucheck.errors import GpucheckError


@dataclass(frozen=True)
class Dist:
    name: str
    """Normalised (PEP 503)."""
    version: str
    installer: str | None
    info: str
    """The .dist-info (or .egg-info) folder."""
    files: tuple[str, ...] = ()
    """What its RECORD lists (absolute), when asked for."""


@dataclass(frozen=True)
class Environment:
    """What the target installs into and what is installed there."""

    python: str
    prefix: str
    in_venv: bool
    externally_managed: bool
    site_dirs: tuple[str, ...]
    pip: str | None
    """pip's version in the target, or ``None`` when it has none."""
    dists: tuple[Dist, ...] = field(default=())

    def versions(self) -> dict[str, str]:
        return {d.name: d.version for d in self.dists}

    def get(self, name: str) -> Dist | None:
        wanted = normal(name)
        return next((d for d in self.dists if d.name == wanted), None)


def normal(name: str) -> str:
    """PEP 503's normal form of a distribution name."""
    return "".join("-" if c in "_." else c for c in name.lower())


def read_environment(
    python: str, with_files: Iterable[str] = (), timeout_s: float = 60.0
) -> Environment:
    """List the target's distributions (in a child of the target interpreter)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    try:
        result = run_child(
            [python, script("dist_list"), *sorted({normal(n) for n in with_files})],
            timeout_s=timeout_s,
            env=env,
        )
    except OSError as exc:
        raise GpucheckError(
            f"cannot run {python}: {exc.strerror}", reference="fix-no-interpreter"
        ) from None
    try:
        data = json.loads(result.stdout)
    except ValueError:
        said = (result.stderr.strip().splitlines() or ["nothing"])[-1]
        raise GpucheckError(
            f"{python} could not list its packages: {said[:200]}", reference="fix-list-failed"
        ) from None
    return Environment(
        python=python,
        prefix=str(data["prefix"]),
        in_venv=bool(data["in_venv"]),
        externally_managed=bool(data["externally_managed"]),
        site_dirs=tuple(data["site_dirs"]),
        pip=data.get("pip"),
        dists=tuple(
            Dist(
                str(d["name"]),
                str(d["version"]),
                d.get("installer"),
                str(d["info"]),
                tuple(d.get("files") or ()),
            )
            for d in data["dists"]
        ),
    )


# --- backup and restore ------------------------------------------------------------------


def backup(dists: Sequence[Dist], folder: Path) -> dict[str, dict[str, str]]:
    """Link (or copy) every file of ``dists`` into ``folder``; returns name -> {original: backup}."""
    saved: dict[str, dict[str, str]] = {}
    for dist in dists:
        where = folder / dist.name
        mapping: dict[str, str] = {}
        for number, original in enumerate(_all_files(dist)):
            if not os.path.isfile(original) or os.path.islink(original):
                continue
            copy = where / f"{number:06d}-{os.path.basename(original)}"
            copy.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(original, copy)
            except OSError:
                shutil.copy2(original, copy)
            mapping[original] = str(copy)
        saved[dist.name] = mapping
    return saved


def trees(dists: Sequence[Dist]) -> dict[str, list[str]]:
    """Every file now under each top-level folder the ``dists`` install into (``numpy/``,
    ``nvidia/``): what was there, so that files a half-finished install left can be found."""
    out: dict[str, list[str]] = {}
    for dist in dists:
        site = os.path.dirname(dist.info)
        for path in dist.files:
            relative = os.path.relpath(path, site)
            top = relative.split(os.sep, 1)[0]
            folder = os.path.join(site, top)
            if top in ("..", ".") or top.endswith((".dist-info", ".egg-info")) or folder in out:
                continue
            if os.path.isdir(folder):
                out[folder] = _walk(folder)
    return out


def remove_strays(recorded: dict[str, list[str]]) -> list[str]:
    """Delete files under the recorded folders that were not there when they were recorded."""
    removed = []
    for folder, files in recorded.items():
        known = set(files)
        for path in _walk(folder) if os.path.isdir(folder) else []:
            if path not in known:
                os.unlink(path)
                removed.append(path)
                _prune(os.path.dirname(path))
    return removed


def remove_stashes(site_dirs: Sequence[str], paths: Iterable[str]) -> list[str]:
    """pip's uninstall moves ``numpy/`` to ``~umpy/`` (and the dist-info likewise) until the
    install succeeds; a pip killed midway leaves them. Remove those of the given paths' folders."""
    tops = set()
    for path in paths:
        for site in site_dirs:
            if path.startswith(site + os.sep):
                tops.add(os.path.relpath(path, site).split(os.sep, 1)[0])
    removed = []
    for site in site_dirs:
        for entry in os.listdir(site) if os.path.isdir(site) else []:
            stripped = entry.lstrip("~")
            if entry.startswith("~") and any(t.endswith(stripped) for t in tops):
                target = os.path.join(site, entry)
                if os.path.isdir(target) and not os.path.islink(target):
                    shutil.rmtree(target, ignore_errors=True)
                else:
                    os.unlink(target)
                removed.append(target)
    return removed


def _walk(folder: str) -> list[str]:
    return [str(p) for p in Path(folder).rglob("*") if p.is_file()]


def _all_files(dist: Dist) -> list[str]:
    """What RECORD lists and whatever else is in the metadata folder (an INSTALLER or
    direct_url.json written after RECORD, an egg-info without RECORD)."""
    return sorted(set(dist.files) | set(_walk(dist.info)))


def remove(dist: Dist) -> None:
    """Delete a distribution's files (what its RECORD lists) and its metadata folder, and the
    folders left empty: what ``pip uninstall`` does, without pip."""
    folders: set[str] = set()
    for path in _all_files(dist):
        if os.path.isfile(path) or os.path.islink(path):
            try:
                os.unlink(path)
            except OSError:
                continue
            folders.add(os.path.dirname(path))
    shutil.rmtree(dist.info, ignore_errors=True)
    for folder in sorted(folders, key=len, reverse=True):
        _prune(folder)


def _prune(folder: str) -> None:
    while folder and os.path.isdir(folder):
        pycache = os.path.join(folder, "__pycache__")
        if os.path.isdir(pycache) and not any(
            not name.endswith(".pyc") for name in os.listdir(pycache)
        ):
            shutil.rmtree(pycache, ignore_errors=True)
        if os.listdir(folder):
            return
        os.rmdir(folder)
        folder = os.path.dirname(folder)


def put_back(mapping: dict[str, str]) -> None:
    for original, copy in mapping.items():
        os.makedirs(os.path.dirname(original), exist_ok=True)
        if os.path.lexists(original):
            os.unlink(original)
        try:
            os.link(copy, original)
        except OSError:
            shutil.copy2(copy, original)


@dataclass
class Restore:
    removed: list[str] = field(default_factory=list)
    """Distributions added since, now removed."""
    restored: list[str] = field(default_factory=list)
    """name==version put back from the backup (or reinstalled)."""
    failed: list[str] = field(default_factory=list)


def restore(
    python: str,
    before: dict[str, str],
    saved: dict[str, dict[str, str]],
    reinstall: Sequence[str] | None = None,
    recorded: dict[str, list[str]] | None = None,
) -> Restore:
    """Bring the target back to ``before`` (name -> version): remove what was added, put back
    what changed from its backup; what changed without one is reinstalled with ``reinstall``
    (the target's pip command) by exact version, without dependencies."""
    outcome = Restore()
    now = read_environment(python)
    changed = [d for d in now.dists if before.get(d.name) != d.version]
    gone = [n for n in before if now.get(n) is None]
    names = {d.name for d in changed} | set(gone)
    now = read_environment(python, with_files=names)
    for dist in now.dists:
        if dist.name in names:
            remove(dist)
            if dist.name not in before:
                outcome.removed.append(f"{dist.name} {dist.version}")
    for name in sorted(names):
        if name not in before:
            continue
        if saved.get(name):
            put_back(saved[name])
            outcome.restored.append(f"{name}=={before[name]}")
        elif reinstall:
            result = run_child(
                [*reinstall, "install", "--no-deps", f"{name}=={before[name]}"], timeout_s=1800
            )
            (outcome.restored if result.returncode == 0 else outcome.failed).append(
                f"{name}=={before[name]}"
            )
        else:
            outcome.failed.append(f"{name}=={before[name]}")
    remove_strays(recorded or {})
    remove_stashes(now.site_dirs, [*(recorded or {}), *(m for d in saved.values() for m in d)])
    after = read_environment(python).versions()
    for name, version in before.items():
        if after.get(name) != version and f"{name}=={version}" not in outcome.failed:
            outcome.failed.append(f"{name}=={version}")
    for name in after:
        if name not in before:
            outcome.failed.append(f"{name} (still installed)")
    return outcome


def diff(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """``name old -> new`` for every distribution added, removed or changed."""
    out = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old != new:
            out.append(f"{name} {old or '(none)'} -> {new or '(removed)'}")
    return out
