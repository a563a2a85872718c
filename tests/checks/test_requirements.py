"""Requirements as pip states them: unmet ones, a companion moved past TensorFlow's range, two TensorFlows, an import error's requirement, and the one install that meets them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fix.test_fix import real_install, venv_with_pip
from tests.helpers import checks, doctor
from tests.probes.test_user_import import (
    METADATA,
    install_fake,
    install_tensorflow_cpu,
    install_tf221,
)
from tests.test_target import site_packages


@pytest.mark.slow
def test_an_unmet_requirement_is_stated_as_pip_check_states_it(tmp_path: Path) -> None:
    """TensorFlow 2.21's real metadata, NumPy 1.24 installed (older than it allows): pip check's
    own line is the statement, and the fix upgrades NumPy, the stale side."""
    python = venv_with_pip(tmp_path / "venv")
    real_install(python, "numpy==1.24.4")
    install_fake(site_packages(python), "tensorflow", "2.21.0",
                 (METADATA / "tensorflow-2.21.0.METADATA").read_text())  # fmt: skip
    found = checks(doctor(python, "--proof-budget", "0", cwd=tmp_path))["tf_requirements"]
    truth = subprocess.run(
        [str(python), "-m", "pip", "check"], capture_output=True, text=True, check=False
    ).stdout
    numpy = next(o for o in found["observed"] if o["name"] == "numpy")
    line = next(line for line in truth.splitlines() if "numpy" in line)
    assert numpy["requirement"] in line
    assert numpy["have"] == "1.24.4"
    assert "numpy 1.24.4" in found["details"]
    assert f'{python} -m pip install "numpy>=1.26.0"' in found["fix"]


@pytest.mark.slow
def test_a_newer_package_the_user_installed_last_goes_back_in_tensorflows_range(
    tmp_path: Path,
) -> None:
    """NumPy 2 installed after a TensorFlow 2.15 that declares numpy<2, nothing else needing
    it: the smallest change is NumPy back in 2.15's range (one distribution; TensorFlow stays),
    and the other way, TensorFlow moved to a release whose own metadata accepts NumPy 2.1 (the
    oldest: 2.19), is named and is the fallback."""
    python = venv_with_pip(tmp_path / "venv")
    install_fake(
        site_packages(python),
        "tensorflow",
        "2.15.1",
        "Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.15.1\n"
        "Requires-Dist: numpy (<2.0.0,>=1.23.5)\n",
    )
    real_install(python, "numpy==2.1.3")  # after TensorFlow: the user's latest choice
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path)
    first = data["first_fix"]
    assert first["cause"] == "numpy_incompatible"
    assert first["fix"] == f'{python} -m pip install "numpy<2.0.0,>=1.23.5"', first["fix"]
    details = checks(data)["tf_requirements"]["details"]
    assert "or keep numpy 2.1.3 by upgrading tensorflow to 2.19.0" in details  # the oldest


@pytest.mark.slow
def test_two_tensorflows_are_replaced_by_a_release_the_installed_keras_fits(tmp_path: Path) -> None:
    """TensorFlow 2.12.1 and tensorflow-cpu 2.16.2 installed at once (their real METADATA), then
    Keras 3.10 (seen in a generated environment: the fix reinstalled 2.12 and pip took Keras
    down to 2.12.0). The release installed in their place is one whose own requirements accept
    what is installed: 2.16 (keras>=3.0.0) where NumPy 1 is there; where Keras brought NumPy 2
    and ml-dtypes 0.6 after both TensorFlows, the oldest newer release that takes them (2.20:
    keras>=3.10.0, numpy>=1.26.0); with the Keras 2.12 that TensorFlow 2.12 brings, 2.12."""
    python = venv_with_pip(tmp_path / "venv")
    site = site_packages(python)
    install_fake(site, "tensorflow", "2.12.1",
                 (METADATA / "tensorflow-2.12.1.METADATA").read_text())  # fmt: skip
    # tensorflow-cpu writes the same `tensorflow` package: its dist-info beside the other's
    cpu = site / "tensorflow_cpu-2.16.2.dist-info"
    cpu.mkdir()
    (cpu / "METADATA").write_text((METADATA / "tensorflow-cpu-2.16.2.METADATA").read_text())
    (cpu / "top_level.txt").write_text("tensorflow\n")
    (cpu / "RECORD").write_text("tensorflow/__init__.py,,\n")
    older = {"numpy": "1.23.5", "protobuf": "4.25.8", "ml-dtypes": "0.3.2", "keras": "3.10.0"}

    def installed(versions: dict[str, str], at: float) -> None:
        for folder in [*site.glob("tensorflow*.dist-info")]:
            os.utime(folder, (1_700_000_000, 1_700_000_000))
        for name, version in versions.items():
            for old in site.glob(f"{name.replace('-', '_')}*"):
                shutil.rmtree(old)
            install_fake(site, name, version)
            os.utime(site / f"{name.replace('-', '_')}-{version}.dist-info", (at, at))

    def fix() -> str:
        found = checks(doctor(python, "--proof-budget", "0", cwd=tmp_path))["tf_install"]
        assert found["cause"] == "multiple_tf_distributions"
        assert "pip uninstall -y tensorflow tensorflow-cpu" in found["fix"], found["fix"]
        return str(found["fix"])

    installed(older, 1_600_000_000)  # before both TensorFlows: 2.16 takes them all
    assert '"tensorflow[and-cuda]==2.16.*"' in fix()
    installed({"numpy": "2.2.6", "ml-dtypes": "0.6.0", "keras": "3.10.0"}, 1_800_000_000)
    assert '"tensorflow[and-cuda]==2.20.*"' in fix()  # after them: TensorFlow is the stale side
    installed({"keras": "2.12.0", "numpy": "1.23.5", "ml-dtypes": "0.3.2"}, 1_800_000_000)
    assert 'pip install "tensorflow==2.12.*"' in fix()  # 2.12 takes all (no and-cuda extra yet)


@pytest.mark.slow
def test_a_requirement_named_by_an_import_error_is_judged_from_who_declares_it(
    tmp_path: Path,
) -> None:
    """TensorFlow 2.15.1 and jax 0.6.2 (their real METADATA; jax installed with --no-deps, as a
    generated environment had it) over the real ml-dtypes 0.3.2 that 2.15.1 brings. TensorFlow's
    import imports jax, whose module reads ``ml_dtypes.float8_e3m4`` (jax/_src/dtypes.py line
    93): Python itself raises "module 'ml_dtypes' has no attribute". The statement is what the
    installer's check says jax requires (ml_dtypes>=0.5.0), never 2.15.0's ``ml-dtypes~=0.2.0``
    said to be what 2.15.1 declares (its own metadata declares ``~=0.3.1``). The two share no
    version, and jax came after TensorFlow: the fix moves TensorFlow to the oldest release whose
    own requirement admits jax's (2.19: ``ml-dtypes<1.0.0,>=0.5.1``) and keeps jax, rather than
    installing an ml-dtypes (and with it a NumPy 2) that breaks 2.15.1."""
    python = venv_with_pip(tmp_path / "venv")
    real_install(python, "ml-dtypes==0.3.2", "numpy==1.26.4")
    site = site_packages(python)
    install_fake(site, "tensorflow", "2.15.1",
                 (METADATA / "tensorflow-2.15.1.METADATA").read_text())  # fmt: skip
    install_fake(site, "jax", "0.6.2", (METADATA / "jax-0.6.2.METADATA").read_text())
    (site / "tensorflow" / "__init__.py").write_text("import jax\n")
    for name, at in (("ml_dtypes-0.3.2", 1_600_000_000), ("tensorflow-2.15.1", 1_700_000_000),
                     ("jax-0.6.2", 1_800_000_000)):  # fmt: skip
        os.utime(site / f"{name}.dist-info", (at, at))
    (site / "jax" / "__init__.py").write_text(
        "import ml_dtypes\nfloat8_e3m4 = ml_dtypes.float8_e3m4\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "tf_gpucheck", "doctor", "--json", "--proof-budget", "0",
         "--python", str(python)],
        capture_output=True, text=True, check=False, cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    data = json.loads(result.stdout)
    assert "module 'ml_dtypes' has no attribute 'float8_e3m4'" in json.dumps(data)
    fixes = [c["fix"] for c in data["causes"] if c["cause"] == "tf_requirement_unmet"]
    assert fixes, data["causes"]
    # as the installer's check writes it (jax declares "ml_dtypes>=0.5.0")
    assert fixes[0].endswith(
        f'{python} -m pip install "tensorflow[and-cuda]==2.19.*" "jax==0.6.2"  '
        "# jax 0.6.2 requires ml_dtypes>=0.5.0"
    ), fixes[0]
    assert "~=0.2.0" not in json.dumps(data)


@pytest.mark.slow
def test_a_major_version_miss_that_tensorflow_was_seen_to_import_with_is_not_a_failure() -> None:
    """pip check: ml-dtypes 0.6.0 requires numpy>=2.0.0, NumPy 1.26.4 installed (a generated
    environment: a later ``--force-reinstall --no-deps numpy==1.26.4``). Where the probe imported
    and started TensorFlow it is a warning, and the missing driver comes first; where the import
    failed, a failure; unprobed, another package's bound is not known to stop TensorFlow (a
    warning), TensorFlow's own (2.15.1's numpy<2 under NumPy 2) is."""
    from dataclasses import replace

    from tests.conftest import scenario
    from tf_gpucheck.checks import Status, run_checks
    from tf_gpucheck.matrix import load_matrix
    from tf_gpucheck.snapshot import InstallerInfo, Snapshot, UnmetRequirement

    line = "ml-dtypes 0.6.0 has requirement numpy>=2.0.0, but you have numpy 1.26.4."
    unmet = UnmetRequirement(line, "ml-dtypes", "0.6.0", "numpy", "numpy>=2.0.0", "1.26.4")
    seen = scenario("real-cpu-only-tf-2.21-no-driver")  # TensorFlow 2.21.0 imported, no driver
    assert seen.tensorflow.version == "2.21.0"
    assert seen.tensorflow.error is None
    seen = replace(
        seen, installer=InstallerInfo("pip", "25.3", check=(unmet,), check_by="pip check")
    )
    report = run_checks(seen, load_matrix())
    found = next(f for f in report.findings if f.check == "tf_requirements")
    assert (found.status, found.cause) == (Status.WARN, "numpy_incompatible")
    assert report.first_fix is not None
    assert report.first_fix.cause != "numpy_incompatible"

    def judged(snapshot: Snapshot) -> Status:
        found = run_checks(snapshot, load_matrix()).findings
        return next(f.status for f in found if f.check == "tf_requirements")

    tf = seen.tensorflow
    assert judged(replace(seen, tensorflow=replace(tf, error="ImportError: numpy"))) is Status.FAIL
    not_probed = replace(seen, tensorflow=replace(tf, probed=False, version=None))
    assert judged(not_probed) is Status.WARN  # ml-dtypes' bound: not known to stop TensorFlow
    own = UnmetRequirement(
        "tensorflow 2.15.1 has requirement numpy<2.0.0,>=1.23.5, but you have numpy 2.1.3.",
        "tensorflow", "2.15.1", "numpy", "numpy<2.0.0,>=1.23.5", "2.1.3",
    )  # fmt: skip
    installer = InstallerInfo("pip", "25.3", check=(own,), check_by="pip check")
    assert judged(replace(not_probed, installer=installer)) is Status.FAIL


@pytest.mark.slow
def test_every_unmet_requirement_the_installer_lists_is_met_by_one_install(tmp_path: Path) -> None:
    """pip check lists two unmet requirements of TensorFlow 2.21 (protobuf too old, ml-dtypes
    missing): a fix of the first alone leaves the second (generated environment 187 of seed
    19). The first fix installs both at once, each as the installer's check states it."""
    python = venv_with_pip(tmp_path / "venv")
    install_tf221(site_packages(python), protobuf="4.25.8", ml_dtypes=None)
    truth = subprocess.run(
        [str(python), "-m", "pip", "check"], capture_output=True, text=True, check=False
    ).stdout
    assert "protobuf" in truth
    assert "ml-dtypes" in truth
    found = checks(doctor(python, "--proof-budget", "0", cwd=tmp_path))["tf_requirements"]
    assert found["cause"] == "protobuf_incompatible", found
    fix = found["fix"]
    assert fix.count(" -m pip install ") == 1, fix
    assert '"protobuf<8.0.0,>=6.31.1"' in fix, fix
    assert '"ml_dtypes<1.0.0,>=0.5.1"' in fix, fix  # as TensorFlow's metadata spells it


def test_a_missing_numpy_is_an_unmet_requirement_not_an_incompatible_numpy() -> None:
    """pip check's line for a requirement that is not there (pip's ``check`` command: "X requires
    Y, which is not installed."; a ``--no-deps`` install lacks them all): the cause is the unmet
    requirement, not "NumPy incompatible", which is a NumPy that is there; a NumPy of the wrong
    major version stays numpy_incompatible."""
    from dataclasses import replace

    from tests.conftest import scenario
    from tf_gpucheck.checks import run_checks
    from tf_gpucheck.matrix import load_matrix
    from tf_gpucheck.snapshot import InstallerInfo, UnmetRequirement

    missing = UnmetRequirement(
        "tensorflow 2.21.0 requires numpy, which is not installed.",
        "tensorflow", "2.21.0", "numpy", None, None,
    )  # fmt: skip
    wrong = UnmetRequirement(
        "tensorflow 2.15.1 has requirement numpy<2.0.0,>=1.23.5, but you have numpy 2.1.3.",
        "tensorflow", "2.15.1", "numpy", "numpy<2.0.0,>=1.23.5", "2.1.3",
    )  # fmt: skip
    seen = scenario("real-cpu-only-tf-2.21-no-driver")

    def cause(unmet: UnmetRequirement) -> str | None:
        installer = InstallerInfo("pip", "25.3", check=(unmet,), check_by="pip check")
        found = run_checks(replace(seen, installer=installer), load_matrix()).findings
        return next(f.cause for f in found if f.check == "tf_requirements")

    assert cause(missing) == "tf_requirement_unmet"
    assert cause(wrong) == "numpy_incompatible"


TF_KERAS_REQUIRES = {
    # each release's one Requires-Dist line, from its wheel's METADATA on PyPI
    # (tf_keras-2.15.1-py3-none-any.whl, tf_keras-2.17.0-py3-none-any.whl)
    "2.15.1": "tensorflow <2.16,>=2.15",
    "2.17.0": "tensorflow <2.18,>=2.17",
}


def _tf_keras(site: Path, version: str) -> None:
    install_fake(site, "tf-keras", version, "Metadata-Version: 2.1\nName: tf_keras\n"
                 f"Version: {version}\nRequires-Dist: {TF_KERAS_REQUIRES[version]}")  # fmt: skip


@pytest.mark.slow
def test_tensorflow_under_another_name_in_the_declared_range_is_met_in_substance(
    tmp_path: Path,
) -> None:
    """tensorflow-cpu 2.17.1 and tf-keras 2.17.0, which declares ``tensorflow<2.18,>=2.17`` by
    name: pip check lists tensorflow as not installed; the modules are there, in range. Nothing
    to install (installing ``tensorflow`` puts a second TensorFlow over the same files)."""
    python = venv_with_pip(tmp_path / "venv")
    site = site_packages(python)
    install_tensorflow_cpu(site, "2.17.1")
    _tf_keras(site, "2.17.0")
    truth = subprocess.run(
        [str(python), "-m", "pip", "check"], capture_output=True, text=True, check=False
    ).stdout
    assert "tf-keras 2.17.0 requires tensorflow, which is not installed." in truth
    found = checks(doctor(python, "--proof-budget", "0", cwd=tmp_path))["tf_requirements"]
    assert found["status"] == "info"
    assert found["cause"] is None
    assert not found["fix"]
    assert "tf-keras 2.17.0 requires tensorflow, which is not installed." in found["summary"]
    assert "tensorflow-cpu 2.17.1 is that TensorFlow under another name" in found["summary"]
    # what is observed is the installer's own line, not the reading of it
    assert [(o["of"], o["name"], o["have"]) for o in found["observed"]] == [
        ("tf-keras", "tensorflow", None)
    ]


@pytest.mark.slow
def test_a_companion_numbered_with_tensorflow_moves_to_the_installed_series(
    tmp_path: Path,
) -> None:
    """tf-keras 2.15.1 installed after TensorFlow 2.17.1: tf-keras follows TensorFlow's numbers
    (it declares the 2.15 series of its own number), so the smallest change is tf-keras of the
    2.17 series, TensorFlow and its Keras staying; with tensorflow-cpu, without dependencies
    (they would bring ``tensorflow`` as a second TensorFlow)."""
    for dist, options in (("tensorflow", ""), ("tensorflow-cpu", "--no-deps ")):
        python = venv_with_pip(tmp_path / dist)
        site = site_packages(python)
        if dist == "tensorflow":
            install_fake(site, "tensorflow", "2.17.1")
        else:
            install_tensorflow_cpu(site, "2.17.1")
        _tf_keras(site, "2.15.1")  # after TensorFlow: the user's latest choice
        found = checks(doctor(python, "--proof-budget", "0", cwd=tmp_path))["tf_requirements"]
        assert found["cause"] == "keras_mismatch"
        assert found["fix"] == f'{python} -m pip install {options}"tf-keras==2.17.*"', found["fix"]
        assert "tf-keras 2.15.1 follows TensorFlow's numbers" in found["details"]
        assert f"{dist} stays" in found["details"]
        assert [(o["name"], o["have"]) for o in found["observed"]] == [
            ("tensorflow", None) if dist == "tensorflow-cpu" else ("tensorflow", "2.17.1")
        ]
    # the other way: tf-keras 2.17.0 over TensorFlow 2.15.1 goes to the 2.15 series (not
    # TensorFlow to 2.17, whose Keras 3 would replace Keras 2)
    python = venv_with_pip(tmp_path / "older")
    site = site_packages(python)
    install_fake(site, "tensorflow", "2.15.1")
    _tf_keras(site, "2.17.0")
    found = checks(doctor(python, "--proof-budget", "0", cwd=tmp_path))["tf_requirements"]
    assert found["fix"] == f'{python} -m pip install "tf-keras==2.15.*"', found["fix"]
    assert "or change tensorflow to tensorflow<2.18,>=2.17" in found["details"]


def test_a_companion_is_numbered_with_tensorflow_only_where_it_declares_its_own_series() -> None:
    from tf_gpucheck.checks import stale
    from tf_gpucheck.snapshot import UnmetRequirement

    def series(requirement: str, of_version: str = "2.15.1", have: str = "2.17.1") -> str | None:
        unmet = UnmetRequirement("", "tf-keras", of_version, "tensorflow", requirement, have)
        return stale._lockstep(unmet, requirement)

    assert series("tensorflow<2.16,>=2.15") == "tf-keras==2.17.*"
    assert series("tensorflow<2.18,>=2.17", "2.17.0", "2.15.1") == "tf-keras==2.15.*"
    assert series("tensorflow==2.15.*") is None  # a wildcard: not read as a series
    assert series("tensorflow>=2.15") is None  # no upper bound: not numbered with it
    assert series("tensorflow<2.16,>=2.15", "3.0.0") is None  # its own number is another
    assert series("tensorflow<2.16,>=2.15", have="2.15.0") is None  # already that series
