"""Observed, not inferred: each statement doctor makes rests on an observation in the target's
own setting, and each install fix is asked of the target's own installer. Real environments,
real installers, real shared libraries built here with the real toolchain and loaded by the
real dynamic loader."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import first_environment_fix
from tests.fix.test_fix import real_install, venv_with_pip, versions
from tests.probes.test_user_import import (
    METADATA,
    install_fake,
    install_tensorflow_cpu,
    install_tf221,
)
from tests.test_loose_ends import uv_venv
from tests.test_target import make_venv, site_packages

pytestmark = pytest.mark.slow


def doctor(python: Path, *args: str, cwd: Path | None = None, **env: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "tf_gpucheck", "doctor", "--no-tf", "--json", "--python",
         str(python), *args],
        capture_output=True, text=True, check=False, cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", **env},
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def checks(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["check"]: f for f in data["findings"]}


def _venv_with_tensorflow_cpu(tmp_path: Path) -> Path:
    """A venv with pip and tensorflow-cpu 2.21.0's dist-info (TensorFlow 2.21's real METADATA):
    doctor's first fix installs the GPU build."""
    python = venv_with_pip(tmp_path / "venv")
    install_fake(site_packages(python), "tensorflow-cpu", "2.21.0",
                 (METADATA / "tensorflow-2.21.0.METADATA").read_text()
                 .replace("Name: tensorflow", "Name: tensorflow-cpu"))  # fmt: skip
    return python


# --- where a module comes from ---------------------------------------------------------------


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


def test_this_environments_own_module_is_said_so(tmp_path: Path) -> None:
    env = make_venv(tmp_path / "env")
    install_fake(site_packages(env), "tensorflow", "2.21.0")
    found = checks(doctor(env, "--proof-budget", "0", cwd=tmp_path))["user_import"]
    assert "this environment's TensorFlow" in found["summary"]
    assert found["observed"][0]["in_target"] is True


# --- the installer's own policy ----------------------------------------------------------


def _externally_managed_python() -> str | None:
    if not glob.glob("/usr/lib/python3*/EXTERNALLY-MANAGED"):
        return None
    return shutil.which("python3", path="/usr/bin")


def test_an_installer_that_refuses_the_target_gets_a_fresh_environment(tmp_path: Path) -> None:
    python = _externally_managed_python()
    if python is None:
        pytest.skip("no Python marked externally managed (PEP 668) on this machine")
    data = doctor(Path(python), "--proof-budget", "0", cwd=tmp_path, HOME=str(tmp_path))
    fix = first_environment_fix(data)["fix"]
    assert " -m venv " in fix, fix
    assert "externally-managed-environment" in fix  # the installer's own words, said on the line
    assert not fix.startswith(f"{python} -m pip install")


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
    fix = data["first_fix"]["fix"]
    assert data["first_fix"]["cause"] == "tf_cpu_only_build", data["first_fix"]
    assert fix.startswith(f"{python} -m venv "), fix
    assert "pip uninstall" not in fix, fix


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


# --- what is unmet, and which side changes -----------------------------------------------


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


# --- which library the loader takes ------------------------------------------------------

CUDNN_STUB = """
#include <stddef.h>
size_t cudnnGetVersion(void) { return VERSION; }
"""


def _shared(path: Path, soname: str, source: str, *flags: str) -> None:
    c = path.with_suffix(".c")
    c.write_text(source)
    subprocess.run(
        ["gcc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", *flags, "-o", str(path), str(c)],
        check=True,
    )


def test_the_library_the_loader_takes_not_the_first_file_by_name(tmp_path: Path) -> None:
    """cuDNN 8 and cuDNN 9 share one folder (nvidia-cudnn-cu11 and -cu12 both installed); a
    TensorFlow 2.21 (cuDNN 9) finds it through its RUNPATH. The check reads the file the loader
    takes for libcudnn.so.9, and the version that file's own cudnnGetVersion reports."""
    if shutil.which("gcc") is None:
        pytest.skip("no C compiler here")
    python = make_venv(tmp_path / "venv")
    site = site_packages(python)
    install_fake(site, "tensorflow", "2.21.0",
                 (METADATA / "tensorflow-2.21.0.METADATA").read_text())  # fmt: skip
    lib = site / "nvidia" / "cudnn" / "lib"
    lib.mkdir(parents=True)
    _shared(lib / "libcudnn.so.8", "libcudnn.so.8", CUDNN_STUB.replace("VERSION", "8907"))
    _shared(lib / "libcudnn.so.9", "libcudnn.so.9", CUDNN_STUB.replace("VERSION", "90300"))
    _shared(
        site / "tensorflow" / "libtensorflow_framework.so.2",
        "libtensorflow_framework.so.2",
        "int tf_stub(void) { return 0; }\n",
        "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../nvidia/cudnn/lib",
    )
    for pip_dist, name in (
        ("nvidia-cudnn-cu11", "libcudnn.so.8"),
        ("nvidia-cudnn-cu12", "libcudnn.so.9"),
    ):
        info = site / f"{pip_dist.replace('-', '_')}-0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {pip_dist}\nVersion: 0\n\n")
        (info / "RECORD").write_text(f"nvidia/cudnn/lib/{name},,\n")
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path)
    found = checks(data)["cudnn"]
    observed = found["observed"][0]
    assert observed["soname"] == "libcudnn.so.9"
    assert observed["path"] == str(lib / "libcudnn.so.9")
    assert observed["via"] == "runpath"
    assert observed["version"] == "9.3.0"
    assert found["status"] == "ok", found
    # the oracle: the dynamic loader itself, with the requester's RUNPATH
    probe = tmp_path / "probe.c"
    probe.write_text(
        "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <link.h>\n#include <stdio.h>\n"
        'int main(void){void*h=dlopen("libcudnn.so.9",RTLD_NOW);struct link_map*m;'
        "if(!h||dlinfo(h,RTLD_DI_LINKMAP,&m))return 1;puts(m->l_name);return 0;}\n"
    )
    exe = tmp_path / "probe"
    subprocess.run(
        ["gcc", str(probe), "-o", str(exe), "-ldl",
         f"-Wl,--enable-new-dtags,-rpath,{lib}"], check=True,
    )  # fmt: skip
    loaded = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.strip()
    assert os.path.realpath(loaded) == os.path.realpath(observed["path"])


# --- an installer that cannot run is not an installer that refused ------------------------


def _tiny_wheel(folder: Path) -> None:
    import base64
    import hashlib
    import zipfile

    info = "tiny_pkg-1.0.dist-info"
    files = {
        "tiny_pkg/__init__.py": b"",
        f"{info}/METADATA": b"Metadata-Version: 2.1\nName: tiny-pkg\nVersion: 1.0\n",
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    record = "".join(
        f"{name},sha256="
        f"{base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},"
        f"{len(data)}\n"
        for name, data in files.items()
    )
    files[f"{info}/RECORD"] = f"{record}{info}/RECORD,,\n".encode()
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / "tiny_pkg-1.0-py3-none-any.whl", "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)


def test_an_installer_that_cannot_write_is_not_proven_rather_than_refused(tmp_path: Path) -> None:
    """A real pip whose files may not grow past 1 KiB (as on a full disk): its dry run fails
    with pip's own OSError line. That is the machine, not an answer about the command: the fix
    stays, not proven, with pip's line; never "the installer refused it"."""
    from tf_gpucheck.installer.operations import read_command
    from tf_gpucheck.installer.proof import prove

    python = venv_with_pip(tmp_path / "venv")
    _tiny_wheel(tmp_path / "wheels")
    limited = tmp_path / "limited-python"
    limited.write_text(f'#!/bin/bash\ntrap "" XFSZ\nulimit -f 1\nexec "{python}" "$@"\n')
    limited.chmod(0o755)
    environ = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path / "wheels")}
    operations, _, why = read_command(f'{limited} -m pip install "tiny-pkg==1.0"')
    assert not why
    assert len(operations) == 1
    pip = versions(python)["pip"]

    proof = prove(operations[0], str(limited), {}, pip, environ=environ, cwd=str(tmp_path))
    assert proof.status == "not_proven", proof
    assert "the installer could not run here" in proof.reason
    assert "OSError" in proof.reason
    assert "Errno 27" in proof.reason

    # the same command, the same pip, without the limit: accepted (the command was never at fault;
    # a command is proven with the interpreter it names)
    unlimited, _, why = read_command(f'{python} -m pip install "tiny-pkg==1.0"')
    assert not why
    free = prove(unlimited[0], str(python), {}, pip, environ=environ, cwd=str(tmp_path))
    assert free.status == "proven", free
    assert free.changes == {"tiny-pkg": (None, "1.0")}


def test_a_pip_set_to_no_index_gets_fixes_that_lift_it_for_one_command(tmp_path: Path) -> None:
    """A user's pip.conf says ``no-index = true``: every install from the index fails with
    "from versions: none", however right the requirement. doctor reads pip's own ``pip config
    debug`` in the user's setting, says where the setting is, and prints each install with
    ``PIP_NO_INDEX=0``; the real installer refuses the plain command and accepts that one."""
    from tf_gpucheck.installer.operations import read_command
    from tf_gpucheck.installer.proof import prove

    python = _venv_with_tensorflow_cpu(tmp_path)
    home = tmp_path / "home"
    config = home / ".config" / "pip" / "pip.conf"
    config.parent.mkdir(parents=True)
    config.write_text("[global]\nno-index = true\n")
    # no find-links either (pip skips an empty variable): nothing local could satisfy an install
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, HOME=str(home), PIP_FIND_LINKS="")
    installs = [f["fix"] for f in data["findings"] if f["fix"] and "pip install" in f["fix"]]
    assert installs, data["findings"]
    for fix in installs:
        for part in fix.split("  #")[0].split(" && "):
            assert ("pip install" in part) == part.startswith("PIP_NO_INDEX=0 "), fix
        assert f"no-index = true in {config}" in fix, fix  # where it is set, said on the line

    # the installer's own answer, with the user's config, against a package index (a local one)
    index = tmp_path / "simple"
    _tiny_wheel(index / "tiny-pkg")
    (index / "tiny-pkg" / "index.html").write_text(
        '<a href="tiny_pkg-1.0-py3-none-any.whl">tiny_pkg-1.0-py3-none-any.whl</a>'
    )
    environ = {**os.environ, "HOME": str(home), "PIP_INDEX_URL": index.as_uri()}
    environ.pop("PIP_NO_INDEX", None)
    environ.pop("PIP_FIND_LINKS", None)
    environ.pop("PIP_CONFIG_FILE", None)
    pip = versions(python)["pip"]
    plain, _, _ = read_command(f'{python} -m pip install "tiny-pkg==1.0"')
    lifted, _, why = read_command(f'PIP_NO_INDEX=0 {python} -m pip install "tiny-pkg==1.0"')
    assert not why
    assert lifted[0].environ == (("PIP_NO_INDEX", "0"),)
    refused = prove(plain[0], str(python), {}, pip, environ=environ, cwd=str(tmp_path))
    assert refused.status == "refused", refused
    assert "from versions: none" in refused.reason or "No matching" in refused.reason
    proven = prove(lifted[0], str(python), {}, pip, environ=environ, cwd=str(tmp_path))
    assert proven.status == "proven", proven
    assert proven.changes == {"tiny-pkg": (None, "1.0")}


def test_pip_config_debug_is_read_in_pips_own_order() -> None:
    """The listing ``pip config debug`` prints (pip 23.2, this machine): a variable beats every
    file, ``[install]`` beats ``[global]``, a later file beats an earlier one, false is off."""
    from tf_gpucheck.probes.installer import read_config_debug

    listing = (
        "env_var:\n  PIP_CERT='/etc/ssl/certs/ca-certificates.crt'\n"
        "env:\n"
        "global:\n  /etc/xdg/pip/pip.conf, exists: True\n    global.no-index: true\n"
        "  /etc/pip.conf, exists: False\n"
        "site:\n  /venv/pip.conf, exists: False\n"
        "user:\n  /home/u/.pip/pip.conf, exists: False\n"
        "  /home/u/.config/pip/pip.conf, exists: True\n    install.no-index: false\n"
    )
    assert read_config_debug(listing) is None  # the user's [install] false beats the global true
    assert (
        read_config_debug(listing.replace("install.no-index: false", "global.no_index: yes"))
        == "no-index = yes in /home/u/.config/pip/pip.conf"
    )
    assert read_config_debug(listing.replace("    install.no-index: false\n", "")) == (
        "no-index = true in /etc/xdg/pip/pip.conf"
    )
    assert read_config_debug(listing.replace("env_var:\n", "env_var:\n  PIP_NO_INDEX='1'\n")) == (
        "PIP_NO_INDEX=1"
    )


def test_pip_config_debug_settings_keep_files_and_variables_apart() -> None:
    """Every setting pip reads for install, from the listing ``pip config debug`` prints (pip
    23.2, this machine): the files' value (a later file over an earlier, ``[install]`` over
    ``[global]``, a value of several lines joined as pip splits a list) and, apart, the
    variable; an empty variable and ``PIP_CONFIG_FILE`` are not settings."""
    from tf_gpucheck.probes.installer import config_settings
    from tf_gpucheck.snapshot import InstallerSetting

    listing = (
        "env_var:\n  PIP_CONFIG_FILE='/home/u/more.conf'\n  PIP_TARGET=''\n"
        "  PIP_INDEX_URL='https://mirror.example/simple'\n"
        "env:\n  /home/u/more.conf, exists: True\n    install.prefix: /opt/p\n"
        "global:\n  /etc/pip.conf, exists: True\n    global.target: /srv/a\n"
        "    global.extra-index-url: \n    https://one.example/simple\n"
        "    https://two.example/simple\n"
        "site:\n  /venv/pip.conf, exists: False\n"
        "user:\n  /home/u/.config/pip/pip.conf, exists: True\n    install.target: /srv/b\n"
        "    global.index-url: https://files.example/simple\n"
    )
    found = set(config_settings(listing))
    assert found == {
        InstallerSetting("target", "/srv/b", "/home/u/.config/pip/pip.conf"),
        InstallerSetting("prefix", "/opt/p", "/home/u/more.conf"),
        InstallerSetting(
            "extra-index-url", "https://one.example/simple https://two.example/simple",
            "/etc/pip.conf",
        ),
        InstallerSetting("index-url", "https://files.example/simple",
                         "/home/u/.config/pip/pip.conf"),
        InstallerSetting("index-url", "https://mirror.example/simple", "PIP_INDEX_URL"),
    }  # fmt: skip


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

    python = _venv_with_tensorflow_cpu(tmp_path)
    home = tmp_path / "home"
    config = home / ".config" / "pip" / "pip.conf"
    config.parent.mkdir(parents=True)
    folder = tmp_path / "pip-target"
    wheels = tmp_path / "wheels"
    _tiny_wheel(wheels)
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


def test_a_prefix_variable_of_the_users_is_emptied_for_each_install(tmp_path: Path) -> None:
    """``PIP_PREFIX=FOLDER`` in the user's shell: each install is printed with ``PIP_PREFIX=``
    (pip skips an empty variable) and no config file set aside (none sets it); the real pip
    installs the printed way into the environment, the plain way under the folder."""

    python = _venv_with_tensorflow_cpu(tmp_path)
    folder = tmp_path / "prefix"
    wheels = tmp_path / "wheels"
    _tiny_wheel(wheels)
    user = {"HOME": str(tmp_path), "PIP_PREFIX": str(folder), "PIP_FIND_LINKS": str(wheels),
            "PIP_NO_INDEX": "1"}  # fmt: skip
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, **user)
    fix = data["first_fix"]["fix"]
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
    from tf_gpucheck.installer.operations import read_command

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
    words = intent.shell("mv a b", note="then pip install c")
    assert writer.write(words, snapshot) == "mv a b  # then pip install c"
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


def test_uv_set_offline_gets_installs_that_lift_it_for_one_command(tmp_path: Path) -> None:
    """A uv environment whose user has UV_OFFLINE=1: uv's own resolved settings (`uv pip
    install --show-settings`) say it is offline; each printed `uv pip install` carries
    UV_OFFLINE=0, which the real uv takes as going online for that install."""
    from tf_gpucheck.installer.operations import read_command
    from tf_gpucheck.installer.proof import prove

    python = uv_venv(tmp_path / "uvenv")
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, UV_OFFLINE="1")
    fix = first_environment_fix(data)["fix"]
    assert fix.startswith(f"UV_OFFLINE=0 uv pip install --python {python} "), fix
    assert "your uv is set not to use the package index (UV_OFFLINE=1)" in fix, fix

    # uv's own answer against an index that is not there: offline, it does not even try
    environ = {**os.environ, "UV_OFFLINE": "1", "UV_INDEX_URL": "http://127.0.0.1:9/simple"}
    environ["UV_CACHE_DIR"] = str(tmp_path / "uv-cache")
    plain, _, _ = read_command(f'uv pip install --python {python} "tiny-pkg==1.0"')
    lifted, _, why = read_command(f'UV_OFFLINE=0 uv pip install --python {python} "tiny-pkg==1.0"')
    assert not why
    assert lifted[0].environ == (("UV_OFFLINE", "0"),)
    offline = prove(plain[0], str(python), {}, None, 60, environ=environ, cwd=str(tmp_path))
    online = prove(lifted[0], str(python), {}, None, 60, environ=environ, cwd=str(tmp_path))
    assert offline.status != "proven", offline
    assert online.status != "proven", online
    assert "offline" in offline.reason.lower() or "disabled" in offline.reason.lower(), offline
    assert "offline" not in online.reason.lower(), online
    assert "disabled" not in online.reason.lower(), online


def test_a_no_index_pip_with_a_wheelhouse_of_its_own_keeps_it(tmp_path: Path) -> None:
    """no-index beside a find-links folder is a wheelhouse the user chose (an offline machine):
    where it holds what the install names, the install is printed as it is, the setting and
    how to lift it said on the line; where it holds none of it, pip would refuse the install
    as printed (seen pasted: "Could not find a version that satisfies the requirement"), so the
    install is printed with the setting lifted for it, and why."""
    from tf_gpucheck.installer.operations import read_command
    from tf_gpucheck.installer.proof import prove

    python = _venv_with_tensorflow_cpu(tmp_path)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    # only the names are read: pip reads a find-links folder's wheels by their file names
    (wheels / "tensorflow-2.21.0-cp311-cp311-manylinux_2_27_x86_64.whl").write_bytes(b"")
    (wheels / "numpy-2.3.5.tar.gz").write_bytes(b"")
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, HOME=str(tmp_path),
                  PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels))  # fmt: skip
    fix = data["first_fix"]["fix"]
    assert "PIP_NO_INDEX=0 " not in fix.split("  #")[0], fix
    assert f"(PIP_NO_INDEX=1): it looks only in {wheels}" in fix, fix

    empty = tmp_path / "empty-wheels"
    empty.mkdir()
    (empty / "numpy-2.3.5.tar.gz").write_bytes(b"")
    data = doctor(python, "--proof-budget", "0", cwd=tmp_path, HOME=str(tmp_path),
                  PIP_NO_INDEX="1", PIP_FIND_LINKS=str(empty))  # fmt: skip
    fix = data["first_fix"]["fix"]
    code = fix.split("  #")[0]
    for part in code.split(" && "):
        assert ("pip install" in part) == part.startswith("PIP_NO_INDEX=0 "), fix
    assert f"(PIP_NO_INDEX=1): {empty} holds no tensorflow; PIP_NO_INDEX=0 before" in fix, fix
    # the real pip, in that setting, refuses the install as it would have been printed
    install = next(p for p in code.split(" && ") if "pip install" in p)
    plain, _, why = read_command(install.removeprefix("PIP_NO_INDEX=0 "))
    assert not why
    environ = {**os.environ, "HOME": str(tmp_path), "PIP_NO_INDEX": "1"}
    environ["PIP_FIND_LINKS"] = str(empty)
    pip = versions(python)["pip"]
    refused = prove(plain[0], str(python), {}, pip, environ=environ, cwd=str(tmp_path))
    assert refused.status == "refused", refused
    assert "from versions: none" in refused.reason or "No matching" in refused.reason


def test_a_dry_run_stopped_at_the_deadline_leaves_nothing_in_tmp(tmp_path: Path) -> None:
    """pip unpacks what it downloads into pip-unpack-* under TMPDIR, and a dry run stopped at
    the proof's deadline cannot clean up: the proof gives pip a TMPDIR of its own and removes it.
    Here an installer that writes there and never answers stands in for a stalled download."""
    from tf_gpucheck.installer.operations import read_command
    from tf_gpucheck.installer.proof import prove

    seen = tmp_path / "tmpdir-seen"
    stalled = tmp_path / "stalled-python"
    stalled.write_text(
        "#!/bin/bash\n"
        f'echo "$TMPDIR" > "{seen}"\n'
        'mkdir -p "$TMPDIR/pip-unpack-stalled" && head -c 100000 /dev/zero '
        '> "$TMPDIR/pip-unpack-stalled/part.whl"\n'
        "exec sleep 60\n"
    )
    stalled.chmod(0o755)
    operations, _, why = read_command(f'{stalled} -m pip install "tiny-pkg==1.0"')
    assert not why
    proof = prove(operations[0], str(stalled), {}, "25.2", 3, environ=dict(os.environ))
    assert proof.status == "not_proven", proof  # no answer is no refusal
    assert "had not answered in 3 s" in proof.reason
    used = Path(seen.read_text().strip())
    assert used.name.startswith("gpucheck-fix-"), used
    assert not used.exists()  # the partial download went with it


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


def test_a_wheelhouse_is_read_by_its_file_names(tmp_path: Path) -> None:
    from tf_gpucheck.probes.installer import wheelhouse_projects

    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for name in ("TensorFlow-2.21.0-cp311-cp311-manylinux_2_27_x86_64.whl",
                 "ml_dtypes-0.5.4.tar.gz", "README.txt"):  # fmt: skip
        (wheels / name).write_bytes(b"")
    # a relative folder is the user's folder's; a folder that is not there adds nothing
    found = wheelhouse_projects(("wheels", str(tmp_path / "absent")), str(tmp_path))
    assert found == ("ml-dtypes", "tensorflow")
    assert wheelhouse_projects((f"file://{wheels}",), None) == ("ml-dtypes", "tensorflow")
    # what is not read is unknown, never "empty": a URL, a page, a name pip may read otherwise
    assert wheelhouse_projects(("https://example.org/wheels/",), None) is None
    (tmp_path / "page.html").write_text("<a href='x-1.0.tar.gz'>x</a>")
    assert wheelhouse_projects((str(tmp_path / "page.html"),), None) is None
    (wheels / "not-a-wheel.whl").write_bytes(b"")
    assert wheelhouse_projects((str(wheels),), None) is None


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
    _tiny_wheel(tmp_path / "wheels")
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
