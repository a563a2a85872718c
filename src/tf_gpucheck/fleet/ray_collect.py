"""``gpucheck fleet --ray``: the probes run on every alive node of a Ray cluster, the judging
happens here.

Ray does the running; gpucheck only asks it for one task per alive node, pinned to that node
(``NodeAffinitySchedulingStrategy``, not soft, no retries) and asking for no CPU and no GPU, so a
node busy with training still answers. Ray hides the GPUs from a task that asks for none
(``CUDA_VISIBLE_DEVICES=""``); the task's runtime environment tells Ray to leave that variable
alone, so the probes see the node as a training job that asks for its GPUs would. A node that
has not answered within the per-node timeout, or whose task failed, is reported as such. Every
node must have gpucheck installed in the Python Ray runs there (``pip install tf-gpucheck``).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import Any

from tf_gpucheck.errors import ExitCode, GpucheckError
from tf_gpucheck.fleet.inputs import NodeInput
from tf_gpucheck.snapshot import Snapshot

NOSET_CUDA_VISIBLE_DEVICES = "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"
"""Ray's own switch: do not set CUDA_VISIBLE_DEVICES for this worker."""


def probe_this_node(include_tensorflow: bool, timeout_s: float, node_id: str) -> dict[str, Any]:
    """The Ray task: this node's snapshot, as JSON-ready data (runs on the node)."""
    from tf_gpucheck.probes import LiveProbes, collect_snapshot

    environ = {k: v for k, v in os.environ.items() if k != NOSET_CUDA_VISIBLE_DEVICES}
    environ["RAY_NODE_ID"] = node_id
    snapshot = collect_snapshot(
        LiveProbes(environ=environ), include_tensorflow=include_tensorflow, timeout_s=timeout_s
    )
    return snapshot.to_dict()


def collect_from_ray(
    address: str | None,
    *,
    node_timeout_s: float,
    include_tensorflow: bool = True,
    progress: Callable[[str], None] | None = None,
) -> list[NodeInput]:
    """One snapshot per alive node of the Ray cluster at ``address`` (``None``: RAY_ADDRESS, else
    the running local cluster), or why that node gave none."""
    say = progress or (lambda _message: None)
    try:
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    except ImportError:
        raise GpucheckError(
            "Ray is not installed in this Python",
            reference="ray-missing",
            hint="pip install 'tf_gpucheck[ray]'",
        ) from None
    connected_here = not ray.is_initialized()
    if connected_here:
        say("Ray: connecting")
        try:
            ray.init(
                address=address or os.environ.get("RAY_ADDRESS") or "auto",
                log_to_driver=False,
                logging_level=logging.ERROR,
            )
        except (ConnectionError, ValueError, RuntimeError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise GpucheckError(
                f"cannot connect to a Ray cluster at {address or 'auto'}: {first}",
                reference="ray-unreachable",
                hint="ray status  # on the head node; or pass its address: gpucheck fleet --ray HOST:6379",
                exit_code=ExitCode.USAGE,
            ) from None
    try:
        return _collect(
            ray, NodeAffinitySchedulingStrategy, node_timeout_s, include_tensorflow, say
        )
    finally:
        if connected_here:
            ray.shutdown()


def _collect(
    ray: Any,
    affinity: Any,
    node_timeout_s: float,
    include_tensorflow: bool,
    say: Callable[[str], None],
) -> list[NodeInput]:
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    remote = ray.remote(probe_this_node)
    pending: dict[Any, dict[str, Any]] = {}
    for node in nodes:
        ref = remote.options(
            num_cpus=0,
            num_gpus=0,
            max_retries=0,
            scheduling_strategy=affinity(node_id=node["NodeID"], soft=False),
            runtime_env={"env_vars": {NOSET_CUDA_VISIBLE_DEVICES: "1"}},
        ).remote(include_tensorflow, max(1.0, node_timeout_s * 0.9), node["NodeID"])
        pending[ref] = node
    results: list[NodeInput] = []
    deadline = time.monotonic() + node_timeout_s
    while pending:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=left)
        for ref in ready:
            node = pending.pop(ref)
            try:
                data = ray.get(ref)
                results.append(_input(node, snapshot=Snapshot.from_dict(data)))
            except Exception as exc:  # the task failed or its node died: that node's answer
                results.append(_input(node, problem=f"the probe task failed: {_first_line(exc)}"))
        say(f"Ray: {len(results)} of {len(nodes)} nodes answered")
    for ref, node in pending.items():
        ray.cancel(ref, force=True)
        results.append(_input(node, problem=f"no answer within {node_timeout_s:g} s"))
    return results


def _input(
    node: dict[str, Any], *, snapshot: Snapshot | None = None, problem: str | None = None
) -> NodeInput:
    node_id = str(node.get("NodeID", ""))
    return NodeInput(
        f"ray node {node_id}",
        snapshot=snapshot,
        problem=problem,
        no_answer=snapshot is None,
        name_hint=str(node.get("NodeManagerHostname") or node.get("NodeManagerAddress") or node_id),
        tag=node_id[:8] or None,
        from_file=False,
    )


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {_first_line(cause)}"
    return lines[-1] if lines else type(exc).__name__
