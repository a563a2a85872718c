"""The import the user's program really gets, on real virtual environments built here.

Each environment is a real venv (no TensorFlow is installed: a package folder and its
``.dist-info`` are what ``import`` finds and pip leaves behind, and all gpucheck reads); the
TensorFlow and Keras metadata are real wheels' (tests/data/metadata). Each test asserts doctor's
first cause and its first fix, and where the fix installs something, that pip's own resolver
picks what the fix says (``--dry-run``, when the package index answers).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.paths import DATA, ROOT
from tests.test_target import base_python, make_venv, pyenv_python, site_packages, user_site_of

METADATA = DATA / "metadata"


def install_fake(site: Path, name: str, version: str, metadata: str | None = None) -> None:
    """A package folder ``name/__init__.py`` and its dist-info, as pip leaves them."""
    package = name.replace("-", "_")
    (site / package).mkdir(parents=True, exist_ok=True)
    (site / package / "__init__.py").write_text("")
    info = site / f"{package}-{version}.dist-info"
    info.mkdir()
    text = metadata or f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    (info / "METADATA").write_text(text + "\n")
    (info / "top_level.txt").write_text(package + "\n")
    listed = [f"{package}/__init__.py"] + [
        f"{info.name}/{name}" for name in ("METADATA", "RECORD", "top_level.txt")
    ]
    (info / "RECORD").write_text("".join(f"{path},,\n" for path in listed))


def install_tensorflow_cpu(site: Path, version: str) -> Path:
    """tensorflow-cpu as pip leaves it: the ``tensorflow`` package under another name."""
    (site / "tensorflow").mkdir(parents=True)
    (site / "tensorflow" / "__init__.py").write_text("")
    info = site / f"tensorflow_cpu-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: tensorflow-cpu\nVersion: {version}\n"
    )
    (info / "top_level.txt").write_text("tensorflow\n")
    (info / "INSTALLER").write_text("pip\n")
    listed = ["tensorflow/__init__.py"] + [
        f"{info.name}/{n}" for n in ("METADATA", "RECORD", "top_level.txt", "INSTALLER")
    ]
    (info / "RECORD").write_text("".join(f"{path},,\n" for path in listed))
    return info


# The venvs here are made --without-pip (fast), so every install fix starts with the
# environment's own ensurepip: a bare `python -m pip` would fail there ("No module named pip").


def tf221_venv(where: Path) -> Path:
    """A venv with TensorFlow 2.21.0 and Keras 3.15.1 as their real metadata declare them, and
    the packages they require at versions that satisfy them."""
    python = make_venv(where, base_python())
    install_tf221(site_packages(python))
    return python


def install_tf221(site: Path, **versions: str | None) -> None:
    """TensorFlow 2.21.0 and Keras 3.15.1 as their real metadata declare them, and the packages
    they require at versions that satisfy them (``versions``: another version of one, or None
    for none)."""
    install_fake(
        site, "tensorflow", "2.21.0", (METADATA / "tensorflow-2.21.0.METADATA").read_text()
    )
    install_fake(site, "keras", "3.15.1", (METADATA / "keras-3.15.1.METADATA").read_text())
    for name, version in (
        ("absl-py", "2.3.1"), ("astunparse", "1.6.3"), ("flatbuffers", "25.9.23"),
        ("gast", "0.6.0"), ("google-pasta", "0.2.0"), ("libclang", "18.1.1"),
        ("opt-einsum", "3.4.0"), ("packaging", "25.0"), ("protobuf", "6.31.1"),
        ("requests", "2.32.5"), ("setuptools", "80.9.0"), ("six", "1.17.0"),
        ("termcolor", "3.1.0"), ("typing-extensions", "4.15.0"), ("wrapt", "1.17.3"),
        ("grpcio", "1.75.0"), ("numpy", "2.3.3"), ("h5py", "3.14.0"), ("ml-dtypes", "0.5.3"),
        ("rich", "14.1.0"), ("namex", "0.1.0"), ("optree", "0.17.0"),
    ):  # fmt: skip
        chosen = versions.get(name.replace("-", "_"), version)
        if chosen is not None:
            install_fake(site, name, chosen)


def doctor(run_cli: Any, python: Path, *args: str) -> dict[str, Any]:
    result = run_cli(["doctor", "--no-tf", "--allow-cpu", "--json", "--python", str(python), *args])
    assert result.exit_code in (0, 1), result.stderr
    data: dict[str, Any] = result.json()
    return data


def first(data: dict[str, Any]) -> tuple[str, str]:
    fix = data["first_fix"]
    return fix["cause"], fix["fix"] or ""


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No PYTHONPATH, Keras variables or keras.json of the machine running the tests."""
    for name in ("PYTHONPATH", "KERAS_BACKEND", "TF_USE_LEGACY_KERAS", "VIRTUAL_ENV"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras-home"))
    return tmp_path


def test_a_healthy_environment_has_nothing_in_the_way(run_cli: Any, clean_env: Path) -> None:
    python = tf221_venv(clean_env / "ok")
    data = doctor(run_cli, python, "--cwd", str(clean_env))
    checks = {f["check"]: f for f in data["findings"]}
    assert checks["user_import"]["status"] == "ok"
    assert checks["tf_requirements"]["status"] == "ok", checks["tf_requirements"]
    assert checks["keras_backend"]["status"] == "ok"
    assert data["first_fix"]["cause"] != "module_shadowed"


def test_a_tensorflow_py_in_the_users_folder(
    run_cli: Any, clean_env: Path, monkeypatch: Any
) -> None:
    python = tf221_venv(clean_env / "venv")
    project = clean_env / "project"
    project.mkdir()
    (project / "tensorflow.py").write_text("import tensorflow as tf\nprint(tf.config)\n")
    cause, fix = first(doctor(run_cli, python, "--cwd", str(project)))
    assert cause == "module_shadowed"
    assert str(project / "tensorflow.py") in fix
    # by default the folder is the one doctor runs in
    monkeypatch.chdir(project)
    assert first(doctor(run_cli, python))[0] == "module_shadowed"
    # and the environment alone is fine
    monkeypatch.chdir(clean_env)
    assert first(doctor(run_cli, python))[0] != "module_shadowed"


def test_a_tensorflow_folder_on_pythonpath(run_cli: Any, clean_env: Path, monkeypatch: Any) -> None:
    python = tf221_venv(clean_env / "venv")
    shadow = clean_env / "checkout"
    (shadow / "tensorflow").mkdir(parents=True)
    (shadow / "tensorflow" / "__init__.py").write_text("")
    monkeypatch.setenv("PYTHONPATH", str(shadow))
    data = doctor(run_cli, python, "--cwd", str(clean_env))
    cause, fix = first(data)
    assert cause == "module_shadowed"
    assert str(shadow / "tensorflow") in data["first_fix"]["summary"]
    assert str(shadow / "tensorflow") in fix
    assert "PYTHONPATH" in data["first_fix"]["summary"]


def test_every_shadow_along_the_path_is_renamed_by_one_fix(
    run_cli: Any, clean_env: Path, monkeypatch: Any
) -> None:
    """A ``tensorflow.py`` in the folder and a ``tensorflow/`` package on PYTHONPATH behind it:
    renaming the first alone leaves the second found. A folder without ``__init__.py`` on the
    path is a namespace portion, which hides nothing, and is left alone."""
    python = tf221_venv(clean_env / "venv")
    project = clean_env / "project"
    project.mkdir()
    (project / "tensorflow.py").write_text("")
    checkout = clean_env / "checkout"
    (checkout / "tensorflow").mkdir(parents=True)
    (checkout / "tensorflow" / "__init__.py").write_text("")
    portion = clean_env / "portion"
    (portion / "tensorflow").mkdir(parents=True)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(portion), str(checkout)]))
    data = doctor(run_cli, python, "--cwd", str(project))
    cause, fix = first(data)
    assert cause == "module_shadowed"
    assert str(checkout / "tensorflow") in data["first_fix"]["summary"]
    assert str(portion / "tensorflow") not in fix
    assert data["first_fix"]["summary"].endswith("tensorflow behind it, the same way)"), data
    observed = next(
        o
        for f in data["findings"]
        if f["check"] == "user_import"
        for o in f["observed"]
        if o.get("module") == "tensorflow"
    )
    assert observed["shadows"] == [
        str(project / "tensorflow.py"),
        str(checkout / "tensorflow" / "__init__.py"),
    ]
    subprocess.run(["bash", "-c", fix], cwd=project, check=True)  # the fix as printed, pasted
    assert not (project / "tensorflow.py").exists()
    after = doctor(run_cli, python, "--cwd", str(project))
    user_import = next(f for f in after["findings"] if f["check"] == "user_import")
    assert user_import["status"] == "ok", user_import
    assert user_import["observed"][0]["origin"].startswith(str(clean_env / "venv"))


def test_pythonpath_bringing_another_environments_tensorflow(
    run_cli: Any, clean_env: Path, monkeypatch: Any
) -> None:
    python = tf221_venv(clean_env / "venv")
    other = make_venv(clean_env / "other", base_python())
    install_fake(site_packages(other), "tensorflow", "2.15.1")
    monkeypatch.setenv("PYTHONPATH", str(site_packages(other)))
    data = doctor(run_cli, python, "--cwd", str(clean_env))
    cause, fix = first(data)
    assert cause == "pythonpath_foreign"
    assert fix.startswith("unset PYTHONPATH")
    assert "tensorflow" in data["first_fix"]["summary"]
    assert str(site_packages(other)) in data["first_fix"]["summary"]


def test_keras_backend_naming_a_missing_backend(
    run_cli: Any, clean_env: Path, monkeypatch: Any
) -> None:
    python = tf221_venv(clean_env / "venv")
    monkeypatch.setenv("KERAS_BACKEND", "jax")
    cause, fix = first(doctor(run_cli, python, "--cwd", str(clean_env)))
    assert cause == "keras_backend_missing"
    assert fix.startswith("unset KERAS_BACKEND")
    monkeypatch.setenv("KERAS_BACKEND", "")  # set but empty: Keras reads keras.json
    assert first(doctor(run_cli, python, "--cwd", str(clean_env)))[0] != "keras_backend_missing"
    monkeypatch.delenv("KERAS_BACKEND")
    home = clean_env / "keras-home"
    home.mkdir()
    (home / "keras.json").write_text(json.dumps({"backend": "torch", "floatx": "float32"}))
    data = doctor(run_cli, python, "--cwd", str(clean_env))
    cause, fix = first(data)
    assert cause == "keras_backend_missing"
    assert str(home / "keras.json") in fix


def test_keras_backend_on_a_cpu_only_build(run_cli: Any, clean_env: Path, monkeypatch: Any) -> None:
    # a real venv with jax and jaxlib but no jax-cuda plugin, KERAS_BACKEND=jax
    python = tf221_venv(clean_env / "venv")
    site = site_packages(python)
    install_fake(site, "jax", "0.7.2")
    install_fake(site, "jaxlib", "0.7.2")
    monkeypatch.setenv("KERAS_BACKEND", "jax")
    data = doctor(run_cli, python, "--cwd", str(clean_env))
    backend = next(f for f in data["findings"] if f["check"] == "keras_backend")
    # this machine has no GPU: running Keras on JAX's CPU is a choice, not a problem
    assert backend["status"] == "info", backend
    assert backend["cause"] is None
    # the same facts where the driver lists GPUs: Keras trains on the CPU beside them
    from tests.conftest import scenario
    from tf_gpucheck.checks import Status, run_checks
    from tf_gpucheck.matrix import load_matrix

    here = load_snapshot_from(run_cli, python, clean_env)
    gpus = scenario("two-a100")
    mixed = dataclasses.replace(
        gpus,
        imports=here.imports,
        packages=dataclasses.replace(
            gpus.packages, other_frameworks=here.packages.other_frameworks
        ),
    )
    report = run_checks(mixed, load_matrix())
    backend = next(f for f in report.findings if f.check == "keras_backend")
    assert backend.status is Status.WARN
    assert backend.cause == "keras_backend_cpu_only"
    assert "jax 0.7.2 is a CPU-only build" in backend.summary
    assert (backend.fix or "").startswith("unset KERAS_BACKEND")
    # with TensorFlow healthy on the GPUs, this is what doctor puts first
    assert report.first_fix is not None
    assert report.first_fix.cause == "keras_backend_cpu_only"


def load_snapshot_from(run_cli: Any, python: Path, cwd: Path) -> Any:
    """What ``detect`` records of a real environment, read back as doctor would (``--from``)."""
    from tf_gpucheck.snapshot import load_snapshot

    result = run_cli(["detect", "--no-tf", "--json", "--python", str(python), "--cwd", str(cwd)])
    assert result.exit_code == 0, result.stderr
    path = cwd / "snapshot.json"
    path.write_text(result.stdout)
    return load_snapshot(path)


@pytest.mark.slow
def test_uninstalling_a_second_distribution_that_shared_the_folder(
    run_cli: Any, clean_env: Path
) -> None:
    # tensorflow and tensorflow-cpu both own tensorflow/__init__.py; pip's own uninstall of one
    # removes it, and pip still lists the other
    python = tf221_venv(clean_env / "venv")
    site = site_packages(python)
    install_fake(site, "tensorflow-cpu", "2.21.0")
    record = site / "tensorflow_cpu-2.21.0.dist-info" / "RECORD"
    record.write_text(record.read_text() + "tensorflow/__init__.py,,\n")
    (site / "tensorflow" / "python").mkdir()
    (site / "tensorflow" / "python" / "__init__.py").write_text("")  # tensorflow's alone
    record = site / "tensorflow-2.21.0.dist-info" / "RECORD"
    record.write_text(record.read_text() + "tensorflow/python/__init__.py,,\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "uninstall", "-y", "-q",
         "tensorflow-cpu"],
        check=True, capture_output=True,
    )  # fmt: skip
    assert (site / "tensorflow-2.21.0.dist-info").is_dir()
    assert not (site / "tensorflow" / "__init__.py").exists()
    assert (site / "tensorflow" / "python").is_dir()  # a namespace package now
    cause, fix = first(doctor(run_cli, python, "--cwd", str(clean_env)))
    assert cause == "tf_install_broken"
    assert (
        fix
        == f'{python} -m ensurepip && {python} -m pip install --force-reinstall --no-deps "tensorflow==2.21.0"'
    )
    # the folder gone altogether: the same
    shutil.rmtree(site / "tensorflow")
    assert first(doctor(run_cli, python, "--cwd", str(clean_env)))[0] == "tf_install_broken"


@pytest.mark.slow
def test_protobuf_older_than_tensorflow_declares(run_cli: Any, clean_env: Path) -> None:
    python = tf221_venv(clean_env / "venv")
    site = site_packages(python)
    shutil.rmtree(site / "protobuf-6.31.1.dist-info")
    install_fake(site, "protobuf", "5.29.6")
    data = doctor(run_cli, python, "--cwd", str(clean_env))
    cause, fix = first(data)
    assert cause == "protobuf_incompatible"
    assert "protobuf 5.29.6" in data["first_fix"]["summary"]
    assert fix == f'{python} -m ensurepip && {python} -m pip install "protobuf<8.0.0,>=6.31.1"'
    assert_pip_resolves(fix, "protobuf", lambda v: int(v.split(".")[0]) >= 6)


def test_numpy_2_under_a_numpy_1_build(run_cli: Any, clean_env: Path) -> None:
    python = make_venv(clean_env / "venv", base_python())
    site = site_packages(python)
    install_fake(
        site,
        "tensorflow",
        "2.15.1",
        "Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.15.1\nRequires-Dist: numpy (<2.0.0,>=1.23.5)",
    )
    install_fake(site, "numpy", "2.0.2")
    cause, fix = first(doctor(run_cli, python, "--cwd", str(clean_env)))
    assert cause == "numpy_incompatible"
    assert fix == f'{python} -m ensurepip && {python} -m pip install "numpy<2.0.0,>=1.23.5"'


@pytest.mark.slow
def test_tensorflow_in_the_user_site_gets_user_installs(
    run_cli: Any, clean_env: Path, monkeypatch: Any
) -> None:
    python = base_python()
    user_base = clean_env / "userbase"
    monkeypatch.setenv("PYTHONUSERBASE", str(user_base))
    install_fake(user_site_of(python, user_base), "tensorflow", "2.15.1")
    data = doctor(run_cli, Path(python), "--cwd", str(clean_env))
    tf = next(d for d in data["findings"] if d["check"] == "tf_install")
    assert tf["status"] in ("ok", "warn", "fail")
    fixes = [f["fix"] for f in data["findings"] if f["fix"] and "pip install" in f["fix"]]
    assert fixes, data["findings"]
    assert all(" install --user " in f for f in fixes), fixes


@pytest.mark.slow
def test_a_user_site_tensorflow_seen_from_a_venv_is_replaced_inside_the_venv(
    run_cli: Any, clean_env: Path, monkeypatch: Any
) -> None:
    """A venv with --system-site-packages sees the user site, but its own site-packages come
    first: pip refuses --user there when it would lose to them, and the venv's pip does not
    uninstall what lies in the user site. The fix installs into the venv and has the base
    interpreter (named by the venv) uninstall the user-site distribution."""
    base = base_python()
    user_base = clean_env / "userbase"
    monkeypatch.setenv("PYTHONUSERBASE", str(user_base))
    env = {**os.environ, "PYTHONUSERBASE": str(user_base)}
    user_site = user_site_of(base, user_base)
    info = install_tensorflow_cpu(user_site, "2.17.1")
    venv = clean_env / "venv"
    subprocess.run(
        [base, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True
    )
    python = venv / "bin" / "python"
    data = doctor(run_cli, python, "--cwd", str(clean_env))
    fixes = [
        f["fix"] for f in data["findings"] if "uninstall -y tensorflow-cpu" in (f["fix"] or "")
    ]
    assert fixes, data["findings"]
    fix = fixes[0]
    assert "--user" not in fix, fix
    uninstall, install = fix.split(" && ", 1)
    assert uninstall.endswith(" -m pip uninstall -y tensorflow-cpu"), fix
    assert uninstall.split()[0] != str(python)
    assert install.startswith(f"{python} -m pip install "), fix
    # the venv's own pip leaves the user site alone (and exits 0): why the base runs it
    own = subprocess.run(
        [str(python), "-m", "pip", "uninstall", "-y", "tensorflow-cpu"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert "outside environment" in own.stdout + own.stderr
    assert info.is_dir()
    subprocess.run(["bash", "-c", uninstall], check=True, env=env)  # as printed, pasted
    assert not info.exists()
    assert not (user_site / "tensorflow").exists()


@pytest.mark.slow
def test_another_environments_tensorflow_through_a_pth_file_is_set_aside(
    run_cli: Any, clean_env: Path
) -> None:
    """A .pth file puts another venv's site-packages (tensorflow-cpu) behind this venv's own
    TensorFlow: two distributions, in different folders. This venv's pip cannot uninstall the
    other's; the fix sets the .pth file aside, and this venv's own TensorFlow is what remains."""
    other = make_venv(clean_env / "other")
    install_tensorflow_cpu(site_packages(other), "2.16.2")
    python = tf221_venv(clean_env / "env")
    pth = site_packages(python) / "_other_env.pth"
    pth.write_text(f"{site_packages(other)}\n")
    data = doctor(run_cli, python, "--cwd", str(clean_env))
    tf = next(f for f in data["findings"] if f["check"] == "tf_install")
    assert tf["cause"] == "multiple_tf_distributions", tf
    assert "different folders" in tf["details"]
    assert "same `tensorflow` package" not in tf["details"]
    # the file set aside, then this environment's own TensorFlow again: pip makes its
    # requirements whole without the other folder (here they all are: it changes nothing)
    assert tf["fix"].startswith(f"mv {pth} {pth}.disabled && "), tf["fix"]
    assert f'{python} -m pip install "tensorflow==2.21.0"  # ' in tf["fix"]
    subprocess.run(["bash", "-c", tf["fix"]], check=True)  # as printed, pasted
    after = doctor(run_cli, python, "--cwd", str(clean_env))
    tf = next(f for f in after["findings"] if f["check"] == "tf_install")
    assert tf["cause"] != "multiple_tf_distributions", tf
    assert "tensorflow 2.21.0" in tf["summary"] + tf["details"], tf


def test_what_tensorflow_took_from_the_other_environment_is_installed_once_it_is_set_aside(
    run_cli: Any, clean_env: Path
) -> None:
    """TensorFlow installed into a venv whose .pth file already reached another environment:
    pip took Keras from there (generated environment 6 of seed 18: setting the .pth file aside
    alone left TensorFlow 2.21 without Keras, keras_mismatch). The fix installs this
    environment's own TensorFlow again once the file is aside: pip adds what only that folder
    had."""
    other = make_venv(clean_env / "other")
    install_tensorflow_cpu(site_packages(other), "2.17.1")
    python = tf221_venv(clean_env / "env")
    site = site_packages(python)
    for path in (site / "keras", site / "keras-3.15.1.dist-info"):
        shutil.move(str(path), str(site_packages(other) / path.name))
    pth = site / "_other_env.pth"
    pth.write_text(f"{site_packages(other)}\n")
    data = doctor(run_cli, python, "--cwd", str(clean_env))
    tf = next(f for f in data["findings"] if f["check"] == "tf_install")
    assert tf["cause"] == "multiple_tf_distributions", tf
    aside, rest = tf["fix"].split(" && ", 1)
    assert aside == f"mv {pth} {pth}.disabled", tf["fix"]
    # (these venvs are made without pip: the environment's own ensurepip comes first)
    assert f'{python} -m pip install "tensorflow==2.21.0"  # ' in rest, tf["fix"]
    assert "keras came from there too" in rest, tf["fix"]


@pytest.mark.slow
def test_a_cpu_only_build_left_once_the_other_environment_is_set_aside_is_replaced(
    run_cli: Any, clean_env: Path
) -> None:
    """The other environment (through a .pth file) holds tensorflow, this one tensorflow-cpu
    (generated environment 0 of seed 21: setting the file aside and installing tensorflow-cpu
    again left tf_cpu_only_build). What remains once the file is aside has no GPU support: the
    fix replaces it with the GPU build in the same command."""
    other = make_venv(clean_env / "other")
    install_tf221(site_packages(other))
    python = make_venv(clean_env / "env", base_python())
    site = site_packages(python)
    install_tensorflow_cpu(site, "2.21.0")
    pth = site / "_other_env.pth"
    pth.write_text(f"{site_packages(other)}\n")
    data = doctor(run_cli, python, "--cwd", str(clean_env))
    tf = next(f for f in data["findings"] if f["check"] == "tf_install")
    assert tf["cause"] == "multiple_tf_distributions", tf
    # (a venv made without pip: its ensurepip before the first pip, the uninstall)
    assert tf["fix"].split(" && ") == [
        f"mv {pth} {pth}.disabled",
        f"{python} -m ensurepip",
        f"{python} -m pip uninstall -y tensorflow-cpu",
        f'{python} -m pip install "tensorflow[and-cuda]==2.21.*"',
    ], tf["fix"]
    install = tf["fix"].split(" && ")[-1]
    # pasted up to the install (which downloads): the file aside, tensorflow-cpu gone
    before_install = tf["fix"].split(f" && {install}")[0]
    subprocess.run(["bash", "-c", before_install], check=True)
    assert not pth.exists()
    assert not (site / "tensorflow").exists()
    after = doctor(run_cli, python, "--cwd", str(clean_env))
    tf = next(f for f in after["findings"] if f["check"] == "tf_install")
    assert tf["cause"] == "tf_not_installed", tf


@pytest.mark.slow
def test_python_36_upgrades_its_pip_first(run_cli: Any, clean_env: Path) -> None:
    python36 = pyenv_python("3.6")
    venv = clean_env / "py36"
    subprocess.run([python36, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    cause, fix = first(doctor(run_cli, python, "--cwd", str(clean_env)))
    assert cause == "tf_not_installed"
    assert fix.startswith(f'{python} -m pip install --upgrade "pip<22" && ')
    assert '"tensorflow==2.6.*"' in fix  # the newest release for Python 3.6
    # the printed upgrade, run as printed, gives a pip that sees that release
    upgrade = fix.split(" && ")[0]
    done = subprocess.run(upgrade, shell=True, capture_output=True, text=True, check=False)
    if done.returncode != 0 and "No matching distribution" in done.stderr + done.stdout:
        pytest.skip("the package index did not answer")
    assert done.returncode == 0, done.stderr[-2000:]
    listed = subprocess.run(
        [str(python), "-m", "pip", "index", "versions", "tensorflow"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "2.6.2" in listed.stdout, listed.stdout + listed.stderr


def test_an_interpreter_that_is_not_python_gets_no_pip_fix(run_cli: Any, clean_env: Path) -> None:
    result = run_cli(["doctor", "--no-tf", "--json", "--python", "/bin/true"])
    data = result.json()
    assert data["first_fix"]["cause"] == "python_unusable"
    assert not any("-m pip" in (f["fix"] or "") for f in data["findings"])


@pytest.mark.slow
def test_a_venv_whose_base_python_is_gone(run_cli: Any, clean_env: Path) -> None:
    base = Path(sys.base_prefix)
    copy = clean_env / "base"
    shutil.copytree(base, copy, symlinks=True)
    exe = next(p for p in (copy / "bin").glob("python3.*") if p.name[-1].isdigit())
    venv = clean_env / "venv"
    subprocess.run([str(exe), "-m", "venv", "--without-pip", str(venv)], check=True)
    shutil.rmtree(copy)
    result = run_cli(["doctor", "--no-tf", "--json", "--python", str(venv / "bin" / "python")])
    data = result.json()
    assert result.exit_code == 1
    fix = data["first_fix"]
    assert fix["cause"] == "python_unusable"
    assert "broken virtual environment" in fix["summary"]
    assert fix["fix"].startswith(f"python3 -m venv --clear {venv}")


def assert_pip_resolves(fix: str, name: str, accept: Any) -> None:
    """Run the fix's pip install with pip's own resolver (--dry-run --report, no deps): it must
    pick a version of ``name`` that ``accept`` takes. Skipped where the index does not answer."""
    import shlex

    words = shlex.split(fix.split("#", maxsplit=1)[0])
    requirement = words[-1]
    report = subprocess.run(
        [
            sys.executable, "-m", "pip", "install", "--quiet", "--dry-run", "--no-deps",
            "--ignore-installed", "--report", "-", requirement,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )  # fmt: skip
    if report.returncode != 0:
        if "No matching distribution" in report.stderr or "Could not" in report.stderr:
            pytest.skip(f"the package index did not answer: {report.stderr[-300:]}")
        raise AssertionError(report.stderr[-2000:])
    chosen = json.loads(report.stdout)["install"][0]["metadata"]
    assert chosen["name"].lower() == name
    assert accept(chosen["version"]), chosen["version"]


def test_re_run_hints_keep_the_python_that_chose_the_target() -> None:
    import dataclasses

    from tests.conftest import scenario
    from tf_gpucheck.installer import commands

    snapshot = scenario("two-a100")
    chosen = dataclasses.replace(
        snapshot,
        target=dataclasses.replace(
            snapshot.target, python_executable="/srv/my env/bin/python", chosen_by="python_flag"
        ),
    )
    assert commands.rerun(chosen, "doctor", "--timeout", "600") == (
        "gpucheck doctor --python '/srv/my env/bin/python' --timeout 600"
    )
    active = dataclasses.replace(
        snapshot, target=dataclasses.replace(snapshot.target, chosen_by="virtual_env")
    )
    assert commands.rerun(active, "doctor", "--verbose") == "gpucheck doctor --verbose"


def test_bench_names_doctors_first_cause_for_a_cpu_only_build() -> None:
    from tests.conftest import scenario
    from tf_gpucheck import bench

    reason = bench.gpu_unavailable_reason(scenario("tf-cpu-build"))
    assert reason is not None
    assert "[tf_cpu_only_build]" in reason
    assert "no NVIDIA driver" not in reason.split("[")[0]
    assert bench.gpu_unavailable_reason(scenario("two-a100")) is None


BIG_LIBRARY = r"""
static volatile char data[4 << 20] = {1};
__attribute__((constructor)) static void touch(void) { data[sizeof(data) - 1] += data[0]; }
"""


def test_a_truncated_tensorflow_library_gets_a_reinstall(
    run_cli: Any, clean_env: Path, tmp_path: Path
) -> None:
    # A real library of 4 MiB of data, cut in half as an interrupted download leaves it: the
    # import of the package that loads it dies with SIGBUS.
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the library")
    python = make_venv(clean_env / "venv", base_python())
    site = site_packages(python)
    install_fake(site, "tensorflow", "2.15.1")
    source = tmp_path / "big.c"
    source.write_text(BIG_LIBRARY)
    library = site / "tensorflow" / "libtensorflow_framework.so.2"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    with open(library, "r+b") as handle:
        handle.truncate(library.stat().st_size // 2)
    (site / "tensorflow" / "__init__.py").write_text(
        "import ctypes, os\nctypes.CDLL(os.path.join(os.path.dirname(__file__), "
        "'libtensorflow_framework.so.2'))\n"
    )
    result = run_cli(
        ["doctor", "--json", "--allow-cpu", "--python", str(python), "--timeout", "60"]
    )
    data = result.json()
    tf_import = next(f for f in data["findings"] if f["check"] == "tf_import")
    assert tf_import["cause"] == "tf_crashed", tf_import
    assert "SIGBUS" in tf_import["summary"] + tf_import["details"]
    assert tf_import["fix"] == (
        f"{python} -m ensurepip && {python} -m pip install --force-reinstall --no-deps "
        '"tensorflow==2.15.1"'
        "  # a truncated or corrupt file of the install"
    )


@pytest.mark.parametrize("version", ["2.7", "3.11"])
def test_a_package_is_found_as_its_init_on_every_python(tmp_path: Path, version: str) -> None:
    # Python 2.7's imp gives a package's folder, 3.x's import system its __init__.py: the probe
    # reports both as the __init__, so an installed package is never taken for an emptied one
    python = pyenv_python(version)
    site = tmp_path / "site"
    (site / "tensorflow").mkdir(parents=True)
    (site / "tensorflow" / "__init__.py").write_text("")
    children = ROOT / "src" / "tf_gpucheck" / "_children"
    code = (
        f"import sys; sys.path.insert(0, {str(children)!r}); import interpreter_probe as p; "
        f"print(p._find('tensorflow', [{str(site)!r}]))"
    )
    found = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == str(site / "tensorflow" / "__init__.py")


def test_finding_a_module_leaves_this_process_import_system_alone(tmp_path: Path) -> None:
    # doctor probes its own interpreter in-process while a thread imports the matrix's YAML
    # reader: a sys.path swapped for the user's path meanwhile made that import fail at random
    # ("No module named 'yaml'", seen on a real run); a module already imported here is looked
    # for on the user's path, not taken from sys.modules
    from tf_gpucheck._children import interpreter_probe

    site = tmp_path / "site"
    (site / "tensorflow").mkdir(parents=True)
    (site / "tensorflow" / "__init__.py").write_text("")
    seen: list[list[str]] = []

    class Watcher:
        def find_spec(self, name: str, path: object, target: object = None) -> None:
            seen.append(list(sys.path))

    before = list(sys.path)
    watcher = Watcher()
    sys.meta_path.insert(0, watcher)
    try:
        found = interpreter_probe._find("tensorflow", [str(site)])
        assert interpreter_probe._find("pytest", [str(site)]) is None  # imported, not there
    finally:
        sys.meta_path.remove(watcher)
    assert found == str(site / "tensorflow" / "__init__.py")
    assert seen
    assert all(path == before for path in seen)
    assert sys.path == before
