"""Shared fixtures: scenario snapshots, fake probes built from them, and a CLI runner."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tf_gpucheck.cli import CliEnvironment, main
from tf_gpucheck.probes import Probes
from tf_gpucheck.probes.interpreter import InterpreterFacts, RawDistribution
from tf_gpucheck.snapshot import (
    FrameworksInfo,
    InstallerInfo,
    LibrariesInfo,
    NodeInfo,
    NvmlInfo,
    PlaceInfo,
    Snapshot,
    SystemInfo,
    TargetInfo,
    TensorflowInfo,
    load_snapshot,
)

DATA = Path(__file__).resolve().parent / "data"
SNAPSHOTS = DATA / "snapshots"
SCENARIO_NAMES = sorted(p.stem for p in SNAPSHOTS.glob("*.json"))


def scenario(name: str) -> Snapshot:
    return load_snapshot(SNAPSHOTS / f"{name}.json")


class SnapshotProbes:
    """Fake probes that answer with the facts of a recorded or hand-made snapshot."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.tensorflow_calls = 0

    def interpreter(self) -> InterpreterFacts:
        packages = self.snapshot.packages
        dists = [
            RawDistribution(
                d.name,
                d.version,
                tuple(f'{r}; extra == "and-cuda"' for r in packages.and_cuda_requirements),
                None,
            )
            for d in packages.tensorflow
        ]
        dists += [RawDistribution(d.name, d.version, None, ()) for d in packages.nvidia]
        dists += [
            RawDistribution(d.name, d.version, None, None) for d in packages.other_frameworks or ()
        ]
        if packages.keras:
            dists.append(RawDistribution("keras", packages.keras, None, None))
        if packages.tf_keras:
            dists.append(RawDistribution("tf-keras", packages.tf_keras, None, None))
        target = self.snapshot.target
        return InterpreterFacts(
            self.snapshot.system.python_version or "",
            self.snapshot.system.python_executable,
            tuple(dists),
            packages.error,
            prefix=target.prefix,
            base_prefix=target.base_prefix,
            kind=target.kind,
            user_site=target.user_site,
        )

    def node(self) -> NodeInfo:
        return self.snapshot.node

    def target(self, facts: InterpreterFacts) -> TargetInfo:
        return self.snapshot.target

    def frameworks(self, facts: InterpreterFacts, timeout_s: float) -> FrameworksInfo:
        return self.snapshot.frameworks

    def system(self, facts: InterpreterFacts) -> SystemInfo:
        return self.snapshot.system

    def nvml(self) -> NvmlInfo:
        return self.snapshot.nvml

    def libraries(self, facts: InterpreterFacts) -> LibrariesInfo:
        return self.snapshot.libraries

    def tensorflow(self, timeout_s: float) -> TensorflowInfo:
        self.tensorflow_calls += 1
        return self.snapshot.tensorflow

    def place(self) -> PlaceInfo | None:
        return self.snapshot.place

    def installer(self, facts: InterpreterFacts) -> InstallerInfo | None:
        return self.snapshot.installer


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> object:
        return json.loads(self.stdout)


@pytest.fixture(autouse=True)
def _deterministic_output(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    # each test its own proof cache, and dry runs in threads that end with the command (not
    # worker processes outliving it): tests/installer/test_proofcache.py tests those
    monkeypatch.setenv("TF_GPUCHECK_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("TF_GPUCHECK_PROOF_WORKERS", "0")
    monkeypatch.setenv("GPUCHECK_WIDTH", "120")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


@pytest.fixture
def ctrl_c_reaches_children() -> Iterator[None]:
    """Children started in the test get Ctrl-C as from a terminal. A run started in the
    background (``.ci/run &``) has SIGINT ignored, which children inherit: an ignored Ctrl-C is
    no test of what Ctrl-C does. Python's own handler is reset to the default at exec."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run ``gpucheck ARGS`` in-process with fake probes: run_cli(args, probes=...)."""

    def run(args: list[str], probes: Probes | None = None) -> CliResult:
        obj = None
        if probes is not None:
            obj = CliEnvironment(probes_factory=lambda _python: probes)
        code = main(args, obj=obj)
        out, err = capsys.readouterr()
        return CliResult(code, out, err)

    return run


def pytest_report_header() -> str:
    return f"gpucheck scenarios: {len(SCENARIO_NAMES)} snapshots in {os.path.relpath(SNAPSHOTS)}"


MACHINE_CHECKS = frozenset(
    {"place", "nvidia_driver", "driver_version", "gpu_visibility", "compute_capability",
     "tf_gpus", "cuda_libraries", "cudnn", "xla", "gpu_matmul"}
)  # fmt: skip
"""The checks about the machine's GPU, which a test machine without one always fails."""


def first_environment_fix(report: dict[str, Any]) -> dict[str, Any]:
    """The first cause of a ``doctor --json`` report that is about the environment, not about
    the machine's GPU: on a test machine in a container without a GPU device, the container
    comes first (rightly), and a test of an environment's fix reads the fix after it."""
    for cause in report["causes"]:
        if cause["status"] in ("fail", "warn") and cause["check"] not in MACHINE_CHECKS:
            return dict(cause)
    raise AssertionError(f"no environment cause: {[c['cause'] for c in report['causes']]}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that starts TensorFlow is slow by definition (``-m "not slow"`` leaves it out)."""
    for item in items:
        if item.get_closest_marker("tensorflow") and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
