"""The installer's answers, kept: a proof is reused while what decided it is unchanged.

A dry run of ``tensorflow[and-cuda]`` takes a minute; doctor is run again after every change.
Each answer is stored under a key made of everything that decides it: the fix itself, the
target interpreter and the versions installed in it, the installer and its version, the
installer's settings (its environment variables and the contents of every configuration file it
reads, the index and find-links among them) and the folder it runs in. A changed environment or
setting is another key; an answer older than :data:`MAX_AGE_S` is asked again (the index moves).

The dry run itself runs in a process of its own (:mod:`tf_gpucheck.installer.worker`) that writes
its answer here, so a doctor that does not wait for it still leaves the answer for the next one.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tf_gpucheck import _cache
from tf_gpucheck.installer.proof import Proof, Target

MAX_AGE_S = 24 * 3600.0
"""An answer is reused for a day: the package index changes, a day-old resolution may not."""

SETTINGS = ("PIP_", "UV_", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "HOME", "XDG_CONFIG")
"""Environment variables the installers read (pip's PIP_*, uv's UV_*, where they look for config)."""


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    return Path(_cache.cache_dir(environ))


def config_files(environ: Mapping[str, str], python: str) -> list[str]:
    """The configuration files pip and uv read (pip's "Configuration" docs, uv's "Configuration
    files"): global, user, site (the environment's own pip.conf) and the one a variable names."""
    home = environ.get("HOME") or os.path.expanduser("~")
    config = environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    prefix = os.path.dirname(os.path.dirname(python))
    files = [
        "/etc/pip.conf",
        "/etc/xdg/pip/pip.conf",
        os.path.join(config, "pip", "pip.conf"),
        os.path.join(home, ".pip", "pip.conf"),
        os.path.join(prefix, "pip.conf"),
        os.path.join(config, "uv", "uv.toml"),
        "/etc/uv/uv.toml",
    ]
    for name in ("PIP_CONFIG_FILE", "UV_CONFIG_FILE"):
        if environ.get(name):
            files.append(environ[name])
    return files


def _digest(path: str) -> str:
    return _cache.file_digest(path)


@dataclass(frozen=True)
class ProofKey:
    """What decides an installer's answer to one fix, hashed."""

    digest: str

    @classmethod
    def of(cls, fix: str, target: Target) -> ProofKey:
        python, environ = target.python, target.environ
        env = os.environ if environ is None else environ
        settings = {k: v for k, v in env.items() if k.startswith(SETTINGS)}
        files = {f: _digest(f) for f in config_files(env, python)}
        folder = target.cwd or os.getcwd()
        local = {  # uv reads the project's own settings from the folder it runs in
            name: _digest(os.path.join(folder, name)) for name in ("uv.toml", "pyproject.toml")
        }
        material = {
            "fix": fix,
            "python": os.path.realpath(python),
            "pip": target.pip,
            "versions": sorted(target.versions.items()),
            "settings": sorted(settings.items()),
            "files": sorted(files.items()),
            "cwd": folder,
            "local": sorted(local.items()),
            "outside": sorted(target.outside),
        }
        text = json.dumps(material, sort_keys=True, default=str)
        return cls(hashlib.sha256(text.encode("utf-8")).hexdigest())


class ProofCache:
    def __init__(self, folder: Path | None = None, *, max_age_s: float = MAX_AGE_S) -> None:
        self.folder = (folder or cache_dir()) / "proofs"
        self.max_age_s = max_age_s

    def _path(self, key: ProofKey) -> Path:
        return self.folder / f"{key.digest}.json"

    def load(self, key: ProofKey) -> tuple[Proof, float] | None:
        """The installer's stored answer (proven or refused) and its age in seconds, when there
        is one younger than the limit."""
        found = self._read(key)
        if found is None:
            return None
        proof, at = found
        age = time.time() - at
        if age > self.max_age_s or age < -60 or proof.status not in ("proven", "refused"):
            return None
        return proof, max(0.0, age)

    def load_recent(self, key: ProofKey, since: float) -> tuple[Proof, float] | None:
        """Whatever the worker asked since ``since`` (``time.time()``) came back with, a "not
        proven" included (no index, an old pip): the answer of this very run."""
        found = self._read(key)
        if found is None or found[1] < since - 1:
            return None
        return found[0], max(0.0, time.time() - found[1])

    def _read(self, key: ProofKey) -> tuple[Proof, float] | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            at = float(data["at"])
            proof = Proof(
                data["status"],
                {name: (pair[0], pair[1]) for name, pair in data.get("changes", {}).items()},
                str(data.get("reason", "")),
                str(data.get("by", "")),
            )
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None
        if proof.status not in ("proven", "refused", "not_proven"):
            return None
        return proof, at

    def store(self, key: ProofKey, proof: Proof) -> None:
        """Keep an answer. Only the installer's own (proven or refused) is reused by a later run;
        one it did not give (a timeout, no index) is read by this run's doctor alone."""
        data = {
            "at": time.time(),
            "status": proof.status,
            "changes": {name: list(pair) for name, pair in proof.changes.items()},
            "reason": proof.reason,
            "by": proof.by,
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            temporary = self._path(key).with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(data), encoding="utf-8")
            os.replace(temporary, self._path(key))
        except OSError:
            return  # a cache that cannot be written costs only the next wait

    def claim(self, key: ProofKey, timeout_s: float) -> bool:
        """Whether this process may ask the installer for ``key`` now: False while another
        process is asking (its lock younger than ``timeout_s``)."""
        lock = self._path(key).with_suffix(".lock")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            if lock.exists() and time.time() - lock.stat().st_mtime < timeout_s:
                return False
            lock.write_text(str(os.getpid()), encoding="utf-8")
        except OSError:
            return True
        return True

    def release(self, key: ProofKey) -> None:
        try:
            self._path(key).with_suffix(".lock").unlink()
        except OSError:
            return

    def asking(self, key: ProofKey, timeout_s: float) -> bool:
        lock = self._path(key).with_suffix(".lock")
        try:
            return time.time() - lock.stat().st_mtime < timeout_s
        except OSError:
            return False


def age_words(age_s: float) -> str:
    if age_s < 90:
        return f"{int(age_s)} s ago"
    if age_s < 5400:
        return f"{int(age_s // 60)} min ago"
    return f"{age_s / 3600:.1f} h ago"
