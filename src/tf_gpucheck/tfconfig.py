"""``TF_CONFIG`` read as facts: the cluster's shape, this task, and which tasks are this host.

TensorFlow's multi-worker strategies read ``TF_CONFIG``, a JSON object such as
``{"cluster": {"worker": ["host1:2222", "host2:2222"]}, "task": {"type": "worker", "index": 0}}``
(tf.distribute.cluster_resolver.TFConfigClusterResolver). The value lists every address of the
cluster, so ``--redact`` masks it; :func:`read_tf_config` keeps what a judgement needs and no
address. Which tasks are *this* host can only be told on the host itself (its own IP addresses
are not in the snapshot), so the probe records it.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
from collections.abc import Iterable
from pathlib import Path

from tf_gpucheck.snapshot import TfConfigInfo


def read_tf_config(value: str, host_names: Iterable[str] | None) -> TfConfigInfo:
    """The facts of one ``TF_CONFIG`` value; ``host_names`` are this host's names and addresses
    (``None`` when unknown)."""
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        return TfConfigInfo(error=f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    if not isinstance(data, dict):
        return TfConfigInfo(error=f"not a JSON object but a {type(data).__name__}")
    cluster, cluster_problem = _cluster(data.get("cluster"))
    task_type, task_index, task_problem = _task(data.get("task"))
    names = _normalise(host_names) if host_names is not None else None
    mine: tuple[str, ...] | None = None
    if names is not None and cluster is not None:
        mine = tuple(
            f"{job}:{index}"
            for job, addresses in sorted(cluster.items())
            for index, address in enumerate(addresses)
            if _names_host(address, names)
        )
    fingerprint = None
    if cluster is not None:
        canonical = json.dumps(cluster, sort_keys=True, separators=(",", ":"))
        fingerprint = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]
    return TfConfigInfo(
        cluster={job: len(addresses) for job, addresses in (cluster or {}).items()},
        cluster_problem=cluster_problem,
        task_type=task_type,
        task_index=task_index,
        task_problem=task_problem,
        this_host_tasks=mine,
        cluster_fingerprint=fingerprint,
    )


def _cluster(value: object) -> tuple[dict[str, list[str]] | None, str | None]:
    if value is None:
        return None, "it has no cluster spec (the 'cluster' key)"
    if not isinstance(value, dict) or not value:
        return None, "'cluster' is not a non-empty mapping of job names to address lists"
    cluster: dict[str, list[str]] = {}
    for job, given in value.items():
        addresses = given
        # TensorFlow's ClusterSpec also takes {index: address} mappings for sparse jobs.
        if isinstance(given, dict):
            try:
                addresses = [given[k] for k in sorted(given, key=int)]
            except (TypeError, ValueError):
                return None, f"job {job!r} maps non-integer task indices to addresses"
        if not isinstance(addresses, list) or not all(isinstance(a, str) and a for a in addresses):
            return None, f"job {job!r} is not a list of 'host:port' addresses"
        cluster[str(job)] = addresses
    return cluster, None


def _task(value: object) -> tuple[str | None, int | None, str | None]:
    if value is None:
        return None, None, "it has no 'task' (type and index of this process)"
    if not isinstance(value, dict):
        return None, None, "'task' is not a mapping with 'type' and 'index'"
    task_type = value.get("type")
    index = value.get("index", 0)  # TFConfigClusterResolver: the index defaults to 0
    if not isinstance(task_type, str) or not task_type:
        return None, None, "'task' has no 'type'"
    if isinstance(index, str) and index.strip().isdigit():
        index = int(index)
    if not isinstance(index, int) or isinstance(index, bool):
        return task_type, None, f"the task index {index!r} is not an integer"
    return task_type, index, None


def _host_part(address: str) -> str:
    address = address.strip()
    for scheme in ("grpc://", "http://", "https://"):
        if address.startswith(scheme):
            address = address[len(scheme) :]
    if address.startswith("["):  # [::1]:2222
        return address[1:].split("]", 1)[0].lower()
    if address.count(":") == 1:
        return address.split(":", 1)[0].lower()
    return address.lower()


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _normalise(names: Iterable[str]) -> set[str]:
    out = {"localhost", "127.0.0.1", "::1"}
    for given in names:
        name = given.strip().lower()
        if name:
            out.add(name)
            if not _is_ip(name):
                out.add(name.split(".", 1)[0])
    return out


def _names_host(address: str, names: set[str]) -> bool:
    host = _host_part(address)
    if host in names:
        return True
    # A Kubernetes address (worker-0.trainer.ns.svc:2222) names the pod by its first label.
    return not _is_ip(host) and host.split(".", 1)[0] in names


def local_addresses(root: Path = Path("/")) -> list[str]:
    """This host's own IPv4 addresses, from /proc/net/fib_trie (no DNS, no network)."""
    try:
        text = (root / "proc/net/fib_trie").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    found: list[str] = []
    last = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("|--", "+--")):
            last = stripped[3:].strip().split(" ")[0]
        elif stripped.startswith("/32 host LOCAL") and last and last not in found:
            found.append(last)
    return found
