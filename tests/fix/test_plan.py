"""The plan `gpucheck fix` makes: what runs, in which order, and what waits for what."""

from __future__ import annotations

import dataclasses

import pytest

from tests.conftest import SCENARIO_NAMES, scenario
from tf_gpucheck.checks import run_checks
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.snapshot import NvidiaRuntimeInfo, PlaceInfo


def test_fix_holds_the_gpu_install_until_the_place_reaches_the_gpu() -> None:
    """gpucheck fix in an empty venv in a container without a GPU device: the container comes
    first (the user's to do) and the gigabytes of CUDA wheels wait for it, saying why."""
    from tf_gpucheck.fix.plan import make_plan

    bare = scenario("tf-not-installed")
    place = PlaceInfo(
        container="docker", markers=("/.dockerenv",), nvidia=NvidiaRuntimeInfo(device_nodes=())
    )
    snapshot = dataclasses.replace(bare, place=place)
    plan = make_plan(run_checks(snapshot, load_matrix()), snapshot)
    assert plan.steps[0].cause == "container_no_gpu"
    install = next(s for s in plan.steps if s.cause == "tf_not_installed")
    assert not install.runnable
    assert "first the step above (container_no_gpu)" in install.why
    assert not plan.runnable  # nothing of gigabytes is run before the GPU can be reached


@pytest.mark.parametrize("name", SCENARIO_NAMES)
def test_doctors_first_fix_is_fixs_first_step(name: str) -> None:
    """One order for both: on every recorded environment (the real recordings among them),
    doctor's first fix and gpucheck fix's first step are the same cause; a place without a GPU
    comes before the GPU installs in both, and after what lies below them (the user's import)."""
    from tf_gpucheck.fix.plan import make_plan

    snapshot = scenario(name)
    report = run_checks(snapshot, load_matrix())
    plan = make_plan(report, snapshot)
    first = report.first_fix
    if first is None or not plan.steps:
        assert not plan.runnable
        return
    assert plan.steps[0].cause == first.cause, [s.cause for s in plan.steps]
