"""The system, interpreter and packages probes."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.probes.test_user_import import METADATA, install_fake
from tests.test_target import make_venv, site_packages
from tf_gpucheck._children import script
from tf_gpucheck._process import run_child
from tf_gpucheck.probes.interpreter import (
    InterpreterFacts,
    RawDistribution,
    _facts,
    probe_interpreter,
)
from tf_gpucheck.probes.packages import classify
from tf_gpucheck.probes.system import probe_system
from tf_gpucheck.snapshot import ENV_VARS, ImportsInfo, ModuleOrigin
from tf_gpucheck.target import Target

FACTS = InterpreterFacts("3.11.7", "/venv/bin/python", ())


def _root(tmp_path: Path, cpuinfo: str, os_release: str = "", version: str = "") -> Path:
    (tmp_path / "proc").mkdir()
    (tmp_path / "etc").mkdir()
    (tmp_path / "proc/cpuinfo").write_text(cpuinfo)
    (tmp_path / "proc/version").write_text(version)
    (tmp_path / "etc/os-release").write_text(os_release)
    return tmp_path


def test_system_reads_cpu_os_and_environment(tmp_path: Path) -> None:
    root = _root(
        tmp_path,
        "processor\t: 0\nmodel name\t: AMD EPYC 7763 64-Core Processor\nflags\t\t: fpu sse4_2 avx avx2 fma\n",
        'NAME="Ubuntu"\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n',
        "Linux version 6.5.0-1017-azure",
    )
    env = {
        "CUDA_VISIBLE_DEVICES": "0,1",
        "XLA_FLAGS": "--xla_gpu_cuda_data_dir=/usr/local/cuda",
        "HOME": "/root",
    }
    info = probe_system(FACTS, env, root)
    assert info.cpu_model == "AMD EPYC 7763 64-Core Processor"
    assert info.cpu_features == ("sse4_2", "avx", "avx2", "fma")
    assert info.os_pretty_name == "Ubuntu 22.04.4 LTS"
    assert info.python_version == "3.11.7"
    assert info.env["CUDA_VISIBLE_DEVICES"] == "0,1"
    assert info.env["TF_CONFIG"] is None
    assert set(info.env) == set(ENV_VARS)
    assert "HOME" not in info.env


def test_wsl2_is_recognised_from_the_kernel(tmp_path: Path) -> None:
    root = _root(
        tmp_path, "", version="Linux version 5.15.153.1-microsoft-standard-WSL2 (root@1a2b3c)"
    )
    assert probe_system(FACTS, {}, root).is_wsl is True


def test_not_wsl_on_a_plain_kernel(tmp_path: Path) -> None:
    root = _root(tmp_path, "", version="Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075)")
    info = probe_system(FACTS, {}, root)
    assert info.is_wsl is (
        "microsoft" in info.os_release.lower() or "wsl" in info.os_release.lower()
    )


def test_classify_sorts_tensorflow_keras_and_nvidia_wheels() -> None:
    facts = InterpreterFacts(
        "3.11.7",
        "/venv/bin/python",
        (
            RawDistribution("keras", "3.5.0", None, None),
            RawDistribution("nvidia-cudnn-cu12", "9.3.0.75", None, ("/x/libcudnn.so.9",)),
            RawDistribution("nvidia-ml-py", "12.560.30", None, ()),
            RawDistribution(
                "tensorflow",
                "2.17.0",
                (
                    'nvidia-cudnn-cu12==9.3.0.75; extra == "and-cuda"',
                    "numpy<2.0.0,>=1.26.0",
                    'tensorboard; extra == "x"',
                ),
                None,
            ),
            RawDistribution("tensorflow-cpu", "2.17.0", (), None),
            RawDistribution("tensorflow-estimator", "2.15.0", (), None),
            RawDistribution("tf-keras", "2.17.0", None, None),
        ),
    )
    packages = classify(facts)
    assert [(d.name, d.version) for d in packages.tensorflow] == [
        ("tensorflow", "2.17.0"),
        ("tensorflow-cpu", "2.17.0"),
    ]
    assert [d.name for d in packages.nvidia] == ["nvidia-cudnn-cu12"]
    assert packages.and_cuda_requirements == ("nvidia-cudnn-cu12==9.3.0.75",)
    assert packages.keras == "3.5.0"
    assert packages.tf_keras == "2.17.0"


def test_keras_nightly_is_the_keras_installed_where_a_file_of_the_users_hides_its_module() -> None:
    """benchmarks/runs/seed134.json env 40: ``pip install tf-nightly`` (it brings keras-nightly),
    and a ``keras.py`` in the working folder. The module imported is that file, no
    distribution's; the Keras installed is keras-nightly's all the same (the shadow is the
    shadowing check's), not "none"."""
    facts = InterpreterFacts(
        "3.11.7",
        "/venv/bin/python",
        (
            RawDistribution("keras-nightly", "3.16.0.dev2026102704", (), None),
            RawDistribution("tf-nightly", "2.23.0.dev20261026", (), None),
        ),
        imports=ImportsInfo(
            cwd="/work",
            modules=(
                ModuleOrigin("keras", "/work/keras.py", "cwd", distribution=False, owners=()),
            ),
        ),
    )
    packages = classify(facts)
    assert packages.keras == "3.16.0.dev2026102704"
    assert packages.keras_distribution == "keras-nightly"


def test_interpreter_child_reports_what_the_in_process_reader_does() -> None:
    in_process = probe_interpreter(None)
    result = run_child([sys.executable, script("interpreter_probe")], timeout_s=60)
    assert result.returncode == 0, result.stderr
    child = _facts(json.loads(result.stdout), in_process.python_executable)
    assert child == in_process
    assert any(d.name == "pytest" for d in child.distributions)


def test_interpreter_that_does_not_exist_is_data(tmp_path: Path) -> None:
    facts = probe_interpreter(Target(str(tmp_path / "python9"), "python_flag"))
    assert facts.error is not None
    assert "cannot run" in facts.error
    assert classify(facts).error == facts.error


def test_interpreter_that_fails_is_data(tmp_path: Path) -> None:
    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho 'python: bad magic number' >&2\nexit 3\n")
    broken.chmod(0o755)
    facts = probe_interpreter(Target(str(broken), "python_flag"))
    assert facts.error is not None
    assert "exited with status 3" in facts.error
    assert "bad magic number" in facts.error


def test_a_background_child_runs_at_a_lower_priority_than_its_parent() -> None:
    """The installer's questions run beside TensorFlow's import at a lower priority: the child
    reads its own niceness after the parent has lowered it (it waits for the parent's word)."""

    code = "import os, sys; sys.stdin.read(); print(os.nice(0))"
    plain = run_child([sys.executable, "-c", code], timeout_s=30, stdin="")
    lowered = run_child([sys.executable, "-c", code], timeout_s=30, stdin="", background=True)
    assert plain.returncode == 0
    assert lowered.returncode == 0
    assert int(plain.stdout) == os.nice(0)
    assert int(lowered.stdout) == min(os.nice(0) + 10, 19)


def test_two_records_of_one_name_in_a_folder_read_as_importlib_metadata_reads_them(
    tmp_path: Path,
) -> None:
    """``pip install --target DIR --upgrade`` leaves the old .dist-info beside the new one (a
    real recipe: tf-keras 2.17.0 upgraded tensorflow 2.21.0 to 2.17.1 there). Which record wins
    is the folder's own order, as importlib.metadata and pip read it, not the names' sort order:
    the probe says the version the target's own importlib.metadata says."""

    for first, second in (("2.21.0", "2.17.1"), ("2.17.1", "2.21.0")):
        folder = tmp_path / f"pkgs-{first}"
        for version in (first, second):
            info = folder / f"tensorflow-{version}.dist-info"
            info.mkdir(parents=True)
            (info / "METADATA").write_text(
                f"Metadata-Version: 2.1\nName: tensorflow\nVersion: {version}\n"
            )
        env = {**os.environ, "PYTHONPATH": str(folder)}
        truth = run_child(
            [
                sys.executable,
                "-c",
                "import importlib.metadata as m; print(m.version('tensorflow'))",
            ],
            timeout_s=60,
            env=env,
        ).stdout.strip()
        result = run_child([sys.executable, script("interpreter_probe")], timeout_s=60, env=env)
        assert result.returncode == 0, result.stderr
        records = [
            d for d in json.loads(result.stdout)["distributions"] if d["name"] == "tensorflow"
        ]
        said = [d["version"] for d in records]
        assert said == [truth], (os.listdir(folder), said, truth)
        # the other record is said: which one an installer reads is the installer's own choice
        # (pip's pkg_resources backend, pip < 22.3 or Python < 3.11, takes the highest version)
        assert records[0]["twins"] == [second if truth == first else first]


def test_with_two_records_of_a_name_the_installer_itself_is_asked() -> None:
    """Generated environment (benchmarks/claims.py seed 25, env 101): two tensorflow and two
    keras records in one --target folder; pip 21.3.1 read the higher versions, the folder's order
    gave the lower ones, and the computed check named requirements pip's own did not."""
    from tf_gpucheck.probes.installer import computable
    from tf_gpucheck.probes.interpreter import InterpreterFacts, RawDistribution

    def facts(twins: tuple[str, ...]) -> InterpreterFacts:
        return InterpreterFacts(
            python_version="3.11.7",
            python_executable=sys.executable,
            distributions=(RawDistribution("tensorflow", "2.21.0", (), None, twins=twins),),
            markers={"python_version": "3.11"},
        )

    assert computable(facts(()))
    assert not computable(facts(("2.15.1",)))


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


def test_the_probes_imports_are_read_as_the_snapshot_reads_them() -> None:
    """The child's ``imports`` section is decoded by the snapshot's own codec: a real probe of
    this interpreter gives every module it follows; a section of the wrong shape is one error
    line, not a guess."""
    from tf_gpucheck.probes import interpreter

    facts = interpreter.probe_interpreter()
    assert facts.imports is not None
    assert facts.imports.error is None
    assert {m.name for m in facts.imports.modules} >= {"tensorflow", "keras", "numpy"}
    broken = interpreter._imports({"cwd": None, "modules": [{"name": "numpy", "origin": 3}]})
    assert broken is not None
    assert broken.modules == ()
    assert broken.error is not None
    assert "modules[0].origin" in broken.error
