"""The rough edges a new user hit in their first ten minutes, each held to its fix."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import scenario
from tf_gpucheck.bench import BenchReport, BenchResult
from tf_gpucheck.checks import run_checks
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.render.bench import render_report
from tf_gpucheck.render.console import make_console
from tf_gpucheck.render.doctor import render_verdict
from tf_gpucheck.snapshot import NvidiaRuntimeInfo, PlaceInfo

ROOT = Path(__file__).resolve().parents[1]
CUDNN_8 = (
    "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
    "object file: No such file or directory\n"
)


def _gpucheck(*args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tf_gpucheck", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
    )


def test_the_emitted_python_imports_the_package_it_calls() -> None:
    out = _gpucheck("configure-memory", "--growth", "--emit", "python")
    assert out.returncode == 0, out.stderr
    assert "import tf_gpucheck\n" in out.stdout
    assert "import gpucheck\n" not in out.stdout  # PyPI's gpucheck is another project
    assert "tf_gpucheck.configure_memory(growth=True)" in out.stdout


@pytest.mark.tensorflow
def test_the_emitted_python_runs_as_pasted(tmp_path: Path) -> None:
    pytest.importorskip("tensorflow")
    snippet = _gpucheck("configure-memory", "--growth", "--emit", "python").stdout
    script = tmp_path / "train.py"
    script.write_text(snippet + "\nprint('configured')\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "configured" in done.stdout


def test_a_library_that_did_not_load_is_never_headed_ok() -> None:
    out = _gpucheck("explain", "-", stdin=CUDNN_8)
    head = out.stdout.splitlines()[0]
    assert not head.startswith("OK"), head
    assert head.startswith("NOTE")
    assert "cause: cudnn_missing" in out.stdout
    assert "1 line read" in out.stdout
    # the OS was seen in a library's name, not stated: said so
    assert "Linux (seen in the name libcudnn.so.8)" in out.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("doctor", "--json", "--format", "markdown", "--from", "x.json"),
        ("doctor", "--from", "tests/data/snapshots/two-a100.json", "--python", "/nonexistent"),
        ("matrix", "--from", "tests/data/snapshots/two-a100.json"),
        ("explain", "--json", "--format", "markdown", "-"),
    ],
)
def test_conflicting_options_are_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tf_gpucheck", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        input="",
        check=False,
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    assert out.stderr.startswith("gpucheck: error: ")
    assert "hint:" in out.stderr


def test_wrapped_lines_under_then_keep_their_indent() -> None:
    report = run_checks(scenario("tf-not-installed"), load_matrix())
    console = make_console()
    console.width = 60
    with console.capture() as capture:
        console.print(render_verdict(report))
    lines = capture.get().splitlines()
    after = lines[lines.index("then:") + 1 :] if "then:" in lines else []
    assert after, capture.get()
    for line in after:
        assert line.startswith("  "), f"wrapped to column 0: {line!r}"


def test_the_install_hint_in_fleets_help_is_one_word_at_80_columns() -> None:
    out = _gpucheck("fleet", "--help", COLUMNS="80")
    assert "'tf_gpucheck[ray]'" in out.stdout


@pytest.mark.parametrize("command", ["detect", "matrix", "configure-memory", "benchmark"])
def test_every_command_says_its_exit_codes(command: str) -> None:
    out = _gpucheck(command, "--help", COLUMNS="200")
    assert "Exit 0:" in out.stdout, out.stdout


def test_bench_says_why_the_gpu_did_not_run_once() -> None:
    why = "no NVIDIA driver; the fix: gpucheck doctor"
    report = BenchReport(
        {},
        __import__("tests.test_bench", fromlist=["plan"]).plan(),
        (BenchResult("gpu", "mlp", "unavailable", why),),
        (),
        (),
        why,
    )
    console = make_console()
    console.width = 200
    with console.capture() as capture:
        console.print(render_report(report))
    assert capture.get().count("the fix: gpucheck doctor") == 1, capture.get()


def test_detect_says_cudnn_as_the_build_states_it(run_cli: Any) -> None:
    from tests.conftest import SnapshotProbes

    result = run_cli(["detect"], SnapshotProbes(scenario("real-tf-2.21-and-cuda-py3.11-no-driver")))
    assert "cuDNN 9 (its major: build_info.py names no more)" in result.stdout


def test_a_venv_whose_python_link_is_broken_is_named_so(tmp_path: Path) -> None:
    env = tmp_path / "env"
    venv.create(env, with_pip=False)
    for name in ("python", "python3"):
        (env / "bin" / name).unlink()
    (env / "bin" / "python").symlink_to(tmp_path / "gone" / "python3.99")
    out = _gpucheck("doctor", "--no-tf", "--json", "--proof-budget", "0", "--python", str(env))
    assert "a folder with no bin/python in it" not in out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["first_fix"]["cause"] == "python_unusable"
    assert "broken virtual environment" in report["first_fix"]["summary"]


def test_doctor_json_leads_with_the_verdict(run_cli: Any) -> None:
    from tests.conftest import SnapshotProbes

    result = run_cli(["doctor", "--json"], SnapshotProbes(scenario("two-a100")))
    keys = list(json.loads(result.stdout))
    assert keys[:5] == ["schema_version", "verdict", "exit_code", "gpu_usable", "first_fix"]


def test_a_place_that_reaches_no_gpu_comes_before_installing_tensorflow() -> None:
    """An empty venv in a container without a GPU device: the first thing to do is give the
    container the GPU (the install's CUDA wheels are for a GPU it cannot reach yet)."""
    bare = scenario("tf-not-installed")
    place = PlaceInfo(
        container="docker", markers=("/.dockerenv",), nvidia=NvidiaRuntimeInfo(device_nodes=())
    )
    report = run_checks(dataclasses.replace(bare, place=place), load_matrix())
    first = report.first_fix
    assert first is not None
    assert first.cause == "container_no_gpu", [c.code for c in report.causes]
    later = next(c for c in report.causes if c.code == "tf_not_installed")
    assert "once the program can reach the GPU" in later.details


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
