"""What a command printed, kept while what decides it is unchanged.

Some of what doctor asks a program never changes between two runs unless one of its inputs does
(``pip config debug`` prints the settings the configuration files and variables give; ``pip
--version`` says where that script installs). Such an answer is kept under a key made of those
inputs (the files' contents or identities, the variables, the folder) and replayed until one
changes or it is a day old; anything else is asked every time.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Mapping

MAX_AGE_S = 24 * 3600.0


def cache_dir(environ: Mapping[str, str] | None = None) -> str:
    """``$TF_GPUCHECK_CACHE_DIR``, else ``$XDG_CACHE_HOME/tf-gpucheck``, else ``~/.cache/tf-gpucheck``."""
    env = os.environ if environ is None else environ
    if env.get("TF_GPUCHECK_CACHE_DIR"):
        return env["TF_GPUCHECK_CACHE_DIR"]
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tf-gpucheck")


def file_identity(path: str) -> str:
    """A file's identity for a key: its real path, size and modification time (or "absent")."""
    try:
        stat = os.stat(path)
    except OSError:
        return f"{path}:absent"
    return f"{os.path.realpath(path)}:{stat.st_size}:{stat.st_mtime_ns}"


def file_digest(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return "absent"


def remembered(kind: str, material: Iterable[object], ask: Callable[[], str | None]) -> str | None:
    """``ask()``'s text, or the one kept for exactly this ``material``; a ``None`` answer (the
    program did not answer) is never kept."""
    key = hashlib.sha256(json.dumps([kind, *material], default=str).encode()).hexdigest()
    path = os.path.join(cache_dir(), kind, f"{key}.json")
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        if 0 <= time.time() - float(data["at"]) <= MAX_AGE_S and isinstance(data["text"], str):
            return data["text"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    text = ask()
    if text is None:
        return None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump({"at": time.time(), "text": text}, handle)
        os.replace(temporary, path)
    except OSError:
        pass
    return text
