"""`gpucheck fleet --ray` against a real multi-node Ray cluster on this machine.

The test starts a head and two more Ray nodes (``ray.cluster_utils.Cluster``, Ray's own helper
for multi-node clusters on one machine). On one of them every Ray worker hangs as it starts
(a ``sitecustomize`` that sleeps, given only to that node's raylet), so its task never runs:
gpucheck must report that node as not answering, and judge the others.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="Ray is not installed: pip install -e '.[ray]' to test gpucheck fleet --ray",
)

HANG = """
import sys, time
if any("default_worker" in arg for arg in sys.argv):  # Ray's worker processes only
    time.sleep(3600)
"""
# The cluster lives in its own process: importing Ray puts its vendored packages on sys.path,
# which would change what the other tests see of this environment.
CLUSTER = """
import sys
from ray.cluster_utils import Cluster

cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
cluster.add_node(num_cpus=1)
cluster.add_node(num_cpus=1, env_vars={"PYTHONPATH": sys.argv[1]})
cluster.wait_for_nodes()
print(cluster.address, flush=True)
sys.stdin.read()  # until the test closes stdin
cluster.shutdown()
"""
NODE_TIMEOUT_S = 45  # a loaded machine (the suite runs on every core) starts Ray workers slowly


@pytest.fixture(scope="module")
def cluster_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    hang = tmp_path_factory.mktemp("hang")
    (hang / "sitecustomize.py").write_text(HANG)
    process = subprocess.Popen(
        [sys.executable, "-c", CLUSTER, str(hang)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        address = process.stdout.readline().strip()
        assert address, "the Ray cluster did not start"
        yield address
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()


@pytest.mark.slow
def test_fleet_ray_probes_every_node_and_reports_the_silent_one(
    cluster_address: str, tmp_path: Path
) -> None:
    junit = tmp_path / "fleet.xml"
    # A subprocess, as a user runs it: the CLI connects to the cluster's address itself.
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tf_gpucheck",
            "fleet",
            "--ray",
            cluster_address,
            "--no-tf",
            "--node-timeout",
            str(NODE_TIMEOUT_S),
            "--json",
            "--junit",
            str(junit),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env=dict(os.environ, NO_COLOR="1"),
        check=False,
    )
    assert "Traceback" not in result.stderr, result.stderr
    data = json.loads(result.stdout)
    nodes = data["nodes"]
    assert len(nodes) == 3
    answered = [n for n in nodes if n["origin"] == "snapshot"]
    silent = [n for n in nodes if n["status"] == "no_answer"]
    assert len(answered) == 2
    assert len(silent) == 1
    assert silent[0]["problem"] == f"no answer within {NODE_TIMEOUT_S} s"
    # every node is one machine here: the names tell them apart by Ray node id
    assert len({n["name"] for n in nodes}) == 3
    for node in answered:
        # the probes ran on that node, without TensorFlow, judged by doctor's checks here
        checks = {f["check"]: f for f in node["findings"]}
        assert checks["tf_import"]["summary"] == "TensorFlow was not imported (--no-tf)"
        assert node["facts"]["python"] == ".".join(map(str, sys.version_info[:3]))
    # Ray's CUDA_VISIBLE_DEVICES="" for a task asking for no GPU did not reach the probes
    assert all(f["cause"] != "gpu_hidden_by_env" for n in answered for f in n["findings"])
    assert data["counts"]["no_answer"] == 1
    assert result.returncode == 1
    suite = ElementTree.parse(junit).getroot()
    assert suite.get("tests") == "3"
    assert suite.get("errors") == "1"
