"""`gpucheck fleet`: many nodes judged by doctor's checks, grouped, compared, in every format."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import SnapshotProbes, scenario
from tf_gpucheck.checks import run_checks
from tf_gpucheck.fleet import judge_fleet, read_inputs
from tf_gpucheck.fleet.hostlist import compact
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.snapshot import NodeInfo, NvmlInfo, Snapshot


def node(base: str, hostname: str, **labels: str) -> Snapshot:
    snapshot = scenario(base)
    return dataclasses.replace(snapshot, node=NodeInfo(hostname=hostname, labels=labels))


def write(folder: Path, snapshots: list[Snapshot]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for snapshot in snapshots:
        (folder / f"{snapshot.node.hostname}.json").write_text(snapshot.to_json())
    return folder


@pytest.fixture
def fleet_dir(tmp_path: Path) -> Path:
    """12 good nodes, 3 without a driver, one with an old driver."""
    good = [node("two-a100", f"gpu{i:03d}") for i in range(1, 13)]
    broken = [node("real-cpu-only-tf-2.21-no-driver", f"gpu{i:03d}") for i in (13, 14, 17)]
    old = [node("driver-too-old", "gpu020")]
    return write(tmp_path / "fleet", good + broken + old)


# --- node lists ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["gpu001", "gpu002", "gpu003", "gpu017"], "gpu[001-003,017]"),
        (["node1", "node2", "node3", "node10"], "node[1-3,10]"),
        (["gpu099", "gpu100", "gpu101"], "gpu[099-101]"),
        (["login", "gpu001"], "gpu001,login"),
        (["a1", "a1", "b7"], "a1,b7"),
        (["rack1-gpu03", "rack1-gpu04", "rack2-gpu01"], "rack1-gpu[03-04],rack2-gpu01"),
        ([], ""),
    ],
)
def test_compact_node_lists(names: list[str], expected: str) -> None:
    assert compact(names) == expected


def _expand(text: str) -> list[str]:
    """The inverse of compact, written independently for the property test."""
    out: list[str] = []
    for part in re.findall(r"[^,\[]+\[[^\]]*\]|[^,]+", text):
        match = re.fullmatch(r"(.*)\[(.*)\]", part)
        if not match:
            out.append(part)
            continue
        prefix, ranges = match.groups()
        for item in ranges.split(","):
            first, _, last = item.partition("-")
            width = len(first) if first.startswith("0") else 0
            for n in range(int(first), int(last or first) + 1):
                out.append(f"{prefix}{n:0{width}d}" if width else f"{prefix}{n}")
    return out


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["gpu", "node-", "login", "a1b"]), st.integers(0, 130), st.booleans()
        ),
        max_size=30,
    )
)
def test_compact_lists_every_name_once(parts: list[tuple[str, int, bool]]) -> None:
    names = [f"{p}{n:03d}" if pad else f"{p}{n}" for p, n, pad in parts]
    assert sorted(_expand(compact(names))) == sorted(set(names))


# --- judging ---------------------------------------------------------------------------------


def test_each_node_gets_doctors_own_verdict(fleet_dir: Path) -> None:
    matrix = load_matrix()
    report = judge_fleet(read_inputs([str(fleet_dir)]), matrix)
    assert report.counts == {"ok": 12, "warn": 0, "fail": 4}
    by_name = {n.name: n for n in report.nodes}
    for name, base in (("gpu001", "two-a100"), ("gpu020", "driver-too-old")):
        doctor = run_checks(scenario(base), matrix)
        assert by_name[name].status == doctor.verdict.value
        assert by_name[name].first == doctor.first_fix
        assert by_name[name].findings == doctor.findings
    causes = [(g.status, g.cause, g.nodes) for g in report.groups]
    assert causes[0][:2] == ("fail", "no_nvidia_driver")
    assert compact(causes[0][2]) == "gpu[013-014,017]"
    assert causes[-1][0] == "ok"
    assert compact(causes[-1][2]) == "gpu[001-012]"
    assert report.exit_code == 1


def test_cli_text_report(run_cli: Any, fleet_dir: Path) -> None:
    result = run_cli(["fleet", str(fleet_dir)])
    assert result.exit_code == 1
    out = result.stdout
    assert out.startswith("FAIL  16 nodes: 12 ok, 4 fail")
    assert "no_nvidia_driver (nvidia_driver)" in out
    assert "gpu[013-014,017]" in out
    assert "fix: sudo ubuntu-drivers install" in out
    assert "gpu[001-012]" in out
    # the odd ones out: the old driver and the nodes without one
    driver_row = next(line for line in out.splitlines() if line.startswith("NVIDIA driver"))
    assert "560.35.03 (12)" in driver_row
    assert re.search(r"none\s+gpu\[013-014,017\]", out)
    assert re.search(r"470\.82\.01\s+gpu020", out)
    assert "lowest free GPU memory:" in out


def test_all_pass_exits_0(run_cli: Any, tmp_path: Path) -> None:
    folder = write(tmp_path / "ok", [node("two-a100", f"n{i}") for i in range(3)])
    result = run_cli(["fleet", str(folder / "*.json")])
    assert result.exit_code == 0
    assert result.stdout.startswith("OK  3 nodes: 3 ok")


def test_unreadable_file_is_named_and_the_fleet_still_judged(run_cli: Any, fleet_dir: Path) -> None:
    (fleet_dir / "gpu030.json").write_text('{"schema_version": 2, "system"')
    (fleet_dir / "gpu031.json").write_text("")
    result = run_cli(["fleet", str(fleet_dir), "--json"])
    assert result.exit_code == 2
    data = result.json()
    assert isinstance(data, dict)
    assert data["counts"] == {"ok": 12, "warn": 0, "fail": 4, "unreadable": 2}
    problems = {n["source"].rsplit("/", 1)[-1]: n["problem"] for n in data["nodes"] if n["problem"]}
    assert problems["gpu031.json"] == "is empty"
    assert problems["gpu030.json"].startswith("is not JSON")
    assert "gpu030.json: is not JSON" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_usage_is_one_line_and_exit_2(run_cli: Any, tmp_path: Path) -> None:
    for args in (["fleet"], ["fleet", str(tmp_path / "none-*.json"), "--format", "yaml"]):
        result = run_cli(args)
        assert result.exit_code == 2
        assert result.stderr.startswith("gpucheck: error:")
        assert "Traceback" not in result.stderr
    result = run_cli(["fleet", str(tmp_path / "none-*.json")])
    assert result.exit_code == 2
    assert "no file matches this pattern" in result.stderr


def test_requirements_apply_per_node(run_cli: Any, tmp_path: Path) -> None:
    one_gpu = node("driver-too-old", "small01")
    folder = write(tmp_path / "f", [node("two-a100", "big01"), node("two-a100", "big02"), one_gpu])
    data = run_cli(["fleet", str(folder), "--json", "--min-gpus", "2", "--expect-tf", "2.21.*"])
    report = data.json()
    assert isinstance(report, dict)
    by_name = {n["name"]: n for n in report["nodes"]}
    assert by_name["big01"]["status"] == "ok"
    checks = {f["check"]: f for f in by_name["big01"]["findings"]}
    assert checks["require_gpus"]["status"] == "ok"
    assert checks["expect_tf"]["status"] == "ok"
    small = {f["check"]: f for f in by_name["small01"]["findings"]}
    assert small["require_gpus"]["status"] == "fail"
    bad = run_cli(["fleet", str(folder), "--min-free-memory", "lots"])
    assert bad.exit_code == 2
    assert "--min-free-memory 'lots'" in bad.stderr


def test_json_contract(run_cli: Any, fleet_dir: Path) -> None:
    data = run_cli(["fleet", str(fleet_dir), "--json"]).json()
    assert isinstance(data, dict)
    assert list(data) == [
        "schema_version",
        "gpucheck_version",
        "verdict",
        "exit_code",
        "counts",
        "groups",
        "odd_ones_out",
        "lowest_free_memory",
        "notes",
        "nodes",
    ]
    assert data["verdict"] == "fail"
    group = data["groups"][0]
    assert group["nodes"] == "gpu[013-014,017]"
    assert group["node_names"] == ["gpu013", "gpu014", "gpu017"]
    driver = next(r for r in data["odd_ones_out"] if r["attribute"] == "driver")
    assert driver["majority"] == "560.35.03"
    assert {o["value"]: o["nodes"] for o in driver["others"]} == {
        "none": "gpu[013-014,017]",
        "470.82.01": "gpu020",
    }
    gpus = next(r for r in data["odd_ones_out"] if r["attribute"] == "gpus")
    assert gpus["majority"] == "2 x NVIDIA A100-SXM4-80GB"
    assert set(data["nodes"][0]) >= {"name", "status", "first_fix", "facts", "findings"}


def test_markdown_and_junit(run_cli: Any, fleet_dir: Path, tmp_path: Path) -> None:
    junit = tmp_path / "fleet.xml"
    (fleet_dir / "broken.json").write_text("[]")
    result = run_cli(["fleet", str(fleet_dir), "--format", "markdown", "--junit", str(junit)])
    assert result.exit_code == 2
    md = result.stdout
    assert "**Verdict: FAIL**" in md
    assert "| FAIL | `gpu[013-014,017]` | 3 | `no_nvidia_driver`:" in md
    assert "| NVIDIA driver | 560.35.03 (12) |" in md
    suite = ElementTree.parse(junit).getroot()
    assert suite.get("tests") == "17"
    assert suite.get("failures") == "4"
    assert suite.get("errors") == "1"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    failure = cases["gpu013"].find("failure")
    assert failure is not None
    assert failure.get("type") == "no_nvidia_driver"
    assert cases["gpu001"].find("failure") is None
    error = cases["broken"].find("error")
    assert error is not None
    assert "not a gpucheck snapshot" in (error.get("message") or "")


def test_doctor_reports_are_accepted(run_cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    for name, base in (("gpu001", "two-a100"), ("gpu002", "driver-too-old")):
        probes = SnapshotProbes(node(base, name))
        out = run_cli(["doctor", "--json"], probes).stdout
        assert json.loads(out)["node"]["hostname"] == name
        (folder / f"{name}-doctor.json").write_text(out)
    write(folder, [node("two-a100", "gpu003")])
    result = run_cli(["fleet", str(folder), "--json", "--min-gpus", "1"])
    data = result.json()
    assert isinstance(data, dict)
    by_name = {n["name"]: n for n in data["nodes"]}
    assert by_name["gpu001"]["origin"] == "doctor report"
    assert by_name["gpu002"]["status"] == "fail"
    assert by_name["gpu002"]["first_fix"]["cause"] == "driver_too_old"
    assert by_name["gpu003"]["origin"] == "snapshot"
    driver = next(r for r in data["odd_ones_out"] if r["attribute"] == "driver")
    assert driver["majority_count"] == 1  # only the snapshot has the facts
    assert "2 node(s) sent a doctor report" in data["notes"][0]
    assert "requirements were not applied" in data["notes"][0]


def test_same_hostname_twice_is_told_apart(run_cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "dup"
    folder.mkdir()
    for stem in ("run1", "run2"):
        (folder / f"{stem}.json").write_text(node("two-a100", "gpu001").to_json())
    data = run_cli(["fleet", str(folder), "--json"]).json()
    assert isinstance(data, dict)
    assert [n["name"] for n in data["nodes"]] == ["gpu001/run1", "gpu001/run2"]


def test_labels_name_a_node_without_a_hostname(run_cli: Any, tmp_path: Path) -> None:
    snapshot = dataclasses.replace(
        scenario("two-a100"), node=NodeInfo(hostname=None, labels={"NODE_NAME": "k8s-gpu-7"})
    )
    (tmp_path / "x.json").write_text(snapshot.to_json())
    data = run_cli(["fleet", str(tmp_path / "x.json"), "--json"]).json()
    assert isinstance(data, dict)
    assert data["nodes"][0]["name"] == "k8s-gpu-7"


# --- redaction -------------------------------------------------------------------------------


def test_redacted_fleet_keeps_nodes_apart_with_stable_pseudonyms(
    run_cli: Any, fleet_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUCHECK_REDACT_KEY", "fleet-key-1")
    first = run_cli(["fleet", str(fleet_dir), "--redact", "--json"])
    again = run_cli(["fleet", str(fleet_dir), "--redact", "--json"])
    assert first.stdout == again.stdout
    assert "gpu0" not in first.stdout
    data = first.json()
    assert isinstance(data, dict)
    names = [n["name"] for n in data["nodes"]]
    assert len(set(names)) == 16
    assert all(re.fullmatch(r"node-[a-z]{8}", name) for name in names)
    assert data["counts"] == {"ok": 12, "warn": 0, "fail": 4}
    monkeypatch.setenv("GPUCHECK_REDACT_KEY", "another-key")
    other = run_cli(["fleet", str(fleet_dir), "--redact", "--json"]).json()
    assert isinstance(other, dict)
    assert not set(names) & {n["name"] for n in other["nodes"]}


def test_machine_id_key_is_stable_and_never_the_id(tmp_path: Path) -> None:
    from tf_gpucheck.redact import pseudonym_key

    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/machine-id").write_text("0123456789abcdef0123456789abcdef\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("GPUCHECK_REDACT_KEY", raising=False)
        one, two = pseudonym_key(tmp_path), pseudonym_key(tmp_path)
        assert one.source == "machine-id"
        assert one.pseudonym("gpu001") == two.pseudonym("gpu001")
        assert b"0123456789abcdef" not in one.secret
        assert pseudonym_key(tmp_path / "nowhere").source == "random"


def test_redacted_snapshot_redacts_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from tf_gpucheck.redact import redact

    monkeypatch.setenv("GPUCHECK_REDACT_KEY", "k")
    snapshot = node("two-a100", "gpu001.cluster.example", SLURMD_NODENAME="gpu001")
    once = redact(snapshot)
    assert once.node.hostname is not None
    assert once.node.hostname.startswith("node-")
    assert once.node.labels["SLURMD_NODENAME"].startswith("node-")
    assert once.node.pseudonym_key is not None
    assert redact(once) == once
    assert "gpu001" not in once.to_json()


# --- --no-tf ---------------------------------------------------------------------------------


def test_doctor_no_tf_skips_tensorflow_and_says_what_it_skipped(run_cli: Any) -> None:
    probes = SnapshotProbes(scenario("two-a100"))
    result = run_cli(["doctor", "--no-tf", "--json", "--min-gpus", "2"], probes)
    assert probes.tensorflow_calls == 0
    data = result.json()
    assert isinstance(data, dict)
    assert "TensorFlow was not imported (--no-tf)" in data["notes"][0]
    checks = {f["check"]: f for f in data["findings"]}
    assert checks["tf_import"]["status"] == "skip"
    assert checks["tf_build"]["status"] == "info"
    assert "CUDA 12.5" in checks["tf_build"]["summary"]
    # without TensorFlow's import the libraries, cuDNN and GPUs are still judged
    assert checks["cuda_libraries"]["status"] == "ok"
    assert checks["cudnn"]["status"] == "ok"
    assert checks["compute_capability"]["status"] == "ok"
    assert checks["require_gpus"]["status"] == "ok"
    assert "CUDA shows 2 GPU(s)" in checks["require_gpus"]["summary"]
    assert result.exit_code == 0
    text = run_cli(["doctor", "--no-tf"], SnapshotProbes(scenario("two-a100"))).stdout
    assert "note: TensorFlow was not imported (--no-tf)" in text


def test_no_tf_finds_a_missing_driver(run_cli: Any) -> None:
    base = scenario("two-a100")
    no_driver = dataclasses.replace(
        base,
        nvml=NvmlInfo(
            available=False, error="NVML Shared Library Not Found", error_code="library_not_found"
        ),
    )
    result = run_cli(["doctor", "--no-tf", "--json"], SnapshotProbes(no_driver))
    data = result.json()
    assert isinstance(data, dict)
    assert data["first_fix"]["cause"] == "no_nvidia_driver"
    assert result.exit_code == 1


def test_fleet_ray_without_ray_is_a_clear_error(
    run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, as without the extra
    result = run_cli(["fleet", "--ray"])
    assert result.exit_code == 2
    assert "Ray is not installed" in result.stderr
    assert "tf_gpucheck[ray]" in result.stderr
