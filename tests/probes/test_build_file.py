"""What TensorFlow's installed files say of their build, read without importing them.

``python/platform/build_info.py`` is written when TensorFlow is built; gpucheck reads its
``build_info`` literal (never runs it) from the folder the user's import would load. Where
TensorFlow was not imported (``--no-tf``) or did not import, that file, not the name of a
distribution, says whether the files are a CUDA build: ``pip install -U tensorflow-cpu`` over a
``tensorflow`` install leaves the ``tensorflow`` distribution listed and the CPU build's files in
place (a generated environment of benchmarks/claims.py, seed 25, env 140).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from tests.paths import DATA
from tf_gpucheck.checks import run_checks
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.probes.tensorflow import read_build_file
from tf_gpucheck.snapshot import TensorflowInfo, load_snapshot

SNAPSHOTS = DATA / "snapshots"
WHEELS = DATA / "tf_wheels"

# the file of a real `pip install tensorflow-cpu==2.21.0` (its license header left out)
CPU_FILE = '''"""Auto-generated module providing information about the build."""
import collections

build_info = collections.OrderedDict([('is_cuda_build', False), ('is_rocm_build', False), ('is_tensorrt_build', False)])
'''


def _folder(tmp_path: Path, text: str) -> Path:
    platform = tmp_path / "tensorflow" / "python" / "platform"
    platform.mkdir(parents=True)
    (platform / "build_info.py").write_text(text)
    return tmp_path / "tensorflow"


def test_the_literal_is_read_without_running_the_file(tmp_path: Path) -> None:
    folder = _folder(tmp_path, CPU_FILE + "raise SystemExit('never run')\n")
    assert read_build_file(str(folder)) == {
        "is_cuda_build": False,
        "is_rocm_build": False,
        "is_tensorrt_build": False,
    }
    assert read_build_file(str(tmp_path / "nothing")) is None
    assert read_build_file(None) is None


def test_the_gpu_wheels_file_gives_its_cuda(tmp_path: Path) -> None:
    reading = json.loads((WHEELS / "tensorflow-2.21.0.json").read_text())
    literal = repr(list(reading["build_info"].items()))
    folder = _folder(
        tmp_path, f"import collections\nbuild_info = collections.OrderedDict({literal})\n"
    )
    assert read_build_file(str(folder)) == reading["build_info"]


def test_cpu_files_under_the_gpu_distributions_name_are_judged_as_cpu_files() -> None:
    """The files say CPU build; the distribution listed says ``tensorflow``: no CUDA library
    is said to be missing, and the build says what it is."""
    snapshot = load_snapshot(SNAPSHOTS / "real-tf-2.21-and-cuda-loader-py3.11.json")
    not_imported = dataclasses.replace(
        snapshot, tensorflow=TensorflowInfo(probed=False, installed=True)
    )
    cpu_files = dataclasses.replace(
        snapshot,
        tensorflow=TensorflowInfo(
            probed=False,
            installed=True,
            build_file={"is_cuda_build": False, "is_rocm_build": False, "is_tensorrt_build": False},
        ),
    )
    by_check = {f.check: f for f in run_checks(not_imported, load_matrix()).findings}
    assert by_check["cuda_libraries"].status.value == "fail"  # inferred: a `tensorflow` wheel
    by_check = {f.check: f for f in run_checks(cpu_files, load_matrix()).findings}
    assert by_check["cuda_libraries"].status.value == "skip"
    assert by_check["tf_build"].cause == "tf_cpu_only_build"
