"""The environment gpucheck diagnoses, on real virtual environments made here.

Every venv made from one base Python links to the same binary, so file identity cannot tell
them apart; these tests build such venvs (no TensorFlow: a `.dist-info` folder is what pip
leaves behind, and all gpucheck reads) and check that every fact comes from the target.
"""

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
from tests.helpers import gpucheck
from tf_gpucheck.target import choose_target

PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"


def base_python() -> str:
    """The Python this test environment was made from (not the venv's own path)."""
    for name in ("python3", "python"):
        candidate = Path(sys.base_prefix) / "bin" / name
        if candidate.exists():
            return str(candidate)
    pytest.skip("no base interpreter found")


def user_site_of(python: str, user_base: Path) -> Path:
    """The user site ``python`` reads with ``PYTHONUSERBASE=user_base``."""
    out = subprocess.run(
        [python, "-c", "import site; print(site.getusersitepackages())"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONUSERBASE": str(user_base)},
    ).stdout.strip()
    return Path(out)


def pyenv_python(version_prefix: str) -> str:
    found = sorted(PYENV.glob(f"{version_prefix}*/bin/python")) if PYENV.is_dir() else []
    if not found:
        pytest.skip(f"no Python {version_prefix} under {PYENV}")
    return str(found[-1])


def make_venv(where: Path, python: str | None = None) -> Path:
    if python is None:
        venv.EnvBuilder(with_pip=False, symlinks=True).create(where)
    else:
        subprocess.run([python, "-m", "venv", "--without-pip", str(where)], check=True)
    return where / "bin" / "python"


def site_packages(python: Path | str) -> Path:
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return Path(out)


def add_distribution(site: Path, name: str, version: str, *requires: str) -> None:
    """What `pip install` leaves for a wheel: NAME-VERSION.dist-info/METADATA (+ RECORD)."""
    folder = site / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir(parents=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (folder / "METADATA").write_text("\n".join(lines) + "\n\nA description.\n")
    (folder / "RECORD").write_text("")


def detect_json(run_cli: Any, *args: str) -> dict[str, Any]:
    result = run_cli(["detect", "--no-tf", "--json", *args])
    assert result.exit_code == 0, result.stderr
    data: dict[str, Any] = result.json()
    return data


def tf_names(data: dict[str, Any]) -> list[str]:
    return [f"{d['name']} {d['version']}" for d in data["packages"]["tensorflow"]]


@pytest.fixture
def two_venvs_of_one_base(tmp_path: Path) -> tuple[Path, Path]:
    base = base_python()
    project = make_venv(tmp_path / "project", base)
    bare = make_venv(tmp_path / "bare", base)
    add_distribution(
        site_packages(project),
        "tensorflow",
        "2.15.1",
        'nvidia-cudnn-cu12==8.9.4.25; extra == "and-cuda"',
    )
    add_distribution(site_packages(project), "keras", "2.15.0")
    assert os.path.realpath(project) == os.path.realpath(bare)  # one binary, two environments
    return project, bare


def test_venvs_of_one_base_are_told_apart(run_cli: Any, two_venvs_of_one_base: Any) -> None:
    project, bare = two_venvs_of_one_base
    with_tf = detect_json(run_cli, "--python", str(project))
    assert tf_names(with_tf) == ["tensorflow 2.15.1"]
    assert with_tf["packages"]["keras"] == "2.15.0"
    assert with_tf["packages"]["and_cuda_requirements"] == ["nvidia-cudnn-cu12==8.9.4.25"]
    assert with_tf["target"]["prefix"] == str(project.parent.parent)
    assert with_tf["target"]["kind"] == "venv"
    assert with_tf["target"]["chosen_by"] == "python_flag"
    assert with_tf["system"]["python_executable"] == str(project)
    without = detect_json(run_cli, "--python", str(bare))
    assert tf_names(without) == []
    assert without["packages"]["keras"] is None
    assert without["target"]["prefix"] == str(bare.parent.parent)


@pytest.mark.slow
def test_gpucheck_own_venv_is_not_the_target(run_cli: Any, two_venvs_of_one_base: Any) -> None:
    # gpucheck runs in a venv with TensorFlow 2.21; a bare venv of the same base has none.
    _, bare = two_venvs_of_one_base
    own = {d["name"] for d in detect_json(run_cli)["packages"]["tensorflow"]}
    assert "tensorflow" in own
    result = run_cli(["doctor", "--no-tf", "--python", str(bare), "--allow-cpu", "--json"])
    data = result.json()
    assert result.exit_code == 1  # a CI gate must not pass an environment without TensorFlow
    findings = {f["check"]: f for f in data["findings"]}
    assert findings["tf_install"]["cause"] == "tf_not_installed"
    assert data["target"]["prefix"] == str(bare.parent.parent)


@pytest.mark.slow
def test_the_active_virtual_environment_is_diagnosed_by_default(
    run_cli: Any, two_venvs_of_one_base: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, _ = two_venvs_of_one_base
    monkeypatch.setenv("VIRTUAL_ENV", str(project.parent.parent))
    data = detect_json(run_cli)
    assert data["target"]["chosen_by"] == "virtual_env"
    assert tf_names(data) == ["tensorflow 2.15.1"]
    human = run_cli(["detect", "--no-tf"])
    assert human.stdout.splitlines()[0] == (
        f"diagnosing {project.parent.parent} (active virtual environment)"
    )
    # --python wins over the active environment
    assert detect_json(run_cli, "--python", sys.executable)["target"]["chosen_by"] == "python_flag"


def test_an_active_environment_that_is_gpucheck_own_is_still_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    target = choose_target(None)
    assert target.is_own
    assert target.chosen_by == "virtual_env"


def test_a_different_base_python_reports_its_own_version(run_cli: Any, tmp_path: Path) -> None:
    other = pyenv_python("3.10")
    python = make_venv(tmp_path / "py310", other)
    add_distribution(site_packages(python), "tensorflow", "2.10.1")
    data = detect_json(run_cli, "--python", str(python))
    assert data["system"]["python_version"].startswith("3.10.")
    assert tf_names(data) == ["tensorflow 2.10.1"]


def test_user_site_packages_of_the_base_interpreter(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `pip install --user tensorflow` into the base interpreter; a bare name found on PATH.
    base = base_python()
    monkeypatch.setenv("PYTHONUSERBASE", str(tmp_path / "userbase"))
    user_site = user_site_of(base, tmp_path / "userbase")
    add_distribution(user_site, "tensorflow", "2.21.0")
    monkeypatch.setenv("PATH", f"{Path(base).parent}{os.pathsep}{os.environ['PATH']}")
    data = detect_json(run_cli, "--python", Path(base).name)
    assert data["target"]["python_executable"] == str(Path(base).parent / Path(base).name)
    assert data["target"]["user_site"] == str(user_site)
    assert data["target"]["kind"] == "system"
    assert tf_names(data) == ["tensorflow 2.21.0"]


def test_python_3_7_without_importlib_metadata(run_cli: Any, tmp_path: Path) -> None:
    python = make_venv(tmp_path / "py37", pyenv_python("3.7"))
    add_distribution(site_packages(python), "tensorflow", "2.11.0")
    add_distribution(site_packages(python), "keras", "2.11.0")
    data = detect_json(run_cli, "--python", str(python))
    assert data["system"]["python_version"].startswith("3.7.")
    assert tf_names(data) == ["tensorflow 2.11.0"]
    assert data["packages"]["keras"] == "2.11.0"


@pytest.mark.parametrize(("version", "newest"), [("3.6", "2.6"), ("3.8", "2.13"), ("3.9", "2.20")])
@pytest.mark.slow
def test_old_pythons_get_the_newest_release_they_can_run(
    run_cli: Any, version: str, newest: str
) -> None:
    python = pyenv_python(version)
    result = run_cli(["doctor", "--no-tf", "--python", python, "--json"])
    data = result.json()
    findings = {f["check"]: f for f in data["findings"]}
    assert findings["python"]["status"] == "info"
    assert f"the newest TensorFlow for it is {newest}." in findings["python"]["summary"]
    install = findings["tf_install"]
    assert install["cause"] == "tf_not_installed"
    assert install["fix"].startswith(f"{python} -m pip install ")
    assert f'=={newest}.*"' in install["fix"]
    assert "2.21" not in install["fix"]


def test_python_2_7_is_read_not_replaced_by_gpucheck_own(run_cli: Any) -> None:
    python = pyenv_python("2.7")
    data = detect_json(run_cli, "--python", python)
    assert data["system"]["python_version"].startswith("2.7.")
    assert data["target"]["error"] is None
    rec = run_cli(["matrix", "--recommend", "--json", "--python", python]).json()
    assert rec["tensorflow"] == "2.1.0"  # the last release for Python 2.7
    assert rec["python_upgrade"] is not None


def test_an_interpreter_that_is_not_python_is_never_replaced(run_cli: Any) -> None:
    result = run_cli(["doctor", "--no-tf", "--python", "/bin/true", "--json"])
    data = result.json()
    assert result.exit_code == 1
    python = next(f for f in data["findings"] if f["check"] == "python")
    assert python["cause"] == "python_unusable"
    assert "/bin/true did not report a Python version" in python["summary"]
    rec = run_cli(["matrix", "--recommend", "--json", "--python", "/bin/true"]).json()
    assert rec["tensorflow"] is None
    assert rec["command"] is None
    assert any("cannot tell which TensorFlow fits" in r for r in rec["reasons"])


def test_a_folder_given_to_python_means_its_interpreter(tmp_path: Path) -> None:
    python = make_venv(tmp_path / "env")
    assert choose_target(str(tmp_path / "env")).python == str(python)


@pytest.mark.slow
def test_the_interpreter_probe_runs_on_every_python_tensorflow_supported() -> None:
    from tf_gpucheck._children import script

    ran = 0
    for version in ("2.7", "3.6", "3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13"):
        found = sorted(PYENV.glob(f"{version}*/bin/python")) if PYENV.is_dir() else []
        if not found:
            continue
        out = subprocess.run(
            [str(found[-1]), script("interpreter_probe")],
            capture_output=True,
            text=True,
            check=False,
        )
        assert out.returncode == 0, (version, out.stderr)
        data = json.loads(out.stdout)
        assert data["python_version"].startswith(version + ".")
        assert {"prefix", "base_prefix", "kind", "user_site", "distributions"} <= set(data)
        ran += 1
    if ran == 0:
        pytest.skip("no pyenv interpreters here")


def test_a_broken_active_environment_is_reported_not_replaced(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "venv"
    (broken / "bin").mkdir(parents=True)
    (broken / "bin" / "python").symlink_to(tmp_path / "gone")  # its base Python was removed
    monkeypatch.setenv("VIRTUAL_ENV", str(broken))
    result = run_cli(["doctor", "--no-tf", "--json"])
    data = result.json()
    assert data["target"]["chosen_by"] == "virtual_env"
    python = next(f for f in data["findings"] if f["check"] == "python")
    assert python["cause"] == "python_unusable"
    assert f"the active environment {broken} has no working Python" in python["fix"]


def test_output_of_a_sitecustomize_does_not_spoil_the_facts(
    run_cli: Any, two_venvs_of_one_base: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, _ = two_venvs_of_one_base
    (tmp_path / "sitecustomize.py").write_text('print("welcome to the cluster")\n')
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    data = detect_json(run_cli, "--python", str(project))
    assert data["target"]["error"] is None
    assert tf_names(data) == ["tensorflow 2.15.1"]


def test_fixes_use_the_target_pip_in_every_step() -> None:

    from tf_gpucheck.installer import intent, writer

    base = scenario("two-a100")
    flagged = dataclasses.replace(
        base,
        target=dataclasses.replace(
            base.target, python_executable="/opt/my env/bin/python", chosen_by="python_flag"
        ),
    )
    said = writer.write(
        intent.then(
            intent.install("x>1", options=("--force-reinstall",)),
            intent.uninstall("y"),
            note="nothing named it",
        ),
        flagged,
    )
    assert said == (
        "'/opt/my env/bin/python' -m pip install --force-reinstall \"x>1\" && "
        "'/opt/my env/bin/python' -m pip uninstall -y y  # nothing named it"
    )
    # a step that is not the installer's is written as it is, whatever the target's installer
    aside = intent.set_aside("/opt/my env/lib/python3.11/site-packages/other.pth")
    assert writer.write(aside, flagged) == (
        "mv '/opt/my env/lib/python3.11/site-packages/other.pth' "
        "'/opt/my env/lib/python3.11/site-packages/other.pth.disabled'"
    )
    windows = dataclasses.replace(
        flagged,
        system=dataclasses.replace(flagged.system, os="Windows"),
        target=dataclasses.replace(
            flagged.target, python_executable="C:\\Users\\me\\my env\\Scripts\\python.exe"
        ),
    )
    assert writer.write(intent.install("x"), windows) == (
        '"C:\\Users\\me\\my env\\Scripts\\python.exe" -m pip install x'
    )


def test_a_venv_whose_python_link_is_broken_is_named_so(tmp_path: Path) -> None:
    env = tmp_path / "env"
    venv.create(env, with_pip=False)
    for name in ("python", "python3"):
        (env / "bin" / name).unlink()
    (env / "bin" / "python").symlink_to(tmp_path / "gone" / "python3.99")
    out = gpucheck("doctor", "--no-tf", "--json", "--proof-budget", "0", "--python", str(env))
    assert "a folder with no bin/python in it" not in out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["first_fix"]["cause"] == "python_unusable"
    assert "broken virtual environment" in report["first_fix"]["summary"]
