"""`--redact`: a snapshot that can be pasted publicly.

Masks the host name, the user name and home folder, GPU UUIDs and serials, TF_CONFIG (cluster
addresses) and any environment value that looks like a secret, everywhere in the snapshot (paths,
log lines, errors), so every output format built from it is masked too.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import socket
from pathlib import Path

from gpucheck.snapshot import Snapshot

UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
SECRET_VALUE = re.compile(
    r"(?i)(token|secret|password|passwd|api[_-]?key|auth)[=:]\S+|\b[A-Za-z0-9+/_\-]{32,}={0,2}\b"
)


def _identity() -> list[tuple[str, str]]:
    """(value, mask) pairs for this machine's host, user and home, longest first."""
    pairs: list[tuple[str, str]] = []
    home = str(Path.home())
    if home not in ("/", ""):
        pairs.append((home, "~"))
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = os.environ.get("USER", "")
    if user and user != "root" and len(user) > 2:
        pairs.append((user, "<user>"))
    host = socket.gethostname()
    if host and host != "localhost" and len(host) > 2:
        pairs.append((host, "<host>"))
    return sorted(pairs, key=lambda pair: len(pair[0]), reverse=True)


def redact_text(text: str, pairs: list[tuple[str, str]] | None = None) -> str:
    for value, mask in _identity() if pairs is None else pairs:
        text = text.replace(value, mask)
    return UUID.sub(lambda m: f"{m.group(1)}-<redacted>", text)


def redact(snapshot: Snapshot) -> Snapshot:
    data = snapshot.to_dict()
    env = data["system"]["env"]
    for name, value in env.items():
        if value is None:
            continue
        if name == "TF_CONFIG" or SECRET_VALUE.search(value):
            env[name] = "<redacted>"
    pairs = _identity()

    def walk(value: object) -> object:
        if isinstance(value, str):
            return redact_text(value, pairs)
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        return value

    return Snapshot.from_dict(json.loads(json.dumps(walk(data))))
