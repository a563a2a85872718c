"""`gpucheck fix` on real virtual environments with real pip: plan, proof, apply, undo, rollback.

Each environment is a real venv with its own pip. TensorFlow itself is a package folder and its
dist-info, as pip leaves them (real metadata where it matters, tests/data/metadata); NumPy,
Keras and the rest that fix installs are real wheels from the package index (pip's cache and
the local wheelhouse keep it fast). Each test asserts doctor's cause before, the cause gone
after, and that nothing else in the environment changed (the distribution list's diff).
Steps that would download TensorFlow or the CUDA wheels (gigabytes) are proven with pip's
resolver and not applied.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.probes.test_user_import import METADATA, install_fake
from tests.test_target import pyenv_python, site_packages
from tf_gpucheck.checks.findings import Status
from tf_gpucheck.fix.environment import read_environment
from tf_gpucheck.fix.plan import read_step

pytestmark = pytest.mark.slow


def venv_with_pip(where: Path, python: str | None = None) -> Path:
    base = python or shutil.which("python3.11") or sys.executable
    subprocess.run([base, "-m", "venv", str(where)], check=True, capture_output=True)
    return where / "bin" / "python"


def real_install(python: Path, *requirements: str) -> None:
    result = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", *requirements],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        pytest.skip(f"the package index did not answer: {result.stderr[-300:]}")


def versions(python: Path) -> dict[str, str]:
    return read_environment(str(python)).versions()


def tf_requiring(site: Path, version: str, numpy: str) -> None:
    install_fake(
        site,
        "tensorflow",
        version,
        f"Metadata-Version: 2.1\nName: tensorflow\nVersion: {version}\nRequires-Dist: numpy ({numpy})",
    )


def numpy_1_build(site: Path, tf: str = "2.15.1", declared: str = "<2.0.0,>=1.23.5") -> None:
    """A TensorFlow built for NumPy 1 (its metadata declaring ``numpy (declared)``) and its Keras."""
    tf_requiring(site, tf, declared)
    install_fake(site, "keras", f"{tf.rsplit('.', 1)[0]}.0")


def numpy2_venv(where: Path, tf: str = "2.15.1", declared: str = "<2.0.0,>=1.23.5") -> Path:
    """A venv with pip and NumPy 2.0.2 really installed, under :func:`numpy_1_build`."""
    python = venv_with_pip(where)
    real_install(python, "numpy==2.0.2")
    numpy_1_build(site_packages(python), tf, declared)
    return python


def uv_numpy2_venv(where: Path) -> Path | None:
    """The same made by uv (a venv without pip); None where uv is not installed."""
    uv = shutil.which("uv")
    if uv is None:
        return None
    subprocess.run(
        [uv, "venv", "--python", sys.executable, str(where)], check=True, capture_output=True
    )
    python = where / "bin" / "python"
    subprocess.run(
        [uv, "pip", "install", "--python", str(python), "numpy==2.0.2"],
        check=True,
        capture_output=True,
    )
    numpy_1_build(site_packages(python))
    return python


TF221_REQUIREMENTS = (
    ("absl-py", "2.3.1"), ("astunparse", "1.6.3"), ("flatbuffers", "25.9.23"),
    ("gast", "0.6.0"), ("google-pasta", "0.2.0"), ("libclang", "18.1.1"),
    ("opt-einsum", "3.4.0"), ("packaging", "25.0"), ("protobuf", "6.31.1"),
    ("requests", "2.32.5"), ("six", "1.17.0"), ("termcolor", "3.1.0"),
    ("typing-extensions", "4.15.0"), ("wrapt", "1.17.3"), ("grpcio", "1.75.0"),
    ("numpy", "2.3.3"), ("h5py", "3.14.0"), ("ml-dtypes", "0.5.3"), ("rich", "14.1.0"),
    ("namex", "0.1.0"), ("optree", "0.17.0"),
)  # fmt: skip
"""What TensorFlow 2.21.0's and Keras 3.15.1's metadata require, at versions that satisfy it."""


def tf221_with_pip(where: Path, *extra: tuple[str, str]) -> Path:
    """A venv with pip, TensorFlow 2.21.0 as its real metadata declares it, what it requires
    (:data:`TF221_REQUIREMENTS`) and ``extra`` (name, version) distributions."""
    python = venv_with_pip(where)
    site = site_packages(python)
    install_fake(
        site, "tensorflow", "2.21.0", (METADATA / "tensorflow-2.21.0.METADATA").read_text()
    )
    for name, version in (*TF221_REQUIREMENTS, *extra):
        install_fake(site, name, version)
    return python


CUPTI_OFF_PIN = (
    ("keras", "3.15.1"),
    ("nvidia-cublas-cu12", "12.5.3.2"), ("nvidia-cuda-cupti-cu12", "12.4.127"),
    ("nvidia-cuda-nvcc-cu12", "12.5.82"), ("nvidia-cuda-nvrtc-cu12", "12.5.82"),
    ("nvidia-cuda-runtime-cu12", "12.5.82"), ("nvidia-cudnn-cu12", "9.3.0.75"),
    ("nvidia-cufft-cu12", "11.2.3.61"), ("nvidia-curand-cu12", "10.3.6.82"),
    ("nvidia-cusolver-cu12", "11.6.3.83"), ("nvidia-cusparse-cu12", "12.5.1.3"),
    ("nvidia-nccl-cu12", "2.27.7"), ("nvidia-nvjitlink-cu12", "12.5.82"),
)  # fmt: skip
"""TF 2.21's and-cuda wheels at versions that meet its pins, but CUPTI, 12.4 where 2.21 pins 12.5."""


def test_no_terminal_and_no_yes_changes_nothing(run_cli: Any, state: Path) -> None:
    python = venv_with_pip(state / "venv")
    site = site_packages(python)
    tf_requiring(site, "2.15.1", ">=1.23.5")  # and no Keras: one step
    before = versions(python)
    result = run_cli(["fix", "--no-tf", "--allow-cpu", "--python", str(python)])
    assert result.exit_code == 1
    assert "no terminal to ask: nothing changed" in result.stderr
    assert 'pip install "keras~=2.15.0"' in result.stdout  # the plan was shown
    assert versions(python) == before


@pytest.fixture
def state(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Journals under the test's folder; none of the machine's Keras or Python variables."""
    for name in ("PYTHONPATH", "KERAS_BACKEND", "TF_USE_LEGACY_KERAS", "VIRTUAL_ENV"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras-home"))
    monkeypatch.setenv("GPUCHECK_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    return tmp_path


def fix(
    run_cli: Any, python: Path, *args: str, allow_cpu: bool = True
) -> tuple[int, dict[str, Any]]:
    cpu = ["--allow-cpu"] if allow_cpu else []
    where = ["--python", str(python), "--cwd", str(python.parent)]
    result = run_cli(["fix", "--no-tf", *cpu, "--json", *where, *args])
    assert result.exit_code in (0, 1, 130), result.stderr
    return result.exit_code, result.json()


def doctor_causes(run_cli: Any, python: Path, *, allow_cpu: bool = True) -> list[str]:
    cpu = ["--allow-cpu"] if allow_cpu else []
    where = ["--python", str(python), "--cwd", str(python.parent)]
    result = run_cli(["doctor", "--no-tf", *cpu, "--json", *where])
    return [c["cause"] for c in result.json()["causes"] if c["status"] in ("fail", "warn")]


# --- healing, end to end -----------------------------------------------------------------


def test_numpy_2_under_a_numpy_1_build_is_healed_and_undone(run_cli: Any, state: Path) -> None:
    python = numpy2_venv(state / "venv")
    before = versions(python)
    assert "numpy_incompatible" in doctor_causes(run_cli, python)

    code, plan = fix(run_cli, python, "--dry-run")
    assert code == 1  # the failure is still there: nothing was applied
    step = plan["steps"][0]
    assert step["cause"] == "numpy_incompatible"
    assert step["command"] == f'{python} -m pip install "numpy<2.0.0,>=1.23.5"'
    assert step["proven"] is True
    assert step["proof"]["changes"]["numpy"]["from"] == "2.0.2"
    assert step["proof"]["changes"]["numpy"]["to"].startswith("1.")
    assert versions(python) == before  # --dry-run changed nothing

    code, done = fix(run_cli, python, "--yes")
    assert done["applied"] is True
    assert "numpy_incompatible" in done["causes"]["healed"]
    assert done["causes"]["new"] == []
    after = versions(python)
    assert {k: v for k, v in after.items() if k != "numpy"} == {
        k: v for k, v in before.items() if k != "numpy"
    }
    assert after["numpy"].startswith("1.")
    assert "numpy_incompatible" not in doctor_causes(run_cli, python)
    journal = json.loads(Path(done["journal"]).read_text())
    assert journal["before"] == before
    assert journal["status"] == "applied"

    undone = run_cli(["fix", "--undo", "--yes", "--python", str(python)])
    assert undone.exit_code == 0, undone.stderr
    assert versions(python) == before
    imported = subprocess.run(
        [str(python), "-c", "import numpy; print(numpy.__version__, numpy.ones(3).sum())"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert imported.stdout.split() == ["2.0.2", "3.0"]  # the restored files work


def test_tf_210_with_numpy_2(run_cli: Any, state: Path) -> None:
    # TF 2.10 declares no upper bound, yet needs NumPy 1
    python = numpy2_venv(state / "venv", "2.10.1", ">=1.20")
    before = versions(python)
    assert "numpy_incompatible" in doctor_causes(run_cli, python)
    _, done = fix(run_cli, python, "--yes")
    assert "numpy_incompatible" in done["causes"]["healed"]
    after = versions(python)
    assert after["numpy"].startswith("1.")
    assert set(after) == set(before)


def test_keras_2_under_tf_221(run_cli: Any, state: Path) -> None:
    python = tf221_with_pip(state / "venv", ("keras", "2.15.0"))
    before = versions(python)
    causes = doctor_causes(run_cli, python)
    assert causes[0] in ("keras_mismatch", "tf_requirement_unmet"), causes
    _, done = fix(run_cli, python, "--yes")
    assert done["applied"] is True, done
    assert done["causes"]["new"] == []
    after = versions(python)
    assert after["keras"].startswith("3.")
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed == {"keras"}


def test_a_cuda_wheel_off_tensorflows_and_cuda_pin(run_cli: Any, state: Path) -> None:
    """TF 2.21's real and-cuda pins, the nvidia-* wheels (as folders and dist-infos) meeting
    them but CUPTI, too old: fix installs the real CUPTI wheel the pin asks for, nothing else."""
    python = tf221_with_pip(state / "venv", *CUPTI_OFF_PIN)
    before = versions(python)
    causes = doctor_causes(run_cli, python, allow_cpu=False)
    assert "and_cuda_pins_unmet" in causes, causes
    _, done = fix(run_cli, python, "--yes", allow_cpu=False)
    assert done["applied"] is True, done
    assert "and_cuda_pins_unmet" in done["causes"]["healed"], json.dumps(done)
    assert done["causes"]["new"] == []
    after = versions(python)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed == {"nvidia-cuda-cupti-cu12"}
    assert after["nvidia-cuda-cupti-cu12"].startswith("12.")


# --- proven, not applied (TensorFlow or CUDA wheels: gigabytes) -----------------------------


def test_two_tensorflow_distributions_plan(run_cli: Any, state: Path) -> None:
    python = venv_with_pip(state / "venv")
    site = site_packages(python)
    tf_requiring(site, "2.15.1", ">=1.23.5")
    install_fake(site, "tensorflow-cpu", "2.15.1")
    install_fake(site, "keras", "2.15.0")
    before = versions(python)
    _code, plan = fix(run_cli, python, "--dry-run")
    step = plan["steps"][0]
    assert step["cause"] == "multiple_tf_distributions"
    assert step["runs"] is True
    # both share the tensorflow/ folder: both go, then one GPU build comes back
    assert "uninstall -y tensorflow tensorflow-cpu &&" in step["command"]
    assert step["command"].endswith('install "tensorflow[and-cuda]==2.15.*"')
    assert step["proof"]["changes"] == {
        "tensorflow": {"from": "2.15.1", "to": None},
        "tensorflow-cpu": {"from": "2.15.1", "to": None},
    }
    assert versions(python) == before


def test_tensorflow_gpu_plan(run_cli: Any, state: Path) -> None:
    python = venv_with_pip(state / "venv")
    install_fake(site_packages(python), "tensorflow-gpu", "2.10.0")
    _, plan = fix(run_cli, python, "--dry-run")
    step = next(s for s in plan["steps"] if s["runs"])  # the install first, before Keras
    assert step["cause"] == "tensorflow_gpu_deprecated"
    assert step["runs"] is True
    assert "uninstall -y tensorflow-gpu" in step["command"]


def test_tensorflow_missing_in_python_39_gets_220(run_cli: Any, state: Path) -> None:
    python = venv_with_pip(state / "venv", pyenv_python("3.9"))
    _, plan = fix(run_cli, python, "--dry-run")
    step = plan["steps"][0]
    assert step["cause"] == "tf_not_installed"
    assert "2.20" in step["command"]
    if not step["proven"]:
        pytest.skip(f"the package index did not answer: {step['proof']['reason']}")
    assert step["proof"]["changes"]["tensorflow"]["to"].startswith("2.20.")


def test_uv_venv_without_pip(run_cli: Any, state: Path) -> None:
    python = uv_numpy2_venv(state / "uvenv")
    if python is None:
        pytest.skip("uv is not installed")
    assert read_environment(str(python)).pip is None
    _code, done = fix(run_cli, python, "--yes")
    step = done["steps"][0]
    assert step["command"] == f'uv pip install --python {python} "numpy<2.0.0,>=1.23.5"'
    assert "numpy_incompatible" in done["causes"]["healed"]
    assert versions(python)["numpy"].startswith("1.")


# --- nothing lost ------------------------------------------------------------------------


def test_unprovable_plan_changes_nothing(run_cli: Any, state: Path, monkeypatch: Any) -> None:
    python = numpy2_venv(state / "venv")
    before = versions(python)
    # no index reachable: no config file of this machine's, one index that does not answer
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    for name in ("PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX"):
        monkeypatch.delenv(name, raising=False)
    code, done = fix(run_cli, python, "--yes")
    assert code == 1
    assert done["steps"][0]["proven"] is False
    assert done["journal"] is None  # nothing started
    assert versions(python) == before


def corrupt(wheel: Path) -> None:
    """Flip bytes inside one compressed file of a real wheel (a damaged download): pip still
    reads its METADATA, so the plan is proven, and fails when it unpacks that file."""
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        member = max(archive.infolist(), key=lambda i: i.compress_size)
    with wheel.open("r+b") as handle:
        handle.seek(member.header_offset + 26)
        name_length = int.from_bytes(handle.read(2), "little")
        extra_length = int.from_bytes(handle.read(2), "little")
        start = member.header_offset + 30 + name_length + extra_length
        handle.seek(start + member.compress_size // 2)
        handle.write(b"\x00" * 64)


def test_a_failing_later_step_rolls_back_the_earlier_ones(
    run_cli: Any, state: Path, monkeypatch: Any
) -> None:
    """Step 1 (NumPy) is applied from a folder of wheels; step 2 (Keras) fails as pip unpacks a
    damaged wheel: the NumPy already changed is put back from the journal's files, offline."""
    python = venv_with_pip(state / "venv")
    real_install(python, "numpy==2.0.2")
    wheels = state / "wheels"
    got = subprocess.run(
        [str(python), "-m", "pip", "download", "--quiet", "--no-deps", "-d", str(wheels),
         "numpy==1.26.4", "keras==2.15.0"],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    if got.returncode != 0:
        pytest.skip(f"the package index did not answer: {got.stderr[-300:]}")
    corrupt(next(wheels.glob("keras-*.whl")))
    site = site_packages(python)
    tf_requiring(site, "2.15.1", "<2.0.0,>=1.23.5")  # and no Keras: a second step
    before = versions(python)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    code, done = fix(run_cli, python, "--yes")
    assert code == 1, done
    assert [s["proven"] for s in done["steps"]] == [True, True]
    assert done["rolled_back"] is True, done
    assert done["rollback_reason"].startswith("keras_mismatch")
    assert done["not_restored"] == []
    journal = json.loads(Path(done["journal"]).read_text())
    assert [s["status"] for s in journal["steps"]] == ["done", "failed"]
    assert journal["status"] == "restored"
    assert versions(python) == before


@pytest.mark.usefixtures("ctrl_c_reaches_children")
def test_ctrl_c_during_an_install_puts_everything_back(state: Path) -> None:
    python = numpy2_venv(state / "venv")
    site = site_packages(python)
    before = versions(python)
    process = subprocess.Popen(
        [sys.executable, "-m", "tf_gpucheck", "fix", "--no-tf", "--allow-cpu", "--yes",
         "--python", str(python), "--cwd", str(python.parent)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert process.stderr is not None
    seen = []
    deadline = time.monotonic() + 300
    for line in process.stderr:
        seen.append(line)
        if "Successfully uninstalled numpy" in line or "Uninstalling numpy" in line:
            process.send_signal(signal.SIGINT)  # numpy 2.0.2 is gone, 1.26.4 not yet there
            break
        assert time.monotonic() < deadline, "".join(seen)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 130, err + out
    assert versions(python) == before
    imported = subprocess.run(
        [str(python), "-c", "import numpy; print(numpy.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert imported.stdout.strip() == "2.0.2"
    assert not [p.name for p in site.iterdir() if p.name.startswith("~")]  # pip's stash is gone


def test_what_conda_installed_is_left_to_conda(run_cli: Any, state: Path) -> None:
    python = numpy2_venv(state / "venv")
    site = site_packages(python)
    (next(site.glob("numpy-*.dist-info")) / "INSTALLER").write_text("conda\n")
    before = versions(python)
    code, done = fix(run_cli, python, "--yes")
    assert code == 1
    assert done["steps"][0]["proven"] is False
    assert "installed by conda" in done["steps"][0]["proof"]["reason"]
    assert versions(python) == before
    _, plan = fix(run_cli, python, "--dry-run", "--allow-conda")
    assert plan["steps"][0]["proven"] is True


# --- what is never run --------------------------------------------------------------------


@pytest.mark.parametrize(
    "fix_text",
    [
        "sudo ubuntu-drivers install",
        "docker run --gpus all ...",
        "pip check  # lists what TensorFlow requires",
        "pip install -r requirements.txt",
        'python3 -m pip install "tensorflow[and-cuda]"  # a cause\'s words for Linux',
        "choose a GPU runtime: Colab: Runtime > Change runtime type > GPU",
    ],
)
def test_what_fix_leaves_to_the_user(fix_text: str) -> None:
    """A fix in words (a host-side step, a cause's words) is the user's: gpucheck runs only the
    operations it wrote, never a printed line read back into commands."""
    step = read_step("x", Status.FAIL, "", fix_text)
    assert not step.runnable
    assert step.why == "a step in words: gpucheck runs only the fixes it wrote"


def test_package_steps_are_the_operations_the_writer_made() -> None:
    """A fix written from a plan runs the writer's operations, all of them, with its note."""
    from tests.conftest import scenario
    from tf_gpucheck.installer import intent, writer

    snapshot = scenario("real-tf-2.15-py3.11-no-driver")
    python = snapshot.target.python_executable
    assert python
    plan = intent.then(
        intent.uninstall("tensorflow-cpu"),
        intent.install("tensorflow[and-cuda]==2.15.1"),
        note="the GPU build",
    )
    made = writer.written(plan, snapshot)
    step = read_step(
        "multiple_tf_distributions",
        Status.FAIL,
        "",
        made.line,
        made=made,
    )
    assert step.runnable
    assert [o.verb for o in step.operations] == ["uninstall", "install"]
    assert step.operations[1].argv(python)[-1] == "tensorflow[and-cuda]==2.15.1"
    assert step.operations[0].argv(python)[-2:] == ["-y", "tensorflow-cpu"]
    assert step.note == "the GPU build"


def test_externally_managed_python_is_refused(run_cli: Any, state: Path) -> None:
    """Debian's own /usr/bin/python3 carries PEP 668's marker: fix plans nothing for it."""
    system = Path("/usr/bin/python3")
    marker = list(Path("/usr/lib").glob("python3*/EXTERNALLY-MANAGED"))
    if not system.exists() or not marker:
        pytest.skip("no externally managed system Python here")
    before = versions(system)
    result = run_cli(["fix", "--no-tf", "--json", "--yes", "--python", str(system)])
    data = result.json()
    assert result.exit_code == 1
    assert "externally managed (PEP 668)" in data["refused"]
    assert all(not step["runs"] for step in data["steps"])
    assert data["journal"] is None
    assert versions(system) == before
