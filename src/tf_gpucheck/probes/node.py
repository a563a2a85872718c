"""Which machine this is: its host name, what the scheduler calls it, and its TF_CONFIG role
(facts only)."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

from tf_gpucheck.snapshot import NodeInfo
from tf_gpucheck.tfconfig import local_addresses, read_tf_config

NODE_VARIABLES: tuple[str, ...] = (
    # SLURM (srun/sbatch set these in every task's environment)
    "SLURM_CLUSTER_NAME",
    "SLURM_JOB_ID",
    "SLURM_JOB_NAME",
    "SLURMD_NODENAME",
    "SLURM_NODEID",
    "SLURM_PROCID",
    "SLURM_LOCALID",
    # Kubernetes: the pod's own name is its host name; node and namespace come from the
    # downward API under the names the example manifests use.
    "NODE_NAME",
    "POD_NAME",
    "POD_NAMESPACE",
    # Ray: `gpucheck fleet --ray` sets it for the task it pins to each node.
    "RAY_NODE_ID",
)
"""Environment variables that name a node or job to an operator."""

HOST_NAMING_LABELS: tuple[str, ...] = ("SLURMD_NODENAME", "NODE_NAME", "POD_NAME")
"""The labels whose value is a host or pod name, in the order they name a node when its host
name is unknown; ``--redact`` turns them into pseudonyms."""


def probe_node(environ: Mapping[str, str] | None = None) -> NodeInfo:
    environ = os.environ if environ is None else environ
    try:
        hostname: str | None = socket.gethostname() or None
    except OSError:
        hostname = None
    labels = {name: environ[name] for name in NODE_VARIABLES if environ.get(name)}
    tf_config = None
    value = environ.get("TF_CONFIG")
    if value:
        names = [hostname, *local_addresses()] if hostname else None
        tf_config = read_tf_config(value, [n for n in names or [] if n] if names else None)
    return NodeInfo(hostname=hostname, labels=labels, tf_config=tf_config)
