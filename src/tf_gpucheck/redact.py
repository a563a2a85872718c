"""`--redact`: a snapshot that can be pasted publicly.

Masks the host name, the user name and home folder, GPU UUIDs and serials, TF_CONFIG (cluster
addresses) and any environment value that looks like a secret, everywhere in the snapshot (paths,
log lines, errors), so every output format built from it is masked too.

A fleet report must still tell nodes apart, so the node's host name (and the labels that name a
host or pod) become *pseudonyms*: ``node-`` and eight letters of an HMAC-SHA256 of the name. The
key decides who can link a pseudonym to a host:

1. ``GPUCHECK_REDACT_KEY`` when set: the operator's own secret, the same on every node and every
   run, so pseudonyms are stable across runs and across nodes that redact themselves;
2. else this machine's ``/etc/machine-id`` (as systemd recommends, never the ID itself: an HMAC
   of it with gpucheck's own label): stable across runs on the machine that redacts, which is
   where ``gpucheck fleet --redact`` redacts a whole fleet;
3. else a random key for this run: distinct pseudonyms, stable only within the report.

A keyed hash cannot be reversed by hashing guessed host names (``gpu001``, ``gpu002``, ...)
without the key; the snapshot records only the key's id (``node.pseudonym_key``), an HMAC that
reveals nothing about the key, so reports redacted with the same key can be compared.
"""

from __future__ import annotations

import dataclasses
import getpass
import hashlib
import hmac
import json
import os
import re
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from tf_gpucheck.probes.node import HOST_NAMING_LABELS
from tf_gpucheck.snapshot import NodeInfo, Snapshot

UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
SECRET_VALUE = re.compile(
    r"(?i)(token|secret|password|passwd|api[_-]?key|auth)[=:]\S+|\b[A-Za-z0-9+/_\-]{32,}={0,2}\b"
)
KEY_VARIABLE = "GPUCHECK_REDACT_KEY"


@dataclass(frozen=True)
class PseudonymKey:
    """The key for node pseudonyms, and where it came from."""

    secret: bytes
    source: str
    """``GPUCHECK_REDACT_KEY``, ``machine-id`` or ``random``."""

    @property
    def id(self) -> str:
        """Names the key without revealing it: equal ids, comparable pseudonyms."""
        return hmac.new(self.secret, b"gpucheck key id", hashlib.sha256).hexdigest()[:8]

    def pseudonym(self, name: str) -> str:
        digest = hmac.new(self.secret, name.lower().encode("utf-8"), hashlib.sha256).digest()
        # Letters only: a pseudonym never ends in digits, so node lists never merge two of them
        # into one range.
        return "node-" + "".join(chr(ord("a") + byte % 26) for byte in digest[:8])

    def fingerprint(self, value: str) -> str:
        return hmac.new(self.secret, value.encode("utf-8"), hashlib.sha256).hexdigest()[:16]


def pseudonym_key(root: Path = Path("/")) -> PseudonymKey:
    """The key this machine redacts with (see the module's docstring for the order)."""
    value = os.environ.get(KEY_VARIABLE)
    if value:
        return PseudonymKey(value.encode("utf-8"), KEY_VARIABLE)
    try:
        machine_id = (root / "etc/machine-id").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        machine_id = ""
    if machine_id:
        secret = hmac.new(machine_id.encode("ascii"), b"gpucheck redact", hashlib.sha256).digest()
        return PseudonymKey(secret, "machine-id")
    return PseudonymKey(secrets.token_bytes(32), "random")


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


def node_pairs(node: NodeInfo, key: PseudonymKey) -> list[tuple[str, str]]:
    """The node's own names (its host name, the SLURM node, the Kubernetes node and pod), each
    with its pseudonym: they also appear inside paths and log lines."""
    if node.pseudonym_key is not None:
        return []
    names = [node.hostname, *(node.labels.get(label) for label in HOST_NAMING_LABELS)]
    pairs: list[tuple[str, str]] = []
    for name in names:
        if name and len(name) > 2 and name != "localhost":
            pairs.append((name, key.pseudonym(name)))
            short = name.split(".", 1)[0]
            if short != name and len(short) > 2:
                pairs.append((short, key.pseudonym(short)))
    return pairs


def identity_pairs(node: NodeInfo, key: PseudonymKey) -> list[tuple[str, str]]:
    """(value, mask) for the node's names and this machine's host, user and home, longest
    first ("gpu001.cluster" before "gpu001")."""
    pairs = [*node_pairs(node, key), *_identity()]
    return sorted(pairs, key=lambda pair: len(pair[0]), reverse=True)


def redact(snapshot: Snapshot, key: PseudonymKey | None = None) -> Snapshot:
    """The snapshot with every identifying value masked; an already redacted node keeps its
    pseudonyms."""
    key = key or pseudonym_key()
    pairs = identity_pairs(snapshot.node, key)
    snapshot = dataclasses.replace(snapshot, node=redact_node(snapshot.node, key))
    data = snapshot.to_dict()
    env = data["system"]["env"]
    for name, value in env.items():
        if value is None:
            continue
        if name == "TF_CONFIG" or SECRET_VALUE.search(value):
            env[name] = "<redacted>"

    def walk(value: object) -> object:
        if isinstance(value, str):
            return redact_text(value, pairs)
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        return value

    node = data.pop("node")  # already pseudonymous; its key id must not be masked
    redacted = walk(data)
    assert isinstance(redacted, dict)
    redacted["node"] = node
    return Snapshot.from_dict(json.loads(json.dumps(redacted)))


def redact_node(node: NodeInfo, key: PseudonymKey) -> NodeInfo:
    if node.pseudonym_key is not None:
        return node
    labels = {
        name: key.pseudonym(value) if name in HOST_NAMING_LABELS else value
        for name, value in node.labels.items()
    }
    tf_config = node.tf_config
    if tf_config is not None and tf_config.cluster_fingerprint is not None:
        # Unkeyed, the hash of a guessable cluster spec (worker-0:2222, ...) could be confirmed.
        tf_config = dataclasses.replace(
            tf_config, cluster_fingerprint=key.fingerprint(tf_config.cluster_fingerprint)
        )
    return NodeInfo(
        hostname=key.pseudonym(node.hostname) if node.hostname else None,
        labels=labels,
        pseudonym_key=key.id,
        tf_config=tf_config,
    )
