"""Which module the user's program imports, and where it comes from: a .pth another environment lends, the environment's own, a file of the user's that hides a package, PYTHONPATH."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.fix.test_fix import venv_with_pip
from tests.helpers import checks, doctor
from tests.probes.test_user_import import (
    METADATA,
    install_fake,
    install_tensorflow_cpu,
)
from tests.test_target import make_venv, site_packages


@pytest.mark.slow
def test_a_module_another_environment_lends_through_a_pth_file(tmp_path: Path) -> None:
    """Env B has a .pth file naming env A's site-packages, where TensorFlow is: `import
    tensorflow` in B gets A's, which the report says, with the .pth file, never "this
    environment's"."""
    a = make_venv(tmp_path / "a")
    install_fake(site_packages(a), "tensorflow", "2.21.0")
    b = make_venv(tmp_path / "b")
    pth = site_packages(b) / "shared.pth"
    pth.write_text(f"{site_packages(a)}\n")
    found = checks(doctor(b, "--proof-budget", "0", cwd=tmp_path))["user_import"]
    assert "this environment's" not in found["summary"], found
    assert str(site_packages(a)) in found["summary"]
    assert str(pth) in found["summary"]
    observed = next(o for o in found["observed"] if o["module"] == "tensorflow")
    assert observed["in_target"] is False
    assert observed["added_by"] == "pth"
    # the oracle: the user's own import, in the user's folder
    truth = subprocess.run(
        [str(b), "-c", "import importlib.util; print(importlib.util.find_spec('tensorflow').origin)"],
        capture_output=True, text=True, check=True, cwd=tmp_path,
    ).stdout.strip()  # fmt: skip
    assert os.path.realpath(truth) == os.path.realpath(observed["origin"])


@pytest.mark.slow
def test_a_range_that_pythonpath_lends_from_another_environment_is_fixed_by_that_folder(
    tmp_path: Path,
) -> None:
    """benchmarks/runs/seed135.json env 17: another environment's NumPy 2 comes through
    PYTHONPATH over this environment's own 1.26.4, under a TensorFlow that declares numpy<2.
    Installing NumPy into this environment leaves what the folder shows (the generated run:
    "doctor still reports it afterwards"): the requirement's fix is the folder's, and without
    PYTHONPATH the environment's own NumPy meets the range."""
    other = make_venv(tmp_path / "other")
    install_fake(site_packages(other), "numpy", "2.4.6")
    env = venv_with_pip(tmp_path / "env")
    site = site_packages(env)
    install_fake(site, "tensorflow", "2.16.1", "Metadata-Version: 2.1\nName: tensorflow\n"
                 "Version: 2.16.1\nRequires-Dist: numpy<2.0.0,>=1.23.5")  # fmt: skip
    install_fake(site, "numpy", "1.26.4")
    lent = {"PYTHONPATH": str(site_packages(other))}
    found = checks(doctor(env, "--proof-budget", "0", cwd=tmp_path, **lent))
    requirement = found["tf_requirements"]
    assert requirement["cause"] == "numpy_incompatible"
    assert "but you have numpy 2.4.6" in requirement["summary"]
    assert requirement["fix"].startswith("unset PYTHONPATH"), requirement["fix"]
    assert "pip install" not in requirement["fix"]
    assert "PYTHONPATH lends from another environment's folder" in requirement["details"]
    assert found["user_import"]["cause"] == "pythonpath_foreign"
    # the folder's fix done, the environment's own NumPy is read and meets the range
    assert checks(doctor(env, "--proof-budget", "0", cwd=tmp_path))["tf_requirements"][
        "status"
    ] in ("ok", "info")


@pytest.mark.slow
def test_this_environments_own_module_is_said_so(tmp_path: Path) -> None:
    env = make_venv(tmp_path / "env")
    install_fake(site_packages(env), "tensorflow", "2.21.0")
    found = checks(doctor(env, "--proof-budget", "0", cwd=tmp_path))["user_import"]
    assert "this environment's TensorFlow" in found["summary"]
    assert found["observed"][0]["in_target"] is True


@pytest.mark.slow
def test_pythonpath_taken_away_with_what_only_it_lent_installs_the_environment_s_own(
    tmp_path: Path,
) -> None:
    """TensorFlow 2.21 (its real METADATA) only in another environment that PYTHONPATH names;
    this environment has none (a generated environment: `unset PYTHONPATH` alone left the user
    without TensorFlow), or only tensorflow-cpu (another: it left a CPU-only build). The fix
    takes the folder out and installs this environment's own GPU build."""
    other = make_venv(tmp_path / "other")
    install_fake(site_packages(other), "tensorflow", "2.21.0",
                 (METADATA / "tensorflow-2.21.0.METADATA").read_text())  # fmt: skip
    python = venv_with_pip(tmp_path / "env")
    lent = {"PYTHONPATH": str(site_packages(other))}
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, **lent)
    first = data["first_fix"]
    assert first["cause"] == "pythonpath_foreign"
    assert first["fix"].startswith(
        f'unset PYTHONPATH && {python} -m pip install "tensorflow[and-cuda]==2.21.*"  # '
    ), first["fix"]
    assert first["fix"].endswith("this environment has no tensorflow of its own: install it here")
    alone = subprocess.run(  # what `unset PYTHONPATH` alone leaves
        [str(python), "-c", "import tensorflow"], capture_output=True, text=True, check=False
    )
    assert "No module named 'tensorflow'" in alone.stderr

    # this environment's own is tensorflow-cpu (no GPU support): it is replaced, not left
    install_tensorflow_cpu(site_packages(python), "2.21.0")
    fix = doctor(python, "--proof-budget", "0", cwd=tmp_path, **lent)["first_fix"]["fix"]
    assert fix.startswith(
        f"unset PYTHONPATH && {python} -m pip uninstall -y tensorflow-cpu && "
        f'{python} -m pip install "tensorflow[and-cuda]==2.21.*"  # '
    ), fix
    assert fix.endswith(
        "this environment has only tensorflow-cpu (no GPU support) of its own: install it here"
    )

    # this environment's own is a TensorFlow of the same name, which the folder only hides (a
    # generated environment: TensorFlow 2.16.1 here, 2.21.0 on PYTHONPATH): taking the folder
    # out is the whole fix, and nothing says it has none
    own = venv_with_pip(tmp_path / "own")
    install_fake(site_packages(own), "tensorflow", "2.16.1")
    first = doctor(own, "--proof-budget", "0", cwd=tmp_path, **lent)["first_fix"]
    assert first["cause"] == "pythonpath_foreign"
    assert first["fix"].startswith("unset PYTHONPATH"), first["fix"]
    assert "pip install" not in first["fix"]
    assert "of its own" not in first["fix"]
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    left = subprocess.run(  # what `unset PYTHONPATH` leaves: this environment's own
        [str(own), "-c", "import tensorflow; print(tensorflow.__file__)"],
        capture_output=True, text=True, check=True, env=clean,
    ).stdout  # fmt: skip
    assert str(site_packages(own)) in left
    # a bare tensorflow folder a partial uninstall left (no __init__.py: a namespace package,
    # no TensorFlow) is none of its own: the install stays
    bare = venv_with_pip(tmp_path / "bare")
    (site_packages(bare) / "tensorflow" / "python").mkdir(parents=True)
    first = doctor(bare, "--proof-budget", "0", cwd=tmp_path, **lent)["first_fix"]
    assert first["fix"].endswith("this environment has no tensorflow of its own: install it here")


@pytest.mark.slow
def test_every_file_of_the_users_own_that_hides_a_package_is_renamed_by_one_fix(
    tmp_path: Path,
) -> None:
    """A tensorflow.py and a keras/ folder in the user's folder: one fix renames both (fixing
    one at a time left the next one for another run), and afterwards nothing is shadowed."""
    python = venv_with_pip(tmp_path / "venv")
    work = tmp_path / "work"
    (work / "keras").mkdir(parents=True)
    (work / "keras" / "__init__.py").write_text("")
    (work / "tensorflow.py").write_text("")
    data = doctor(python, "--proof-budget", "0", cwd=work)
    shadowed = [f for f in data["findings"] if f["cause"] == "module_shadowed"]
    assert shadowed, data["findings"]
    fix = shadowed[0]["fix"]
    assert f"mv {work / 'tensorflow.py'} {work / 'tensorflow_renamed.py'}" in fix, fix
    assert f"mv {work / 'keras'} {work / 'keras_renamed'}" in fix, fix
    subprocess.run(fix.split("  #")[0], shell=True, check=True, cwd=work)
    again = doctor(python, "--proof-budget", "0", cwd=work)
    assert not [f for f in again["findings"] if f["cause"] == "module_shadowed"], again
