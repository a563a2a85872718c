"""The tf_config check (one node) and the fleet's view of TF_CONFIG (clusters that disagree)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import scenario
from tf_gpucheck.checks import Status, run_checks
from tf_gpucheck.checks.multiworker import fleet_findings, judge_tf_config
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.probes.node import probe_node
from tf_gpucheck.redact import redact
from tf_gpucheck.snapshot import NodeInfo, Snapshot
from tf_gpucheck.tfconfig import local_addresses, read_tf_config

CLUSTER = {"worker": ["gpu001:2222", "gpu002:2222", "gpu003:2222"]}


def tf_config(task: dict[str, Any] | None = None, cluster: object = CLUSTER) -> str:
    data: dict[str, Any] = {"cluster": cluster}
    if task is not None:
        data["task"] = task
    return json.dumps(data)


def with_tf_config(value: str | None, hostname: str = "gpu001", probed: bool = True) -> Snapshot:
    """A node as the probe records it: TF_CONFIG in the environment, its facts in node."""
    base = scenario("two-a100")
    env = dict(base.system.env, TF_CONFIG=value)
    facts = read_tf_config(value, [hostname]) if value and probed else None
    return dataclasses.replace(
        base,
        system=dataclasses.replace(base.system, env=env),
        node=NodeInfo(hostname=hostname, tf_config=facts),
    )


@pytest.mark.parametrize(
    ("value", "hostname", "status", "cause"),
    [
        (None, "gpu001", Status.SKIP, None),
        (tf_config({"type": "worker", "index": 0}), "gpu001", Status.OK, None),
        (tf_config({"type": "worker", "index": "1"}), "gpu002", Status.OK, None),
        ("{'cluster': {}}", "gpu001", Status.FAIL, "tf_config_invalid_json"),
        ('["worker"]', "gpu001", Status.FAIL, "tf_config_invalid_json"),
        (json.dumps({"task": {"type": "worker"}}), "gpu001", Status.FAIL, "tf_config_no_cluster"),
        (
            tf_config(cluster={"worker": "gpu001:2222"}),
            "gpu001",
            Status.FAIL,
            "tf_config_no_cluster",
        ),
        (tf_config(None), "gpu001", Status.FAIL, "tf_config_task_invalid"),
        (tf_config({"type": "ps", "index": 0}), "gpu001", Status.FAIL, "tf_config_task_invalid"),
        (
            tf_config({"type": "worker", "index": 3}),
            "gpu001",
            Status.FAIL,
            "tf_config_task_invalid",
        ),
        (
            tf_config({"type": "worker", "index": "x"}),
            "gpu001",
            Status.FAIL,
            "tf_config_task_invalid",
        ),
        (
            tf_config({"type": "ps", "index": 0}, cluster={"ps": ["gpu001:2222"]}),
            "gpu001",
            Status.FAIL,
            "tf_config_no_chief",
        ),
        (
            tf_config({"type": "chief", "index": 0}, cluster={"chief": ["gpu001:1", "gpu002:1"]}),
            "gpu001",
            Status.FAIL,
            "tf_config_no_chief",
        ),
        (
            tf_config({"type": "worker", "index": 1}),
            "gpu001",
            Status.WARN,
            "tf_config_host_not_in_cluster",
        ),
        (
            tf_config({"type": "worker", "index": 0}),
            "login1",
            Status.WARN,
            "tf_config_host_not_in_cluster",
        ),
    ],
)
def test_tf_config_causes(
    value: str | None, hostname: str, status: Status, cause: str | None
) -> None:
    finding = judge_tf_config(with_tf_config(value, hostname))
    assert (finding.status, finding.cause) == (status, cause), finding.summary


def test_tf_config_runs_in_doctor_before_the_log() -> None:
    report = run_checks(with_tf_config(tf_config({"type": "worker", "index": 5})), load_matrix())
    ids = [f.check for f in report.findings]
    assert ids.index("tf_config") == ids.index("tf_log") - 1
    assert report.first_fix is not None
    assert report.first_fix.cause == "tf_config_task_invalid"


def test_the_check_reads_the_raw_value_of_an_older_snapshot() -> None:
    old = with_tf_config(tf_config({"type": "worker", "index": 9}), probed=False)
    assert old.node.tf_config is None
    assert judge_tf_config(old).cause == "tf_config_task_invalid"


def test_redacted_snapshot_keeps_the_judgement_and_no_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GPUCHECK_REDACT_KEY", "k")
    for task, cause in (
        ({"type": "worker", "index": 1}, "tf_config_host_not_in_cluster"),
        ({"type": "worker", "index": 0}, None),
    ):
        snapshot = with_tf_config(tf_config(task))
        masked = redact(snapshot)
        assert masked.system.env["TF_CONFIG"] == "<redacted>"
        assert "2222" not in masked.to_json()
        assert judge_tf_config(masked).cause == cause == judge_tf_config(snapshot).cause
    assert (
        judge_tf_config(redact(with_tf_config(tf_config({}), probed=False))).status is Status.SKIP
    )


def test_probe_records_facts_and_this_hosts_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("socket.gethostname", lambda: "gpu002")
    value = tf_config({"type": "worker", "index": 1})
    info = probe_node({"TF_CONFIG": value, "SLURM_JOB_ID": "42"}).tf_config
    assert info is not None
    assert info.cluster == {"worker": 3}
    assert (info.task_type, info.task_index) == ("worker", 1)
    assert info.this_host_tasks == ("worker:1",)
    assert probe_node({}).tf_config is None


def test_addresses_match_by_ip_and_kubernetes_names() -> None:
    cluster = {"worker": ["10.0.0.5:2222", "trainer-worker-1.trainer.ns.svc:2222", "[::1]:2222"]}
    info = read_tf_config(tf_config({"type": "worker", "index": 0}, cluster), ["vm", "10.0.0.5"])
    assert info.this_host_tasks == ("worker:0", "worker:2")
    info = read_tf_config(tf_config({"type": "worker", "index": 1}, cluster), ["trainer-worker-1"])
    assert info.this_host_tasks == ("worker:1", "worker:2")
    assert read_tf_config(tf_config({"type": "worker"}, cluster), None).this_host_tasks is None


def test_local_addresses_from_fib_trie(tmp_path: Path) -> None:
    (tmp_path / "proc/net").mkdir(parents=True)
    (tmp_path / "proc/net/fib_trie").write_text(
        "Main:\n  +-- 0.0.0.0/0 3 0 5\n     |-- 0.0.0.0\n        /0 universe UNICAST\n"
        "     |-- 10.0.0.5\n        /32 host LOCAL\n     |-- 10.0.0.255\n        /32 link BROADCAST\n"
    )
    assert local_addresses(tmp_path) == ["10.0.0.5"]
    assert local_addresses(tmp_path / "nowhere") == []


def test_fleet_flags_clusters_that_disagree_and_tasks_claimed_twice() -> None:
    nodes = {
        f"gpu00{i}": with_tf_config(tf_config({"type": "worker", "index": i - 1}), f"gpu00{i}")
        for i in (1, 2, 3)
    }
    other = {"worker": ["gpu001:2222", "gpu002:2222", "gpu004:2222"]}
    nodes["gpu004"] = with_tf_config(tf_config({"type": "worker", "index": 2}, other), "gpu004")
    found = fleet_findings(nodes)
    assert found["gpu004"].cause == "tf_config_cluster_mismatch"
    assert found["gpu003"].cause == "tf_config_task_duplicate"
    assert "gpu004" in found["gpu003"].summary
    assert set(found) == {"gpu003", "gpu004"}


def test_fleet_cli_flags_cluster_mismatch_on_redacted_snapshots(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUCHECK_REDACT_KEY", "site-key")
    other = {"worker": ["gpu001:2222", "gpu002:2222", "gpu009:2222"]}
    snapshots = [
        with_tf_config(tf_config({"type": "worker", "index": 0}), "gpu001"),
        with_tf_config(tf_config({"type": "worker", "index": 1}), "gpu002"),
        with_tf_config(tf_config({"type": "worker", "index": 2}), "gpu003"),
        with_tf_config(tf_config({"type": "worker", "index": 2}, other), "gpu009"),
    ]
    for snapshot in snapshots:  # each node redacts itself with the shared key
        masked = redact(snapshot)
        (tmp_path / f"{masked.node.hostname}.json").write_text(masked.to_json())
    result = run_cli(["fleet", str(tmp_path), "--json"])
    data = result.json()
    assert isinstance(data, dict)
    causes = {g["cause"]: g["count"] for g in data["groups"] if g["cause"]}
    assert causes == {"tf_config_cluster_mismatch": 1, "tf_config_task_duplicate": 1}
    assert result.exit_code == 1
    assert "gpu00" not in result.stdout
