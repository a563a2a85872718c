"""The installer's own settings, observed on real pip: refusals (PEP 668, a user setting in a venv), where it installs (target, prefix, root), and the fixes that lift them for one command."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import first_environment_fix
from tests.fix.test_fix import venv_with_pip
from tests.helpers import doctor, tiny_wheel, venv_with_tensorflow_cpu
from tests.probes.test_user_import import (
    METADATA,
    install_fake,
)
from tests.test_target import site_packages


def _externally_managed_python() -> str | None:
    if not glob.glob("/usr/lib/python3*/EXTERNALLY-MANAGED"):
        return None
    return shutil.which("python3", path="/usr/bin")


@pytest.mark.slow
def test_an_installer_that_refuses_the_target_gets_a_fresh_environment(tmp_path: Path) -> None:
    python = _externally_managed_python()
    if python is None:
        pytest.skip("no Python marked externally managed (PEP 668) on this machine")
    data = doctor(Path(python), "--proof-budget", "0", cwd=tmp_path, HOME=str(tmp_path))
    fix = first_environment_fix(data)["fix"]
    assert " -m venv " in fix, fix
    assert "externally-managed-environment" in fix  # the installer's own words, said on the line
    assert not fix.startswith(f"{python} -m pip install")


@pytest.mark.slow
def test_a_target_variable_does_not_hide_an_externally_managed_python(tmp_path: Path) -> None:
    """``PIP_TARGET`` in the shell of a Python marked externally managed: pip skips PEP 668's
    check for a ``--target`` install, so the policy answers "yes"; but each printed install sets
    the target aside, and pip then refuses it (seen in a generated environment: "error:
    externally-managed-environment" when pasted). The policy is asked as the printed install
    runs: the fix is a fresh environment, with the refusal said."""
    python = _externally_managed_python()
    if python is None:
        pytest.skip("no Python marked externally managed (PEP 668) on this machine")
    data = doctor(Path(python), "--proof-budget", "0", cwd=tmp_path, HOME=str(tmp_path),
                  PIP_TARGET=str(tmp_path / "pip-target"))  # fmt: skip
    fix = first_environment_fix(data)["fix"]
    assert " -m venv " in fix, fix
    assert "externally-managed-environment" in fix, fix
    assert f"PIP_TARGET={tmp_path / 'pip-target'}" in fix, fix

    # tensorflow-cpu in that Python's user site: "uninstall it, install tensorflow" becomes the
    # fresh environment alone (pip refuses the uninstall there too: PEP 668 covers both)
    version = subprocess.run(
        [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    user_site = tmp_path / ".local" / "lib" / f"python{version}" / "site-packages"
    install_fake(user_site, "tensorflow-cpu", "2.21.0")
    data = doctor(Path(python), "--proof-budget", "0", cwd=tmp_path, HOME=str(tmp_path),
                  PIP_TARGET=str(tmp_path / "pip-target"))  # fmt: skip
    # the CPU-only build's fix (in this container without a GPU the place comes first)
    fix = next(c for c in data["causes"] if c["cause"] == "tf_cpu_only_build")["fix"]
    assert fix.startswith(f"{python} -m venv "), fix
    assert "pip uninstall" not in fix, fix


@pytest.mark.slow
def test_a_fresh_environment_for_a_user_site_setting_installs_with_no_user(tmp_path: Path) -> None:
    """``PIP_USER=1`` in the shell of a Python marked externally managed (a generated
    environment, seed 31 env 21: the pasted fix failed with "Can not perform a '--user' install.
    User site-packages are not visible in this virtualenv."): the new environment's install says
    ``--no-user``, and real pip, in that setting, takes it there where it refuses the bare one."""
    python = _externally_managed_python()
    if python is None:
        pytest.skip("no Python marked externally managed (PEP 668) on this machine")
    data = doctor(Path(python), "--proof-budget", "0", cwd=tmp_path, HOME=str(tmp_path),
                  PIP_USER="1")  # fmt: skip
    fix = first_environment_fix(data)["fix"]
    assert " -m venv " in fix, fix
    assert "/bin/python -m pip install --no-user " in fix, fix
    assert "PIP_USER=1" in fix  # where the setting is, said on the line
    # the oracle: real pip in a new venv of that Python, with the user's variable
    env = tmp_path / "fresh"
    subprocess.run([python, "-m", "venv", str(env)], check=True)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    tiny_wheel(wheels)
    user = {**os.environ, "PIP_USER": "1", "HOME": str(tmp_path)}
    install = [str(env / "bin" / "python"), "-m", "pip", "install", "--no-index",
               "--find-links", str(wheels)]  # fmt: skip
    bare = subprocess.run(
        [*install, "tiny-pkg"], capture_output=True, text=True, env=user, check=False
    )
    assert bare.returncode != 0
    assert "Can not perform a '--user' install" in bare.stderr
    taken = subprocess.run(
        [*install, "--no-user", "tiny-pkg"], capture_output=True, text=True, env=user, check=False
    )
    assert taken.returncode == 0, taken.stderr


@pytest.mark.slow
def test_a_user_setting_a_venv_refuses_is_lifted_with_no_user(tmp_path: Path) -> None:
    python = venv_with_pip(tmp_path / "venv")
    install_fake(site_packages(python), "tensorflow", "2.21.0",
                 (METADATA / "tensorflow-2.21.0.METADATA").read_text())  # fmt: skip
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, PIP_USER="1")
    fixes = [f["fix"] for f in data["findings"] if f["fix"] and " install " in f["fix"]]
    assert fixes
    for fix in fixes:
        if " -m pip install" in fix:
            assert " -m pip install --no-user " in fix, fix
    # the installer takes it: pip's own dry run with the same setting
    result = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-user", "--dry-run", "--no-index",
         "--no-deps", "nothing-at-all==0"],
        capture_output=True, text=True, check=False, env={**os.environ, "PIP_USER": "1"},
    )  # fmt: skip
    assert "Can not perform a '--user' install" not in result.stderr


@pytest.mark.slow
def test_a_pip_set_to_install_elsewhere_gets_installs_that_land_in_the_environment(
    tmp_path: Path,
) -> None:
    """A user's pip.conf says ``[install] target = FOLDER``: every ``pip install`` lands in that
    folder and the environment keeps what it had (seen on a real environment: the fix upgraded
    protobuf into the folder, the venv kept 3.20.3). doctor reads the setting from pip's own
    ``pip config debug`` in the user's setting, says it on the line, and prints each install
    with the variables that set it aside for that install, the other settings kept. The real pip
    in that setting installs the printed way into the environment, the plain way into the
    folder."""

    python = venv_with_tensorflow_cpu(tmp_path)
    home = tmp_path / "home"
    config = home / ".config" / "pip" / "pip.conf"
    config.parent.mkdir(parents=True)
    folder = tmp_path / "pip-target"
    wheels = tmp_path / "wheels"
    tiny_wheel(wheels)
    config.write_text(f"[global]\nfind-links = {wheels}\n[install]\ntarget = {folder}\n")
    user = {"HOME": str(home), "PIP_FIND_LINKS": "", "PIP_NO_INDEX": "1"}  # the file's links
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, **user)
    installs = [f["fix"] for f in data["findings"] if f["fix"] and "pip install" in f["fix"]]
    assert installs, data["findings"]
    for fix in installs:
        assert f"(target = {folder} in {config})" in fix, fix
        for part in fix.split("  #")[0].split(" && "):
            if "pip install" in part:
                assert part.startswith("PIP_CONFIG_FILE=/dev/null "), fix
                assert f" PIP_FIND_LINKS={wheels} " in part, fix  # the file's other setting
                # the user's no-index is lifted once, by the variable that lifts it, not carried
                assert part.count("PIP_NO_INDEX=") == 1, fix
                assert " PIP_NO_INDEX=0 " in part, fix
    install = next(p for p in installs[0].split("  #")[0].split(" && ") if "pip install" in p)
    _lands_in_the_environment_only_as_printed(python, install, user, tmp_path, folder)


@pytest.mark.slow
def test_a_prefix_variable_of_the_users_is_emptied_for_each_install(tmp_path: Path) -> None:
    """``PIP_PREFIX=FOLDER`` in the user's shell: each install is printed with ``PIP_PREFIX=``
    (pip skips an empty variable) and no config file set aside (none sets it); the real pip
    installs the printed way into the environment, the plain way under the folder."""

    python = venv_with_tensorflow_cpu(tmp_path)
    folder = tmp_path / "prefix"
    wheels = tmp_path / "wheels"
    tiny_wheel(wheels)
    user = {"HOME": str(tmp_path), "PIP_PREFIX": str(folder), "PIP_FIND_LINKS": str(wheels),
            "PIP_NO_INDEX": "1"}  # fmt: skip
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, **user)
    fix = next(c for c in data["causes"] if c["cause"] == "tf_cpu_only_build")["fix"]
    assert f"your pip is set to install elsewhere (PIP_PREFIX={folder})" in fix, fix
    install = next(p for p in fix.split("  #")[0].split(" && ") if "pip install" in p)
    assert install.startswith("PIP_PREFIX= "), fix
    assert "PIP_CONFIG_FILE" not in install, fix
    _lands_in_the_environment_only_as_printed(python, install, user, tmp_path, folder)


def _lands_in_the_environment_only_as_printed(
    python: Path, install: str, user: dict[str, str], cwd: Path, folder: Path
) -> None:
    """The real pip, in the user's setting, installs a wheel from the wheelhouse: under
    ``folder`` run plainly, into the environment with the printed install's variables (but the
    index's: the wheelhouse holds it, nothing is downloaded)."""
    from tests.installer.shellwords import read_command

    printed, _, why = read_command(install)
    assert not why
    environ = {**os.environ, **user}
    environ.pop("PIP_CONFIG_FILE", None)
    for lifted in (False, True):
        extra = {k: v for k, v in printed[0].environ if k != "PIP_NO_INDEX"} if lifted else {}
        result = subprocess.run(
            [str(python), "-m", "pip", "install", "tiny-pkg==1.0"],
            capture_output=True, text=True, check=False, cwd=cwd,
            env={**environ, **extra},
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        in_environment = (site_packages(python) / "tiny_pkg" / "__init__.py").exists()
        in_folder = bool(glob.glob(str(folder / "**" / "tiny_pkg" / "__init__.py"), recursive=True))
        assert (in_environment, in_folder) == ((True, True) if lifted else (False, True))


@pytest.mark.slow
def test_where_pip_installs_is_set_aside_only_on_install_parts_and_once() -> None:
    """The words around the lift: a fix that names an install only in its comment is left as
    it is; a lifted fix passes through again unchanged; where no variable can be set on the
    line (Windows) the setting is said and nothing is prefixed."""
    import dataclasses

    from tests.conftest import scenario
    from tf_gpucheck.installer import intent, writer
    from tf_gpucheck.snapshot import InstallerInfo, InstallerSetting, TargetInfo

    settings = (
        InstallerSetting("target", "/srv/t", "/home/u/.config/pip/pip.conf"),
        InstallerSetting("index-url", "https://mirror.example/simple a", "/etc/pip.conf"),
        InstallerSetting("prefix", "/opt/p", "PIP_PREFIX"),
    )
    base = scenario("real-tensorflow-cpu-2.21-py3.11")
    snapshot = dataclasses.replace(
        base,
        installer=InstallerInfo(tool="pip", version="24.0", settings=settings),
        target=dataclasses.replace(
            base.target, python_executable="/v/bin/python", prefix="/v", chosen_by="python_flag"
        ),
    )
    assert isinstance(snapshot.target, TargetInfo)
    words = intent.set_aside("a", note="then pip install c")
    assert writer.write(words, snapshot) == "mv a a.disabled  # then pip install c"
    fix = intent.then(intent.uninstall("tensorflow-cpu"), intent.install("tensorflow==2.21.*"))
    once = writer.write(fix, snapshot)
    assert once.startswith(
        "/v/bin/python -m pip uninstall -y tensorflow-cpu && PIP_CONFIG_FILE=/dev/null "
        "PIP_INDEX_URL='https://mirror.example/simple a' PIP_PREFIX= /v/bin/python -m pip install"
    ), once
    assert once.count("PIP_CONFIG_FILE") == 1, once
    assert "(target = /srv/t in /home/u/.config/pip/pip.conf; PIP_PREFIX=/opt/p)" in once
    windows = dataclasses.replace(
        snapshot, system=dataclasses.replace(snapshot.system, os="Windows")
    )
    said = writer.write(fix, windows)
    assert "PIP_CONFIG_FILE" not in said.partition("  #")[0], said
    assert "  # your pip is set to install elsewhere" in said, said


@pytest.mark.slow
def test_a_user_setting_in_a_venv_that_sees_the_user_site_is_set_aside(tmp_path: Path) -> None:
    """``PIP_USER=1`` in a venv made with ``--system-site-packages``: pip accepts a user install
    there in general, but refuses one of a package the venv itself has ("Will not install to
    the user site because it will lack sys.path precedence", seen pasted in generated
    environment 105 of seed 19: a stale protobuf in the venv). A venv's installs go into the
    venv: each printed install says ``--no-user``, and pip takes that."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)  # fmt: skip
    python = venv / "bin" / "python"
    site = site_packages(python)
    install_fake(site, "tensorflow", "2.21.0",
                 (METADATA / "tensorflow-2.21.0.METADATA").read_text())  # fmt: skip
    install_fake(site, "tiny-pkg", "0.5")
    tiny_wheel(tmp_path / "wheels")
    home = {"HOME": str(tmp_path / "home"), "PIP_USER": "1"}
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, **home)
    fixes = [f["fix"] for f in data["findings"] if f["fix"] and " -m pip install" in f["fix"]]
    assert fixes, data["findings"]
    for fix in fixes:
        assert " -m pip install --no-user " in fix, fix
    env = {**os.environ, **home}
    install = [str(python), "-m", "pip", "install", "--dry-run", "--no-index", "--find-links",
               str(tmp_path / "wheels"), "tiny-pkg==1.0"]  # fmt: skip
    refused = subprocess.run(install, capture_output=True, text=True, check=False, env=env)
    assert refused.returncode != 0
    assert "lack sys.path precedence" in refused.stderr, refused.stderr
    taken = subprocess.run([*install[:4], "--no-user", *install[4:]], capture_output=True,
                           text=True, check=False, env=env)  # fmt: skip
    assert taken.returncode == 0, taken.stderr
