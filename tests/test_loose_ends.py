"""Loose ends found by trying the release as a new user would (each failed before its change)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import first_environment_fix
from tests.probes.test_user_import import METADATA, install_fake
from tests.test_target import make_venv, site_packages


def _gpucheck(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tf_gpucheck", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", **env},
    )


@pytest.mark.slow
def test_no_fix_names_an_interpreter_that_did_not_answer_as_a_python(tmp_path: Path) -> None:
    true = shutil.which("true")
    assert true is not None
    result = _gpucheck("doctor", "--python", true, "--json", "--proof-budget", "0", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["first_fix"]["cause"] == "python_unusable"
    for finding in data["findings"]:
        assert f"{true} -m pip" not in (finding["fix"] or ""), finding
    checks = {f["check"]: f for f in data["findings"]}
    for check in ("user_import", "tf_requirements", "keras_backend", "tf_import"):
        if checks[check]["status"] == "skip" and check != "tf_requirements":
            assert "could not be queried" in checks[check]["summary"], checks[check]
    assert checks["tf_import"]["status"] == "skip"


@pytest.mark.parametrize("columns", [60, 80, 200])
def test_the_cause_line_stays_whole_at_any_width(tmp_path: Path, columns: int) -> None:
    """`gpucheck doctor | cat`: no terminal, 80 columns (and 60, 200); the line holding a command
    to copy (`gpucheck explain --cause CODE`) is never broken."""
    venv = make_venv(tmp_path / "a-venv-with-a-rather-long-name-for-the-test")
    result = _gpucheck(
        "doctor", "--no-tf", "--python", str(venv), "--proof-budget", "0", COLUMNS=str(columns)
    )
    cause = [line for line in result.stdout.splitlines() if line.startswith("cause: ")]
    assert len(cause) == 1, result.stdout
    code = cause[0].split()[1]
    assert cause[0].endswith(f"gpucheck explain --cause {code})"), cause[0]
    assert len(cause[0]) > 60  # it is long: kept whole, not wrapped


def uv_venv(where: Path) -> Path:
    """A real environment made by uv (no pip in it); skips where uv is not installed."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not installed (the test extra installs it)")
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(where)], check=True)
    return where / "bin" / "python"


def test_a_uv_venv_without_tensorflow_gets_one_uv_command(tmp_path: Path) -> None:
    python = uv_venv(tmp_path / "uvenv")
    result = _gpucheck(
        "doctor", "--no-tf", "--json", "--python", str(python), "--proof-budget", "0", cwd=tmp_path
    )
    fix = first_environment_fix(json.loads(result.stdout))["fix"]
    assert fix.startswith(f"uv pip install --python {python} "), fix
    assert fix.count("uv pip") == 1, fix
    assert fix.count("--python") == 1, fix


def test_tensorflow_cpu_requirements_are_read_not_counted_as_met(
    run_cli: Any, tmp_path: Path
) -> None:
    """tensorflow-cpu declares what tensorflow declares: its requirements are read (this venv
    has no pip, so from the metadata), and none is called met without being read."""
    python = make_venv(tmp_path / "venv")
    metadata = (METADATA / "tensorflow-2.21.0.METADATA").read_text()
    metadata = metadata.replace("Name: tensorflow\n", "Name: tensorflow-cpu\n", 1)
    install_fake(site_packages(python), "tensorflow-cpu", "2.21.0", metadata)
    result = run_cli(
        ["doctor", "--no-tf", "--json", "--python", str(python), "--proof-budget", "0"]
    )
    checks = {f["check"]: f for f in result.json()["findings"]}
    requirements = checks["tf_requirements"]
    assert "all 0" not in requirements["summary"], requirements
    # its declared numpy, protobuf, keras ... are not installed here: not met
    assert requirements["status"] in ("warn", "fail"), requirements


@pytest.mark.parametrize(
    ("chosen_by", "policy", "installer"),
    [
        ("virtual_env", ((), False, "ERROR: Can not perform a '--user' install."), "pip"),
        ("python_flag", ((), True, None), "pip"),
        ("python_flag", ((), False, "error: externally-managed-environment"), "pip"),
        ("python_flag", ((), True, None), "uv"),
    ],
)
def test_a_fix_is_written_for_the_target_once_from_its_steps(
    chosen_by: str, policy: tuple[tuple[str, ...], bool, str | None], installer: str
) -> None:
    """A fix is a value written once, from its steps, for the target: each step gets one runner
    and one flag ("uv uv pip", "--no-user --no-user" were seen when text was rewritten twice),
    and the one room that writes it is also what the proof reads back."""
    import dataclasses

    from tests.conftest import scenario
    from tf_gpucheck.installer import intent, writer
    from tf_gpucheck.installer.operations import read_command
    from tf_gpucheck.snapshot import InstallerInfo, PolicyAnswer

    snapshot = scenario("real-tensorflow-cpu-2.21-py3.11")
    options, accepts, line = policy
    answers = (PolicyAnswer(options, accepts, line), PolicyAnswer(("--no-user",), True))
    snapshot = dataclasses.replace(
        snapshot,
        target=dataclasses.replace(
            snapshot.target,
            chosen_by=chosen_by,
            prefix="/v",
            python_executable="/v/bin/python",
            installer=installer,
        ),
        installer=InstallerInfo(
            tool=installer,
            version="24.0",
            path_pip="/v/bin/pip",
            path_pip_location="/v/lib/python3.11/site-packages",
            policy=answers,
        ),
    )
    fix = intent.then(
        intent.uninstall("tensorflow-cpu"), intent.install("tensorflow[and-cuda]==2.21.*")
    )
    once = writer.write(fix, snapshot)
    assert once.count(" install ") == 1, once
    assert "--no-user --no-user" not in once
    assert "uv uv" not in once
    operations, _, why = read_command(once)
    assert not why, why
    assert [(o.verb, o.requirements) for o in operations] == [
        ("uninstall", ("tensorflow-cpu",)),
        ("install", ("tensorflow[and-cuda]==2.21.*",)),
    ]


@pytest.mark.parametrize("columns", ["40", "64", "80", "132"])
def test_the_top_level_help_printed_without_typer_is_typers_page(columns: str) -> None:
    """`gpucheck --help` is printed without loading Typer and the commands (tf_gpucheck/cli/
    _help.py); it must be the page Typer prints, character for character, at any width."""
    env = {**os.environ, "COLUMNS": columns, "NO_COLOR": "1"}
    typer_page = subprocess.run(
        [sys.executable, "-c", "from tf_gpucheck.cli import main; main(['--help'])"],
        capture_output=True, text=True, check=True, env=env,
    ).stdout  # fmt: skip
    for flag in ("--help", "-h"):
        fast = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "tf_gpucheck", flag],
            capture_output=True, text=True, check=True, env=env,
        )  # fmt: skip
        assert fast.stdout == typer_page
        assert "typer" not in fast.stderr  # the import log: Typer was never loaded
    assert "Commands:" in typer_page
    assert "configure-memory" in typer_page
