"""Other frameworks as evidence: the probe (for real, crashes and hangs included), the doctor
check and the detect block."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SnapshotProbes, scenario
from tf_gpucheck.checks import Status, run_checks
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.probes.frameworks import installed_frameworks, probe_frameworks
from tf_gpucheck.probes.interpreter import InterpreterFacts, RawDistribution, probe_interpreter
from tf_gpucheck.snapshot import FrameworkInfo, FrameworksInfo, Snapshot


def facts_with(*names: str) -> InterpreterFacts:
    return InterpreterFacts(
        "3.11.7", sys.executable, tuple(RawDistribution(n, "1.0", None, None) for n in names)
    )


def other_frameworks(snapshot: Snapshot) -> Any:
    (finding,) = run_checks(snapshot, load_matrix(), checks=["other_frameworks"]).findings
    return finding


def with_frameworks(snapshot: Snapshot, *found: FrameworkInfo) -> Snapshot:
    return dataclasses.replace(snapshot, frameworks=FrameworksInfo(True, None, found))


def test_installed_frameworks_come_from_the_distributions() -> None:
    assert installed_frameworks(facts_with("torch", "jax", "jaxlib", "cupy-cuda12x")) == [
        "torch",
        "jax",
        "cupy",
    ]
    assert installed_frameworks(facts_with("jax")) == []  # jax without jaxlib does not import
    assert installed_frameworks(facts_with("tensorflow", "keras")) == []


def test_cpu_only_builds_are_known_from_their_distributions_without_a_child() -> None:
    facts = InterpreterFacts(
        "3.11.7",
        "/envs/x/bin/python",  # does not exist: a child would fail
        (
            RawDistribution("torch", "2.13.0+cpu", None, None),
            RawDistribution("jax", "0.10.2", None, None),
            RawDistribution("jaxlib", "0.10.2", None, None),
        ),
    )
    found = probe_frameworks("/envs/x/bin/python", facts, timeout_s=60)
    assert found.frameworks == (
        FrameworkInfo("torch", "2.13.0+cpu", gpu_usable=False, built_with_cuda=False),
        FrameworkInfo("jax", "0.10.2", gpu_usable=False, built_with_cuda=False),
    )
    cuda_jax = facts_with("jax", "jaxlib", "jax-cuda12-plugin")
    (asked,) = probe_frameworks("/envs/x/bin/python", cuda_jax, timeout_s=60).frameworks
    assert asked.error is not None
    assert asked.error.startswith("cannot run /envs/x/bin/python")


def test_no_child_when_none_is_installed() -> None:
    start = time.perf_counter()
    found = probe_frameworks("/envs/x/bin/python", facts_with("tensorflow"), timeout_s=60)
    assert time.perf_counter() - start < 0.5
    assert found == FrameworksInfo(
        probed=False, reason="none of torch, jax, cupy is installed in /envs/x/bin/python"
    )


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("torch") is None and importlib.util.find_spec("jax") is None,
    reason="neither torch nor jax is installed in this Python",
)
def test_the_real_frameworks_of_this_environment() -> None:
    facts = probe_interpreter()
    found = probe_frameworks(sys.executable, facts, timeout_s=120)
    assert found.probed
    by_name = {f.name: f for f in found.frameworks}
    assert set(by_name) == set(installed_frameworks(facts))
    for framework in found.frameworks:
        assert framework.version, framework
        if framework.built_with_cuda is False:  # this machine's CPU wheels
            assert framework.gpu_usable is False
            assert framework.error is None
            assert framework.cuda_version is None
    # The CPU builds here are known from their distributions and start no child; run each
    # framework's child anyway, for real, and check it says the same.
    import os

    from tf_gpucheck.probes.frameworks import probe_one

    for name, known in by_name.items():
        child = probe_one(sys.executable, name, 120, dict(os.environ))
        assert child.duration_s is not None  # a child really ran
        assert child.error is None or known.built_with_cuda is not False, child
        assert child.version is not None
        assert child.version.split("+")[0] == (known.version or "").split("+")[0]
        if known.built_with_cuda is False:
            assert child.built_with_cuda is False, child
            assert child.gpu_usable is not True
    if "torch" in by_name:
        import torch  # the test's own process, to compare with what the child said

        assert by_name["torch"].version == torch.__version__
        assert by_name["torch"].built_with_cuda is (torch.version.cuda is not None)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")
def test_a_crash_and_a_hang_lose_only_their_own_facts(tmp_path: Path) -> None:
    # a torch that dies from SIGSEGV on import, a cupy that never finishes importing, and the
    # real jax of this environment, all at once
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(
        "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"
    )
    (tmp_path / "cupy").mkdir()
    (tmp_path / "cupy" / "__init__.py").write_text("import time\ntime.sleep(120)\n")
    # jax-cuda12-plugin listed so that the real jax is asked in a child (this machine's jax is a
    # CPU build, which the distributions alone would otherwise settle)
    facts = facts_with("torch", "cupy", "jax", "jaxlib", "jax-cuda12-plugin")
    start = time.perf_counter()
    found = probe_frameworks(
        sys.executable, facts, timeout_s=10, environ={"PYTHONPATH": str(tmp_path)}
    )
    elapsed = time.perf_counter() - start
    torch, jax, cupy = found.frameworks
    assert (torch.name, torch.error) == (
        "torch",
        "the torch child killed by SIGSEGV (last stage: starting)",
    )
    assert (cupy.name, cupy.error) == (
        "cupy",
        "cupy did not finish within 10 s (last stage: starting)",
    )
    assert jax.name == "jax"
    assert jax.version
    assert jax.error is None
    assert jax.gpu_usable is False
    assert elapsed < 20  # in parallel: the hang costs its timeout once, not on top of the others


def test_a_framework_using_the_gpu_proves_the_driver() -> None:
    finding = other_frameworks(scenario("torch-sees-gpu-tf-does-not"))
    assert finding.status is Status.INFO
    assert finding.cause is None
    assert finding.summary == (
        "PyTorch 2.11.0 (CUDA 13.0) uses the GPU here, so the driver and the GPU work"
    )
    assert "cuda:0 NVIDIA A100-SXM4-80GB" in finding.details


def test_no_framework_seeing_the_gpu_points_to_the_driver() -> None:
    finding = other_frameworks(scenario("no-framework-sees-gpu"))
    assert finding.status is Status.INFO
    assert finding.cause == "other_frameworks_no_gpu"
    assert finding.summary == (
        "PyTorch 2.5.1 (CUDA 12.4) does not see the GPU either: that points to the driver or "
        "the machine"
    )
    assert "Error 803: system has unsupported display driver" in finding.details


def test_cpu_builds_and_unprobed_snapshots_are_no_evidence() -> None:
    cpu_torch = FrameworkInfo("torch", "2.13.0+cpu", gpu_usable=False, built_with_cuda=False)
    cpu_jax = FrameworkInfo("jax", "0.10.2", gpu_usable=False, built_with_cuda=False)
    finding = other_frameworks(with_frameworks(scenario("two-a100"), cpu_torch, cpu_jax))
    assert finding.status is Status.SKIP
    assert finding.summary == (
        "PyTorch 2.13.0 (CPU-only build) and JAX 0.10.2 (CPU-only build): CPU-only builds, "
        "no evidence about the GPU"
    )
    recorded = other_frameworks(scenario("torch-jax-cpu-builds"))
    assert recorded.status is Status.SKIP
    assert "PyTorch 2.13.0 (CPU-only build) and JAX 0.10.2 (CPU-only build)" in recorded.summary
    from tests.conftest import DATA
    from tf_gpucheck.snapshot import load_snapshot

    old = other_frameworks(
        load_snapshot(DATA / "snapshots-v1" / "real-cpu-only-tf-2.21-no-driver.json")
    )
    assert (old.status, old.summary) == (
        Status.SKIP,
        "not probed: not recorded (snapshot schema 1)",
    )
    none = other_frameworks(scenario("real-cpu-only-tf-2.21-no-driver"))
    assert none.status is Status.SKIP
    assert "none of torch, jax, cupy is installed" in none.summary


def test_a_framework_that_fails_where_tensorflow_works_is_its_own_problem() -> None:
    jax = FrameworkInfo(
        "jax",
        "0.4.30",
        cuda_version="12.3",
        gpu_usable=False,
        built_with_cuda=True,
        error="RuntimeError: Unable to initialize backend 'cuda'",
    )
    finding = other_frameworks(with_frameworks(scenario("two-a100"), jax))
    assert finding.status is Status.INFO
    assert finding.cause is None
    assert "though TensorFlow does" in finding.summary


def test_detect_shows_the_other_frameworks(run_cli: Any) -> None:
    out = run_cli(["detect"], SnapshotProbes(scenario("torch-sees-gpu-tf-does-not"))).stdout
    assert "Other frameworks" in out
    assert "PyTorch 2.11.0 (CUDA 13.0)  uses the GPU: cuda:0 NVIDIA A100-SXM4-80GB" in out
    out = run_cli(["detect"], SnapshotProbes(scenario("no-framework-sees-gpu"))).stdout
    assert "PyTorch 2.5.1 (CUDA 12.4)  no GPU: RuntimeError: Unexpected error from" in out


def _staged(python: str, child: str, *args: str, folder: Path) -> dict[str, Any]:
    from tf_gpucheck._children import script

    out = folder / f"{child}.json"
    flag = "-I" if python == sys.executable else "-E"  # Python 2.7 has no -I
    subprocess.run(
        [python, flag, script(child), *args, str(out)],
        capture_output=True, check=False, timeout=120, cwd=str(folder),
    )  # fmt: skip
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def test_the_staged_children_report_in_isolated_mode_and_on_python_2_7(tmp_path: Path) -> None:
    # -I (and PYTHONSAFEPATH) leave a script's own folder off sys.path: the children find their
    # shared report writer beside them all the same, in the syntax Python 2.7 still reads
    from tests.test_target import pyenv_python

    isolated = _staged(sys.executable, "framework_probe", "cupy", folder=tmp_path)
    assert isolated["stage"] == "done"
    assert "cupy" in isolated["error"]
    old = pyenv_python("2.7")
    assert _staged(old, "framework_probe", "cupy", folder=tmp_path)["stage"] == "done"
    tf = _staged(old, "tf_probe", folder=tmp_path)
    assert (tf["stage"], tf["installed"]) == ("import", False)
