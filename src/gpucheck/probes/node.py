"""Which machine this is: its host name and what the scheduler calls it (facts only)."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

from gpucheck.snapshot import NodeInfo

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
)
"""Environment variables that name a node or job to an operator."""


def probe_node(environ: Mapping[str, str] | None = None) -> NodeInfo:
    environ = os.environ if environ is None else environ
    try:
        hostname: str | None = socket.gethostname() or None
    except OSError:
        hostname = None
    labels = {name: environ[name] for name in NODE_VARIABLES if environ.get(name)}
    return NodeInfo(hostname=hostname, labels=labels)
