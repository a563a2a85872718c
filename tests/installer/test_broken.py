"""An installer that crashes is broken, not refusing: said first, repaired first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import first_environment_fix
from tf_gpucheck.probes.installer import _policy


@pytest.fixture(scope="module")
def old_pip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv of this Python with pip 9.0.3, which imports collections.Mapping (gone since
    Python 3.10): every pip command ends in an ImportError traceback."""
    env = tmp_path_factory.mktemp("oldpip") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    python = env / "bin" / "python"
    done = subprocess.run(
        [str(python), "-m", "pip", "-q", "install", "pip==9.0.3"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"pip 9.0.3 could not be installed here: {done.stderr[-200:]}")
    return python


@pytest.mark.slow
def test_a_crash_is_not_a_refusal(old_pip: Path) -> None:
    answer = _policy("pip", str(old_pip), None, "9.0.3", (), {"PATH": "/usr/bin"}, None, 60)
    assert answer.crashed
    assert answer.accepts is None  # not "refuses"
    assert "Mapping" in (answer.line or "")


@pytest.mark.slow
def test_doctor_says_it_and_repairs_it_before_anything_else(old_pip: Path, tmp_path: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tf_gpucheck",
            "doctor",
            "--no-tf",
            "--json",
            "--python",
            str(old_pip),
            "--proof-budget",
            "0",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    report = json.loads(out.stdout)
    found = {f["check"]: f for f in report["findings"]}
    assert found["installer"]["status"] == "fail"
    assert found["installer"]["cause"] == "installer_broken"
    assert "crashes on this Python" in found["installer"]["summary"]
    first = first_environment_fix(report)["fix"]
    # the repair comes before any pip of the line, and the line then works as pasted
    assert first.index("-m ensurepip --upgrade") < first.index("-m pip ")
    repair = first.split(" && ")[0]
    subprocess.run(repair, shell=True, check=True, cwd=tmp_path)
    version = subprocess.run(
        [str(old_pip), "-m", "pip", "--version"], capture_output=True, text=True, check=True
    )
    assert version.stdout.startswith("pip ")
