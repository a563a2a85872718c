"""installer.writer: a Fix value written for the target, from its steps."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import first_environment_fix, scenario
from tests.helpers import gpucheck
from tests.installer.shellwords import read_command
from tests.paths import DATA
from tf_gpucheck.installer import intent, writer
from tf_gpucheck.snapshot import Distribution, InstallerInfo, InstallerSetting, Snapshot

BASE = os.path.join(sys.base_prefix, "bin", f"python{sys.version_info[0]}.{sys.version_info[1]}")
"""The interpreter the test's own venv was made from (a user site is the base Python's)."""


def _user_site_under_venv(base: str, settings: tuple[InstallerSetting, ...]) -> Snapshot:
    """A venv made with --system-site-packages whose TensorFlow is the base Python's user-site
    tensorflow-cpu (claims seed 27, environment 97), with pip's settings as observed there."""
    snapshot = scenario("real-tensorflow-cpu-2.21-py3.11")
    cpu = Distribution("tensorflow-cpu", "2.17.1", location="user_site")
    return dataclasses.replace(
        snapshot,
        target=dataclasses.replace(
            snapshot.target,
            kind="venv",
            prefix="/w/env",
            python_executable="/w/env/bin/python",
            chosen_by="active_venv",
            base_executable=base,
            base_pip=True,
            base_externally_managed=False,
        ),
        packages=dataclasses.replace(snapshot.packages, tensorflow=(cpu,)),
        installer=InstallerInfo(
            tool="pip",
            version="24.0",
            path_pip="/w/env/bin/pip",
            path_pip_location="/w/env/lib/python3.11/site-packages",
            settings=settings,
        ),
    )


def test_the_user_site_uninstall_lifts_require_virtualenv_for_that_command_alone() -> None:
    """The venv's pip leaves the user site alone ("Not uninstalling ... outside environment"),
    so the base interpreter uninstalls there; with PIP_REQUIRE_VIRTUALENV=1 in the user's shell
    that pip refuses ("Could not find an activated virtualenv (required)", seed 27 env 97): the
    uninstall runs with the variable off, said on the line, and the install in the venv keeps the
    user's setting."""
    required = (InstallerSetting("require-virtualenv", "1", "PIP_REQUIRE_VIRTUALENV"),)
    snapshot = _user_site_under_venv("/usr/bin/python3.11", required)
    fix = intent.then(
        intent.uninstall("tensorflow-cpu"), intent.install("tensorflow[and-cuda]==2.17.*")
    )
    line = writer.write(fix, snapshot)
    assert line.startswith(
        "PIP_REQUIRE_VIRTUALENV=0 /usr/bin/python3.11 -m pip uninstall -y tensorflow-cpu && "
    ), line
    assert line.partition("  #")[0].count("PIP_REQUIRE_VIRTUALENV=0") == 1, line
    assert "your pip requires a virtual environment (PIP_REQUIRE_VIRTUALENV=1)" in line
    operations, _, why = read_command(line)
    assert not why, why
    assert operations[0].environ == (("PIP_REQUIRE_VIRTUALENV", "0"),)
    assert operations[0].python == "/usr/bin/python3.11"
    assert operations[1].environ == ()
    # without the setting, nothing is lifted or said
    plain = writer.write(fix, _user_site_under_venv("/usr/bin/python3.11", ()))
    assert "PIP_REQUIRE_VIRTUALENV" not in plain, plain
    assert "#" not in plain, plain


@pytest.mark.slow
def test_the_written_uninstall_runs_under_the_users_require_virtualenv(tmp_path: Path) -> None:
    """The real experiment: a package in a user site (PYTHONUSERBASE in the test's folder),
    PIP_REQUIRE_VIRTUALENV=1 set as the user had it; the base pip refuses the plain uninstall,
    and the part the writer prints removes the package."""
    environ = {
        **os.environ,
        "PYTHONUSERBASE": str(tmp_path / "userbase"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    environ.pop("PIP_REQUIRE_VIRTUALENV", None)
    environ.pop("VIRTUAL_ENV", None)
    wheels = tmp_path / "wheels"
    made = subprocess.run(
        [BASE, "-m", "pip", "wheel", "--no-deps", "-w", str(wheels), "six"],
        check=False,
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )
    if made.returncode != 0:
        pytest.skip(f"no six wheel here: {made.stderr.strip().splitlines()[-1:]}")
    placed = subprocess.run(
        [BASE, "-m", "pip", "install", "--user", "--no-index", "-f", str(wheels), "six"],
        check=False,
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )
    if placed.returncode != 0 and "user site" in placed.stderr.lower():
        pytest.skip("this interpreter takes no --user installs (it is a virtual environment)")
    assert placed.returncode == 0, placed.stderr
    environ["PIP_REQUIRE_VIRTUALENV"] = "1"
    refused = subprocess.run(
        [BASE, "-m", "pip", "uninstall", "-y", "six"],
        check=False,
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )
    assert refused.returncode != 0
    assert "Could not find an activated virtualenv (required)" in refused.stderr
    snapshot = _user_site_under_venv(
        BASE, (InstallerSetting("require-virtualenv", "1", "PIP_REQUIRE_VIRTUALENV"),)
    )
    snapshot = dataclasses.replace(
        snapshot,
        packages=dataclasses.replace(
            snapshot.packages, tensorflow=(Distribution("six", "1.17.0", location="user_site"),)
        ),
    )
    line = writer.write(intent.uninstall("six"), snapshot)
    command = line.partition("  #")[0]
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        check=False,
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )
    assert done.returncode == 0, (shlex.quote(command), done.stderr)
    assert "Successfully uninstalled six" in done.stdout, done.stdout


def _variants() -> dict[str, Snapshot]:
    """The target's installer as observed, in the kinds the writer tells apart."""
    from tf_gpucheck.snapshot import KernelInfo, PolicyAnswer

    base = scenario("real-tensorflow-cpu-2.21-py3.11")
    venv = dataclasses.replace(
        base.target,
        kind="venv",
        prefix="/v",
        python_executable="/v/bin/python",
        chosen_by="python_flag",
        base_executable="/usr/bin/python3",
        base_pip=True,
    )
    pip = InstallerInfo(
        tool="pip",
        version="24.0",
        path_pip="/v/bin/pip",
        path_pip_location="/v/lib/python3.11/site-packages",
    )
    user = dataclasses.replace(
        base.packages,
        tensorflow=(Distribution("tensorflow-cpu", "2.21.0", location="user_site"),),
    )
    settings = (
        InstallerSetting("target", "/srv/t", "/home/u/.config/pip/pip.conf"),
        InstallerSetting("prefix", "/opt/p", "PIP_PREFIX"),
        InstallerSetting("require-virtualenv", "1", "PIP_REQUIRE_VIRTUALENV"),
    )
    refused = (PolicyAnswer((), False, "error: externally-managed-environment"),)
    crashed = (PolicyAnswer((), None, "AttributeError: x", crashed=True),)
    return {
        "venv": dataclasses.replace(base, target=venv, installer=pip),
        "kernel": dataclasses.replace(
            base,
            target=venv,
            installer=pip,
            kernel=KernelInfo(python="/v/bin/python", shell="ZMQInteractiveShell"),
        ),
        "user site under a venv": dataclasses.replace(
            base, target=venv, installer=dataclasses.replace(pip, settings=settings), packages=user
        ),
        "refused": dataclasses.replace(
            base, target=venv, installer=dataclasses.replace(pip, policy=refused)
        ),
        "uv": dataclasses.replace(
            base,
            target=dataclasses.replace(venv, installer="uv"),
            installer=InstallerInfo(tool="uv", version="0.5", no_index="UV_OFFLINE=1"),
        ),
        "crashed": dataclasses.replace(
            base, target=venv, installer=dataclasses.replace(pip, policy=crashed)
        ),
        "no index, elsewhere": dataclasses.replace(
            base,
            target=venv,
            installer=dataclasses.replace(pip, settings=settings, no_index="PIP_NO_INDEX=1"),
        ),
    }


_FIXES = (
    intent.install("numpy<2", note="built against NumPy 1.x"),
    intent.install("tensorflow==2.15.1", options=("--force-reinstall", "--no-deps")),
    intent.then(intent.uninstall("tensorflow-cpu"), intent.install("tensorflow[and-cuda]==2.21.*")),
    intent.install("nvidia-cudnn-cu12==9.3.0.75", options=("--target", "/srv/my tf")),
    intent.then(intent.variable("PYTHONPATH"), intent.install("keras")),
    intent.then(intent.set_aside("/v/lib/python3.11/site-packages/other.pth"), intent.install("x")),
)


@pytest.mark.parametrize("name", list(_variants()))
def test_the_operations_are_what_the_printed_line_runs(name: str) -> None:
    """The proof and ``gpucheck fix`` take the operations the writer made with the line, never
    the line read back; what the line says (pip's own words split as a shell splits them) is
    exactly those operations, for every kind of installer."""
    snapshot = _variants()[name]
    for fix in _FIXES:
        made = writer.written(fix, snapshot)
        operations, note, why = read_command(made.line)
        assert made.operations == tuple(operations), made.line
        assert made.note == note.strip(), made.line
        assert bool(made.why_not) == bool(why), (made.line, made.why_not, why)
        assert made.line == writer.write(fix, snapshot)


def test_every_package_command_doctor_prints_comes_from_a_plan() -> None:
    """Over every recorded environment: a fix that runs the installer is a plan written for the
    target (never text a check formatted); a fix without a plan is words or a command that is not
    the installer's (``export``, ``mv``, a driver step)."""
    from tf_gpucheck.checks import run_checks
    from tf_gpucheck.checks.findings import Cause, Finding
    from tf_gpucheck.matrix import load_matrix

    matrix = load_matrix()
    folder = DATA / "snapshots"
    seen = 0
    for path in sorted(folder.glob("*.json")):
        snapshot = scenario(path.stem)
        report = run_checks(snapshot, matrix)
        items: list[Finding | Cause] = [*report.findings, *report.causes]
        for item in items:
            if not item.fix:
                continue
            operations, _, _ = read_command(item.fix)
            if item.plan is None:
                assert not operations, (path.stem, item.fix)
            else:
                seen += 1
                assert item.fix == writer.write(item.plan, snapshot), (path.stem, item.fix)
    assert seen > 20


def uv_venv(where: Path) -> Path:
    """A real environment made by uv (no pip in it); skips where uv is not installed."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not installed (the test extra installs it)")
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(where)], check=True)
    return where / "bin" / "python"


def test_a_uv_venv_without_tensorflow_gets_one_uv_command(tmp_path: Path) -> None:
    python = uv_venv(tmp_path / "uvenv")
    result = gpucheck(
        "doctor", "--no-tf", "--json", "--python", str(python), "--proof-budget", "0", cwd=tmp_path
    )
    fix = first_environment_fix(json.loads(result.stdout))["fix"]
    assert fix.startswith(f"uv pip install --python {python} "), fix
    assert fix.count("uv pip") == 1, fix
    assert fix.count("--python") == 1, fix


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
    from tests.installer.shellwords import read_command
    from tf_gpucheck.installer import intent, writer
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
