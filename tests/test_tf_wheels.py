"""compat_matrix.yaml's library facts held against what the released wheels' own binaries say.

The readings in tests/data/tf_wheels/ were made by ``python scripts/read_tf_wheels.py VERSION``
(each file keeps its command, the wheel's name, size and sha256): the wheel downloaded with
``pip download --no-deps``, its build_info.py and TensorFlow's own libraries read, nothing
imported, the wheel discarded.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from tf_gpucheck.checks import run_checks
from tf_gpucheck.checks.layers.libraries import asked_libraries
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.probes.elf import dso_handles, read_dynamic
from tf_gpucheck.snapshot import LoaderRequest, load_snapshot

WHEELS = Path(__file__).parent / "data" / "tf_wheels"
SNAPSHOTS = Path(__file__).parent / "data" / "snapshots"
READINGS = sorted(WHEELS.glob("tensorflow-*.json"))
MATRIX = load_matrix()


def _reading(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _handles(reading: dict[str, Any]) -> set[str]:
    return {h for f in reading["files"].values() if f for h in f["dso_handles"]}


def test_every_release_from_2_12_on_was_read() -> None:
    read = {p.name.removeprefix("tensorflow-").removesuffix(".json") for p in READINGS}
    wanted = {row.version for row in MATRIX.tensorflow if row.minor >= (2, 12)}
    assert wanted <= read, sorted(wanted - read)


@pytest.mark.parametrize("path", READINGS, ids=lambda p: p.stem)
def test_the_matrix_row_says_what_the_wheel_says(path: Path) -> None:
    reading = _reading(path)
    version = path.stem.removeprefix("tensorflow-")
    row = MATRIX.release(version)
    assert row is not None
    assert row.version == version
    handles = _handles(reading)
    known = [h.handle for h in MATRIX.loader]
    if handles:
        assert list(row.loader or ()) == [h for h in known if h in handles]
    else:  # dynamic symbols that do not name the loader: the row says it was not read
        assert row.loader is None
    build = reading["build_info"]
    if build.get("cuda_version") and row.cuda:
        assert build["cuda_version"].startswith(row.cuda.split(".")[0])
    if build.get("cudnn_version") and row.cudnn:
        assert row.cudnn.split(".")[0] == str(build["cudnn_version"]).split(".")[0]
    if reading["and_cuda"]:
        assert sorted(row.and_cuda or ()) == sorted(reading["and_cuda"])


def test_curand_is_asked_for_until_2_13_and_never_after() -> None:
    """What the issue was about: TensorFlow 2.14 on has no GetCurandDsoHandle."""
    asks = {p.stem.removeprefix("tensorflow-"): "Curand" in _handles(_reading(p)) for p in READINGS}
    assert asks["2.13.0"]
    assert asks["2.12.0"]
    for version in ("2.14.0", "2.15.0", "2.16.1", "2.17.0", "2.18.0", "2.19.0", "2.20.0"):
        assert not asks[version], version
    assert not asks["2.21.0"]


def test_the_2_21_and_cuda_recording_gets_no_library_failure() -> None:
    snapshot = load_snapshot(SNAPSHOTS / "real-tf-2.21-and-cuda-py3.11-no-driver.json")
    report = run_checks(snapshot, MATRIX)
    libraries = next(f for f in report.findings if f.check == "cuda_libraries")
    assert libraries.status.value == "ok", libraries.summary
    assert "curand" not in (libraries.details or "")
    assert "6 CUDA libraries" in libraries.summary
    bad = {f.check for f in report.findings if f.status.value in ("fail", "warn")}
    assert bad <= {"nvidia_driver"}, bad


def test_what_the_binaries_ask_for_decides_over_the_release_row() -> None:
    """A build whose own binaries name GetCurandDsoHandle (a custom or older build) is asked
    for libcurand even where the row of its release is not."""
    snapshot = load_snapshot(SNAPSHOTS / "real-tf-2.21-and-cuda-py3.11-no-driver.json")
    asked = [
        LoaderRequest(h, ("/x/libtensorflow_framework.so.2",))
        for h in ("CudaRuntime", "Cublas", "CublasLt", "Cufft", "Curand", "Cusolver", "Cusparse")
    ]
    custom = dataclasses.replace(
        snapshot, libraries=dataclasses.replace(snapshot.libraries, loader_requests=tuple(asked))
    )
    names, where = asked_libraries(custom, MATRIX)
    assert names is not None
    assert "libcurand" in names
    assert "own binaries" in where
    names, where = asked_libraries(snapshot, MATRIX)
    assert names is not None
    assert "libcurand" not in names
    assert "2.21.0 wheel" in where


def test_a_release_nobody_read_is_said_as_unknown() -> None:
    snapshot = load_snapshot(SNAPSHOTS / "real-tf-2.21-and-cuda-py3.11-no-driver.json")
    unread = dataclasses.replace(
        snapshot, tensorflow=dataclasses.replace(snapshot.tensorflow, version="2.1.0")
    )
    names, where = asked_libraries(unread, MATRIX)
    assert names is None
    assert "unknown" in where


def test_the_mangled_names_of_the_loader_are_read() -> None:
    table = (
        b"\0_ZN3tsl8internal9DsoLoader18GetCurandDsoHandleEv\0"
        b"_ZN3tsl8internal15CachedDsoLoader23GetCudaRuntimeDsoHandleEv\0"
        b"_ZZN12_GLOBAL__N_112GetDsoHandleEvE6handle\0"  # a stub's own, unnamed: not a library
        b"_ZN15stream_executor8internal9DsoLoader17GetCufftDsoHandleEv\0"
    )
    assert dso_handles(table) == ("Curand", "CudaRuntime", "Cufft")


@pytest.mark.tensorflow
def test_the_installed_tensorflow_is_read_as_its_wheel_was() -> None:
    """The TensorFlow of this test environment, read in place, says what its wheel's reading
    says (the same release read twice: from the wheel and from the installed files)."""
    import importlib.util

    spec = importlib.util.find_spec("tensorflow")
    if spec is None or not spec.origin:
        pytest.skip("TensorFlow is not installed in the test environment")
    folder = Path(spec.origin).parent
    from importlib.metadata import version

    reading = WHEELS / f"tensorflow-{version('tensorflow')}.json"
    if not reading.exists():
        pytest.skip(f"no reading of tensorflow {version('tensorflow')}'s wheel is recorded")
    installed: set[str] = set()
    for name in ("libtensorflow_framework.so.2", "libtensorflow_cc.so.2"):
        dynamic = read_dynamic(str(folder / name))
        assert dynamic is not None
        installed |= set(dynamic.dso_handles)
    assert installed == _handles(_reading(reading))
