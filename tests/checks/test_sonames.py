"""The library TensorFlow asked the loader for names the CUDA (or cuDNN) its build wants: where a
text names no TensorFlow release, the fix names that CUDA and the releases built with it, never a
generic install of the newest TensorFlow."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tf_gpucheck.checks import sonames
from tf_gpucheck.explain import explain
from tf_gpucheck.matrix import load_matrix

MATRIX = load_matrix()

# real lines: tensorflow/tensorflow#45930, Kyubyong/dc_tts#59, iterative/cml#654
_CUDART_110 = (
    "2021-02-10 12:57:07.427237: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] "
    "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open "
    "shared object file: No such file or directory"
)
_CUDART64_100 = (
    "W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic "
    "library 'cudart64_100.dll'; dlerror: cudart64_100.dll not found"
)
_CUDART_101 = (
    "2021-07-12 10:52:47.496789: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] "
    "Could not load dynamic library 'libcudart.so.10.1'; dlerror: libcudart.so.10.1: cannot open "
    "shared object file: No such file or directory; LD_LIBRARY_PATH: "
    "/usr/local/nvidia/lib:/usr/local/nvidia/lib64"
)


def test_the_runtime_name_says_its_cuda_as_the_libraries_ship_it() -> None:
    # up to CUDA 10 the name has the minor; every CUDA 11 runtime is libcudart.so.11.0
    # (nvidia-cuda-runtime-cu11 11.8.89); from 12 the major alone (libcudart.so.12)
    assert sonames.asked_for([_CUDART_101]) == ("cuda", "10.1", "libcudart.so.10.1")
    assert sonames.asked_for([_CUDART_110]) == ("cuda", "11", "libcudart.so.11.0")
    assert sonames.asked_for([_CUDART64_100]) == ("cuda", "10.0", "cudart64_100.dll")
    # the TF 2.21 and-cuda recording's runtime (tests/data/snapshots/real-tf-2.21-and-cuda-*),
    # tensorflow/tensorflow#16479,
    # #45200 and #5591 (a name without its version says nothing)
    loaded = "site-packages/nvidia/cuda_runtime/lib/libcudart.so.12"
    assert sonames.asked_for([loaded]) == ("cuda", "12", "libcudart.so.12")
    assert sonames.asked_for(["it said that 'cannot find cudart64_90.dll'."]) == (
        "cuda",
        "9.0",
        "cudart64_90.dll",
    )
    assert sonames.asked_for(["Could not load dynamic library 'libcudnn.so.8'"]) == (
        "cudnn",
        "8",
        "libcudnn.so.8",
    )
    unversioned = (
        "I tensorflow/stream_executor/dso_loader.cc:105] Couldn't open CUDA library libcudnn.so. "
        "LD_LIBRARY_PATH: "
    )
    assert sonames.asked_for([unversioned]) is None


def test_the_releases_built_with_it_come_from_the_matrix() -> None:
    eleven = sonames.releases_built_with(MATRIX, "cuda", "11", windows=False)
    assert eleven[-1].version == "2.4.0"
    assert eleven[0].version == "2.14.0"
    assert all(r.cuda and r.cuda.startswith("11.") for r in eleven)
    ten_one = sonames.releases_built_with(MATRIX, "cuda", "10.1", windows=False)
    assert [r.version for r in ten_one] == ["2.3.0", "2.2.0", "2.1.0"]


def test_a_text_without_a_release_gets_the_cuda_its_library_names() -> None:
    said = explain(f"TensorFlow does not use my GPU\n{_CUDART_101}\n", MATRIX, similar=False).report
    assert said.first_fix is not None
    assert said.first_fix.cause == "cuda_libs_missing"
    assert said.first_fix.fix is not None
    assert said.first_fix.fix.startswith("install CUDA 10.1 with cuDNN 7.6")
    assert "TensorFlow 2.1.0-2.3.0" in said.first_fix.fix
    assert "tensorflow[and-cuda]" not in said.first_fix.fix
    windows = explain(f"GPU not used\n{_CUDART64_100}\n", MATRIX, similar=False).report
    assert windows.first_fix is not None
    assert windows.first_fix.fix is not None
    assert windows.first_fix.fix.startswith("install CUDA 10.0 with cuDNN 7.4")
    assert "bin folder to PATH" in windows.first_fix.fix


@pytest.mark.slow
def test_the_names_are_the_ones_nvidias_wheels_ship(tmp_path: Path) -> None:
    """The experiment behind the names: the CUDA runtime wheels' RECORD files."""
    wheels = {"nvidia-cuda-runtime-cu11==11.8.89": "11", "nvidia-cuda-runtime-cu12==12.9.79": "12"}
    for requirement, major in wheels.items():
        folder = tmp_path / major
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "-d",
                str(folder),
                requirement,
            ],
            check=True,
            timeout=300,
        )
        (wheel,) = folder.glob("*.whl")
        with zipfile.ZipFile(wheel) as archive:
            record = next(n for n in archive.namelist() if n.endswith("RECORD"))
            names = [line.split(",")[0] for line in archive.read(record).decode().splitlines()]
        runtimes = [n.rsplit("/", 1)[-1] for n in names if "/libcudart.so" in n]
        assert runtimes, requirement
        for name in runtimes:
            assert sonames.asked_for([name]) is not None
            assert sonames.asked_for([name])[:2] == ("cuda", major), name  # type: ignore[index]
