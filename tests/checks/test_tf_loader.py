"""Whose RUNPATH TensorFlow's own loader searches: the library whose code runs it.

glibc's dlopen searches the DT_RUNPATH of the object that calls it (dlopen(3), ld.so(8)), so for
what TensorFlow's loader opens (tsl ``dso_loader.cc``) that is the TensorFlow library that
*defines* the ``Get<Name>DsoHandle`` functions, not every TensorFlow library's. TensorFlow 2.21
moved ``nvidia/cusolver/lib`` from libtensorflow_framework.so.2's RUNPATH (which runs the loader)
to libtensorflow_cc.so.2's (which only calls it): in a plain ``tensorflow[and-cuda]==2.21.0``
venv, TensorFlow's own ``DsoLoader::TryDlopenCUDALibraries`` cannot open libcusolver.so.11, and
that function's failure is "Cannot dlopen some GPU libraries ... Skipping registering GPU devices".
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

from tests.paths import DATA
from tf_gpucheck.checks import run_checks
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.probes.elf import read_dynamic
from tf_gpucheck.snapshot import KernelInfo, TfDevice, load_snapshot

WHEELS = DATA / "tf_wheels"
SNAPSHOTS = DATA / "snapshots"
MATRIX = load_matrix()

GETTER = "_ZN3tsl8internal9DsoLoader20GetCusolverDsoHandleEv"

# the folder each library TensorFlow gives the GPU up without is installed in by its and-cuda
# wheel (nvidia-cusolver-cu12 puts libcusolver.so.11 in nvidia/cusolver/lib, ...)
GPU_INIT_FOLDERS = {
    "CudaRuntime": "nvidia/cuda_runtime/lib",
    "Cublas": "nvidia/cublas/lib",
    "CublasLt": "nvidia/cublas/lib",
    "Cufft": "nvidia/cufft/lib",
    "Cusolver": "nvidia/cusolver/lib",
    "Cusparse": "nvidia/cusparse/lib",
    "Cudnn": "nvidia/cudnn/lib",
}


def _reading(version: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((WHEELS / f"tensorflow-{version}.json").read_text())
    return data


def _opener(reading: dict[str, Any]) -> str | None:
    """The first of TensorFlow's libraries (framework, then cc: the file the dynamic linker
    binds every ``DsoLoader::Get...DsoHandle`` call to, seen with LD_DEBUG=bindings on 2.15.1
    and 2.21.0) whose symbol table defines the loader."""
    for name in ("libtensorflow_framework.so.2", "libtensorflow_cc.so.2"):
        entry = reading["files"].get(f"tensorflow/{name}")
        if entry and entry.get("defines_handles"):
            return name
    return None


def _left_out(version: str) -> list[str]:
    reading = _reading(version)
    opener = _opener(reading)
    assert opener is not None, version
    entry = reading["files"][f"tensorflow/{opener}"]
    searched = {
        os.path.normpath(os.path.join("tensorflow", p.replace("$ORIGIN", ".")))
        for p in entry["runpath"]
    }
    asked = set().union(*(f["dso_handles"] for f in reading["files"].values() if f))
    return sorted(
        handle
        for handle, folder in GPU_INIT_FOLDERS.items()
        if handle in asked
        and os.path.normpath(os.path.join("tensorflow", "..", folder)) not in searched
    )


LEFT_OUT = {
    # tensorflow/tensorflow#63362 ("TF 2.16.1 Fails to work with GPUs"): a plain
    # `pip install "tensorflow[and-cuda]==2.16.1"` did not see the GPU; the workaround people
    # settled on put the nvidia/*/lib folders on LD_LIBRARY_PATH. 2.16.1's framework, which runs
    # the loader, searches nvidia/cuda_runtime/lib only (its cc names them all)
    "2.16.1": ["Cublas", "CublasLt", "Cudnn", "Cufft", "Cusolver", "Cusparse"],
    "2.21.0": ["Cusolver"],
}


@pytest.mark.parametrize(
    "version", ["2.14.0", "2.15.0", "2.16.1", "2.17.0", "2.18.0", "2.19.0", "2.20.0", "2.21.0"]
)
def test_which_release_leaves_a_folder_of_its_own_wheels_out(version: str) -> None:
    """From the readings of the released wheels (scripts/read_tf_wheels.py): from 2.14 on, the
    library that runs the loader searches every and-cuda folder it needs, except in 2.16.1
    (a breakage people reported) and 2.21.0."""
    assert _left_out(version) == LEFT_OUT.get(version, [])


def test_2_21_runs_its_loader_in_the_framework_and_names_cusolver_only_in_cc() -> None:
    reading = _reading("2.21.0")
    files = reading["files"]
    framework = files["tensorflow/libtensorflow_framework.so.2"]
    cc = files["tensorflow/libtensorflow_cc.so.2"]
    assert "Cusolver" in framework["defines_handles"]
    assert cc["defines_handles"] == []
    assert cc["dso_handles"] == ["Cusolver"]
    assert "$ORIGIN/../nvidia/cusolver/lib" in cc["runpath"]
    assert not [p for p in framework["runpath"] if "cusolver" in p]


def _gcc() -> str:
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler here")
    return compiler


def _shared(path: Path, source: str, *flags: str) -> Path:
    c = path.with_suffix(".c")
    c.write_text(source)
    subprocess.run(
        [_gcc(), "-shared", "-fPIC", f"-Wl,-soname,{path.name}", "-o", str(path), str(c), *flags],
        check=True,
        capture_output=True,
    )
    return path


LOADER_C = f"""
#include <dlfcn.h>
void *{GETTER}(void) {{ return dlopen("libcusolver.so.11", RTLD_NOW | RTLD_LOCAL); }}
"""


def test_the_file_that_defines_the_loader_is_told_from_one_that_calls_it(tmp_path: Path) -> None:
    runs = _shared(tmp_path / "libruns.so", LOADER_C, "-ldl")
    calls = _shared(
        tmp_path / "libcalls.so",
        f"void *{GETTER}(void);\nvoid *call(void) {{ return {GETTER}(); }}\n",
        f"-L{tmp_path}",
        "-lruns",
    )
    defines = read_dynamic(str(runs), symbols=True)
    uses = read_dynamic(str(calls), symbols=True)
    assert defines is not None
    assert uses is not None
    assert defines.dso_handles == ("Cusolver",)
    assert defines.defines_handles == ("Cusolver",)
    assert uses.dso_handles == ("Cusolver",)
    assert uses.defines_handles == ()
    assert read_dynamic(str(runs)).defines_handles is None  # type: ignore[union-attr]


def test_the_loader_searches_the_runpath_of_the_file_that_runs_it(tmp_path: Path) -> None:
    """The rule the probe follows, tried on the real dynamic loader: a library that calls the
    loader through another one, with the wanted folder on its own RUNPATH only, does not make it
    found; LD_LIBRARY_PATH (the fix doctor prints) does."""
    wanted = tmp_path / "nvidia" / "cusolver" / "lib"
    wanted.mkdir(parents=True)
    _shared(
        wanted / "libcusolver.so.11", "int cusolverGetVersion(int *v) { *v = 11705; return 0; }\n"
    )
    tf = tmp_path / "tensorflow"
    tf.mkdir()
    _shared(
        tf / "libruns.so",
        LOADER_C,
        "-ldl",
        "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../nvidia/cublas/lib",
    )
    _shared(
        tf / "libcalls.so",
        f"void *{GETTER}(void);\nvoid *call(void) {{ return {GETTER}(); }}\n",
        f"-L{tf}",
        "-lruns",
        "-Wl,--enable-new-dtags,-rpath,$ORIGIN:$ORIGIN/../nvidia/cusolver/lib",
    )
    script = (
        "import ctypes, sys\n"
        f"lib = ctypes.CDLL({str(tf / 'libcalls.so')!r})\n"
        "lib.call.restype = ctypes.c_void_p\n"
        "print('opened' if lib.call() else 'not opened')\n"
    )

    def run(**env: str) -> str:
        out = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"} | env,
        )
        return out.stdout.strip()

    assert run() == "not opened"
    assert run(LD_LIBRARY_PATH=str(wanted)) == "opened"


def _finding(snapshot: Any, check: str) -> Any:
    report = run_checks(snapshot, MATRIX)
    return next(f for f in report.findings if f.check == check)


def test_the_standard_2_21_install_is_told_what_its_loader_cannot_reach() -> None:
    """Real recording of a plain ``pip install "tensorflow[and-cuda]==2.21.0"`` venv (README)."""
    snapshot = load_snapshot(SNAPSHOTS / "real-tf-2.21-and-cuda-loader-py3.11.json")
    assert [os.path.basename(r) for r in snapshot.libraries.requesters] == [
        "libtensorflow_framework.so.2"
    ]
    found = _finding(snapshot, "cuda_libraries")
    assert found.status.value == "fail"
    assert "off TensorFlow's loader path: libcusolver.so.11" in found.summary
    assert "nvidia-cusolver-cu12" in found.summary
    folder = next(
        os.path.dirname(loc.path)
        for lib in snapshot.libraries.libraries
        if lib.name == "libcusolver"
        for loc in lib.locations
    )
    assert found.fix.startswith(f"export LD_LIBRARY_PATH={folder}  #")
    assert "pip install" not in found.fix
    # the other five libraries it gives the GPU up without are found through that RUNPATH
    assert found.details.count("(via TensorFlow's RUNPATH): loads") == 5


def test_with_that_folder_on_ld_library_path_the_same_environment_is_ok() -> None:
    """The same venv recorded again with the printed fix's LD_LIBRARY_PATH (README)."""
    snapshot = load_snapshot(
        SNAPSHOTS / "real-tf-2.21-and-cuda-cusolver-on-ld-library-path-py3.11.json"
    )
    found = _finding(snapshot, "cuda_libraries")
    assert found.status.value == "ok", found.summary
    assert "libcusolver.so.11 11.7.5" in found.details
    assert "via LD_LIBRARY_PATH" in found.details


def test_a_gpu_tensorflow_lists_outweighs_the_search() -> None:
    """Where TensorFlow itself listed a GPU, its own loader opened what it needs in that process:
    the search said here does not make the check fail."""
    snapshot = load_snapshot(SNAPSHOTS / "real-tf-2.21-and-cuda-loader-py3.11.json")
    listed = dataclasses.replace(
        snapshot,
        tensorflow=dataclasses.replace(
            snapshot.tensorflow,
            physical_devices=(TfDevice(name="/physical_device:GPU:0", device_type="GPU"),),
        ),
    )
    found = _finding(listed, "cuda_libraries")
    assert found.status.value == "ok"
    assert "TensorFlow lists 1 GPU" in found.summary
    assert "libcusolver.so.11" in found.details


def test_2_16_1_is_the_breakage_people_reported_and_one_line_mends_it() -> None:
    """Real recordings of a plain ``pip install "tensorflow[and-cuda]==2.16.1"`` venv, before and
    after the printed line (tensorflow/tensorflow#63362: the GPU was not seen; TensorFlow's own
    ``DsoLoader::TryDlopenCUDALibraries``, called in that venv, fails before and succeeds after)."""
    before = load_snapshot(SNAPSHOTS / "real-tf-2.16.1-and-cuda-loader-py3.11.json")
    libraries = _finding(before, "cuda_libraries")
    cudnn = _finding(before, "cudnn")
    assert libraries.status.value == "fail"
    assert cudnn.status.value == "fail"
    assert "5 CUDA libraries installed but off TensorFlow's loader path" in libraries.summary
    assert "libcudnn.so.8" in cudnn.summary
    assert "off TensorFlow's loader path" in cudnn.summary
    # one line for both findings, every folder the loader does not reach, cuDNN's included
    assert libraries.fix == cudnn.fix
    value = libraries.fix.split()[1].removeprefix("LD_LIBRARY_PATH=")
    assert [os.path.basename(os.path.dirname(f)) for f in value.split(":")] == [
        "cublas",
        "cufft",
        "cusolver",
        "cusparse",
        "cudnn",
    ]
    after = load_snapshot(SNAPSHOTS / "real-tf-2.16.1-and-cuda-on-ld-library-path-py3.11.json")
    # (the recording redacts the variable's value: where the loader found each file says it)
    taken = {
        os.path.dirname(r.path)
        for lib in after.libraries.libraries
        for r in lib.resolutions
        if r.path and r.via == "ld_library_path"
    }
    assert taken == set(value.split(":"))
    for check in ("cuda_libraries", "cudnn"):
        assert _finding(after, check).status.value == "ok", check


def test_in_a_notebook_kernel_the_files_are_loaded_first(tmp_path: Path) -> None:
    """A kernel reads LD_LIBRARY_PATH when it starts; the loader takes a library already loaded
    by its SONAME, so loading the file first is the fix there (tried on TensorFlow 2.21: its own
    TryDlopenCUDALibraries then succeeds). The rule, on the real loader, then on the recording."""
    wanted = tmp_path / "nvidia" / "cusolver" / "lib"
    wanted.mkdir(parents=True)
    library = _shared(
        wanted / "libcusolver.so.11", "int cusolverGetVersion(int *v) { *v = 1; return 0; }\n"
    )
    runs = _shared(tmp_path / "libruns.so", LOADER_C, "-ldl")
    script = (
        "import ctypes, sys\n"
        f"ctypes.CDLL({str(library)!r})\n"
        f"lib = ctypes.CDLL({str(runs)!r})\n"
        f"getter = getattr(lib, {GETTER!r}); getter.restype = ctypes.c_void_p\n"
        "print('opened' if getter() else 'not opened')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "opened"

    snapshot = load_snapshot(SNAPSHOTS / "real-tf-2.21-and-cuda-loader-py3.11.json")
    in_kernel = dataclasses.replace(
        snapshot,
        kernel=KernelInfo(python=snapshot.target.python_executable, shell="ZMQInteractiveShell"),
    )
    fix = _finding(in_kernel, "cuda_libraries").fix or ""
    cusolver = next(
        loc.path
        for lib in snapshot.libraries.libraries
        if lib.name == "libcusolver"
        for loc in lib.locations
    )
    assert fix.startswith(f"import ctypes; ctypes.CDLL({cusolver!r})  #")
    assert "LD_LIBRARY_PATH" not in fix
