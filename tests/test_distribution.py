"""The distribution installs as itself, and lives beside the unrelated ``gpucheck`` on PyPI.

PyPI's ``gpucheck`` (0.1.0, "pytest for GPU kernels") ships a top-level ``gpucheck`` import
package, a ``pytest11`` entry point named ``gpucheck`` and a ``gpu`` marker. This project is the
``tf-gpucheck`` distribution: import package ``tf_gpucheck``, the ``gpucheck`` command, pytest
plugin ``tf_gpucheck`` with the marker ``tf_gpu``. This test installs both into one real venv
from the package index and checks that each works and neither overwrites the other.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OTHER = "gpucheck==0.1.0"


def test_the_names_are_ours() -> None:
    points = importlib.metadata.distribution("tf-gpucheck").entry_points
    assert {(p.group, p.name, p.value) for p in points} == {
        ("console_scripts", "gpucheck", "tf_gpucheck.cli:run"),
        ("pytest11", "tf_gpucheck", "tf_gpucheck.pytest_plugin"),
    }
    assert not (ROOT / "src" / "gpucheck").exists()


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["NO_COLOR"] = "1"
    return subprocess.run(
        list(args), capture_output=True, text=True, check=False, cwd=cwd, env=env, timeout=600
    )


TESTS = """
import pytest

@pytest.mark.tf_gpu
def test_ours():
    pass

@pytest.mark.gpu
def test_theirs():
    pass
"""


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with this project (built from the checkout) and PyPI's gpucheck 0.1.0."""
    home = tmp_path_factory.mktemp("both")
    venv.EnvBuilder(with_pip=True).create(home / "venv")
    python = home / "venv" / "bin" / "python"
    result = run(str(python), "-m", "pip", "install", "--quiet", str(ROOT), OTHER)
    if result.returncode != 0 and "No matching distribution" in result.stderr:
        pytest.skip(f"the package index has no {OTHER}: {result.stderr.strip()[-300:]}")
    assert result.returncode == 0, result.stderr[-3000:]
    return home


@pytest.mark.slow
def test_both_installed_each_works(both: Path) -> None:
    python = str(both / "venv" / "bin" / "python")
    # the command is ours
    version = run(str(both / "venv" / "bin" / "gpucheck"), "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("gpucheck "), version.stdout
    assert run(python, "-m", "tf_gpucheck", "--help").returncode == 0
    # each import package is its own distribution's
    where = run(
        python,
        "-c",
        "import gpucheck, tf_gpucheck, importlib.metadata as m;"
        "print(gpucheck.__file__); print(tf_gpucheck.__file__);"
        "print(sorted({str(f).split('/')[0] for f in m.files('tf-gpucheck')}))",
    )
    assert where.returncode == 0, where.stderr
    theirs, ours, top_level = where.stdout.splitlines()
    assert "/site-packages/gpucheck/" in theirs
    assert "/site-packages/tf_gpucheck/" in ours
    assert "gpucheck" not in eval(top_level)  # none of our files is in their package's folder


@pytest.mark.slow
def test_both_pytest_plugins_load_and_keep_their_markers(both: Path) -> None:
    python = str(both / "venv" / "bin" / "python")
    (both / "test_markers.py").write_text(TESTS)
    markers = run(python, "-m", "pytest", "--markers", cwd=both)
    assert markers.returncode == 0, markers.stderr
    assert "@pytest.mark.tf_gpu: needs a GPU that TensorFlow can use" in markers.stdout
    assert "@pytest.mark.multi_gpu" in markers.stdout  # their plugin loaded too
    result = run(python, "-m", "pytest", "-rs", "-p", "no:cacheprovider", cwd=both)
    # no GPU here: ours skips with doctor's reason, theirs with its own
    assert "2 skipped" in result.stdout, result.stdout[-3000:]
    assert "no usable GPU: " in result.stdout
    assert "no GPU available" in result.stdout
    strict = run(python, "-m", "pytest", "-rs", "--require-gpu", "-p", "no:cacheprovider", cwd=both)
    assert strict.returncode == 1
    summary = strict.stdout.strip().splitlines()[-1]
    assert "1 skipped" in summary, strict.stdout[-3000:]
    assert "1 error" in summary, strict.stdout[-3000:]
    assert "--require-gpu: no usable GPU" in strict.stdout


@pytest.mark.slow
def test_removing_the_other_one_leaves_ours_whole(both: Path) -> None:
    python = str(both / "venv" / "bin" / "python")
    other = OTHER.split("==", maxsplit=1)[0]
    removed = run(python, "-m", "pip", "uninstall", "--yes", "--quiet", other)
    assert removed.returncode == 0, removed.stderr
    assert run(python, "-m", "pip", "check").returncode == 0
    assert run(str(both / "venv" / "bin" / "gpucheck"), "--version").returncode == 0
    assert run(python, "-c", "import tf_gpucheck.checks.registry").returncode == 0


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout")
def test_python_dash_m_keeps_working() -> None:
    result = run(sys.executable, "-m", "tf_gpucheck", "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("gpucheck ")
