"""Multi-worker TensorFlow: the ``tf_config`` check of one node, and what only a fleet can see
(nodes whose ``TF_CONFIG`` clusters disagree, two nodes claiming one task).

TensorFlow's rules, from ``tf.distribute.cluster_resolver.TFConfigClusterResolver`` and
``MultiWorkerMirroredStrategy``: ``TF_CONFIG`` is a JSON object with a ``cluster`` (job name ->
list of ``host:port``) and a ``task`` (``type`` and ``index``) that must name one of the
cluster's tasks; the ``chief`` job has at most one task, and without a chief, worker 0 does the
chief's work (checkpoints, summaries), so a cluster needs a chief or a worker.
"""

from __future__ import annotations

from tf_gpucheck.checks.findings import Finding, fail, ok, skip, warn
from tf_gpucheck.installer import intent
from tf_gpucheck.snapshot import Snapshot, TfConfigInfo
from tf_gpucheck.tfconfig import read_tf_config

CHECK = "tf_config"
_FIX = intent.variable(
    "TF_CONFIG",
    '{"cluster": {"worker": ["host1:2222", "host2:2222"]}, "task": {"type": "worker", "index": 0}}',
    note="the same cluster on every node, this node's task",
)


def tf_config_facts(snapshot: Snapshot) -> TfConfigInfo | None:
    """The recorded facts, else (a snapshot from before they were recorded) read from the raw
    value with the host name as the only name this host is known by."""
    if snapshot.node.tf_config is not None:
        return snapshot.node.tf_config
    value = snapshot.system.env.get("TF_CONFIG")
    if not value or value == "<redacted>":
        return None
    hostname = snapshot.node.hostname
    return read_tf_config(value, [hostname] if hostname else None)


def judge_tf_config(snapshot: Snapshot) -> Finding:
    raw = snapshot.system.env.get("TF_CONFIG")
    facts = tf_config_facts(snapshot)
    if facts is None:
        if raw == "<redacted>":
            return skip(CHECK, "TF_CONFIG is redacted and its facts were not recorded")
        return skip(CHECK, "TF_CONFIG is not set: not a multi-worker job")
    if facts.error:
        return fail(
            CHECK,
            "tf_config_invalid_json",
            f"TF_CONFIG is not valid: {facts.error}",
            "MultiWorkerMirroredStrategy and the other multi-worker strategies parse TF_CONFIG "
            "with json.loads when they start.",
            _FIX,
        )
    if facts.cluster_problem:
        return fail(
            CHECK,
            "tf_config_no_cluster",
            f"TF_CONFIG has no usable cluster spec: {facts.cluster_problem}",
            fix=_FIX,
        )
    shape = ", ".join(f"{job} x{count}" for job, count in sorted(facts.cluster.items()))
    task = f"{facts.task_type}:{facts.task_index}"
    if facts.task_problem or facts.task_type is None or facts.task_index is None:
        return fail(
            CHECK,
            "tf_config_task_invalid",
            f"TF_CONFIG names no valid task for this process: {facts.task_problem}",
            f"Cluster: {shape}",
            _FIX,
        )
    size = facts.cluster.get(facts.task_type)
    if size is None:
        return fail(
            CHECK,
            "tf_config_task_invalid",
            f"TF_CONFIG's task type {facts.task_type!r} is not a job of its cluster ({shape})",
            fix=_FIX,
        )
    if not 0 <= facts.task_index < size:
        return fail(
            CHECK,
            "tf_config_task_invalid",
            f"TF_CONFIG's task {task} is outside its cluster: job {facts.task_type!r} has "
            f"{size} task(s), indices 0-{size - 1}",
            fix=_FIX,
        )
    chiefs = facts.cluster.get("chief", 0)
    if chiefs > 1:
        return fail(
            CHECK,
            "tf_config_no_chief",
            f"TF_CONFIG's cluster has {chiefs} chiefs; TensorFlow allows one",
            f"Cluster: {shape}",
            _FIX,
        )
    if chiefs == 0 and not facts.cluster.get("worker"):
        return fail(
            CHECK,
            "tf_config_no_chief",
            f"TF_CONFIG's cluster has neither a chief nor a worker 0 to act as chief ({shape})",
            fix=_FIX,
        )
    mine = facts.this_host_tasks
    if mine is not None and task not in mine:
        where = (
            f"this host's address is {', '.join(mine)} in the cluster"
            if mine
            else "no address in the cluster names this host"
        )
        return warn(
            CHECK,
            "tf_config_host_not_in_cluster",
            f"TF_CONFIG says this process is {task}, but {where}",
            "Each worker listens on its own cluster address; a task whose address is another "
            "host's waits for a peer that never answers. (A name gpucheck cannot tell apart, "
            "such as a load balancer, also gives this warning.)",
            "set task.index on each node to the position of its own address in the cluster",
        )
    here = "" if mine is None else " (its address names this host)"
    return ok(CHECK, f"TF_CONFIG: task {task}{here} in a cluster of {shape}")


def fleet_findings(nodes: dict[str, Snapshot]) -> dict[str, Finding]:
    """What only the whole fleet shows: nodes whose cluster differs from the majority's, and
    nodes that claim a task another node also claims. Keyed by node name; only nodes with a
    finding appear. Nodes redacted with different keys are compared only with their own kind."""
    out: dict[str, Finding] = {}
    groups: dict[str | None, dict[str, TfConfigInfo]] = {}
    for name, snapshot in nodes.items():
        facts = tf_config_facts(snapshot)
        if facts is not None and facts.cluster_fingerprint is not None:
            groups.setdefault(snapshot.node.pseudonym_key, {})[name] = facts
    for members in groups.values():
        counts: dict[str, int] = {}
        for facts in members.values():
            assert facts.cluster_fingerprint is not None
            counts[facts.cluster_fingerprint] = counts.get(facts.cluster_fingerprint, 0) + 1
        majority = max(sorted(counts), key=lambda fp: counts[fp])
        claims: dict[str, list[str]] = {}
        for name, facts in members.items():
            if facts.task_type is not None and facts.task_index is not None:
                claims.setdefault(f"{facts.task_type}:{facts.task_index}", []).append(name)
        for name, facts in sorted(members.items()):
            if len(counts) > 1 and facts.cluster_fingerprint != majority:
                out[name] = fail(
                    CHECK,
                    "tf_config_cluster_mismatch",
                    f"this node's TF_CONFIG cluster differs from the one {counts[majority]} of "
                    f"{len(members)} nodes share",
                    "Every worker of one job must be given the same cluster spec; only the task "
                    "differs from node to node.",
                    "give every node the same TF_CONFIG cluster (only task.index differs)",
                )
        for task, names in sorted(claims.items()):
            if len(names) > 1:
                for name in names:
                    if name not in out:
                        others = ", ".join(n for n in sorted(names) if n != name)
                        out[name] = fail(
                            CHECK,
                            "tf_config_task_duplicate",
                            f"task {task} is also claimed by {others}",
                            "Two processes with one task index both try to be that worker.",
                            "give each node its own task.index",
                        )
    return out
