"""compat_matrix.yaml: complete, consistent with itself, cited, strictly loaded, shipped in the wheel."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import FAST, JSON
from tf_gpucheck.errors import GpucheckError
from tf_gpucheck.matrix import (
    CudaRelease,
    Matrix,
    MinorCompat,
    PlatformFact,
    TfRelease,
    fit,
    load_matrix,
    parse_matrix,
    python_in_range,
    validate,
)

ROOT = Path(__file__).resolve().parents[1]
MATRIX_FILE = ROOT / "compat_matrix.yaml"


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix()


def test_every_minor_release_from_1_0_to_2_21(matrix: Matrix) -> None:
    minors = sorted(row.minor for row in matrix.tensorflow)
    assert minors == [(1, minor) for minor in range(16)] + [(2, minor) for minor in range(22)]
    # TensorFlow 1.x: the GPU build is tensorflow-gpu, CUDA 8 to 10.0 (tested build configurations)
    tf115, tf14 = matrix.release("1.15.0"), matrix.release("1.4.0")
    assert tf115 is not None
    assert tf14 is not None
    assert (tf115.cuda, tf14.cudnn) == ("10.0", "6")


def test_the_table_agrees_with_itself(matrix: Matrix) -> None:
    assert validate(matrix) == []
    for row in matrix.tensorflow:
        for cuda in (row.cuda, row.windows_native_cuda):
            if cuda:
                cuda_row = matrix.cuda_release(cuda)
                assert cuda_row is not None
                assert cuda_row.min_driver_linux
                if int(cuda.split(".")[0]) >= 11:  # minor-version compatibility began with CUDA 11
                    assert matrix.minor_compat(cuda) is not None


def test_every_row_cites_a_public_source(matrix: Matrix) -> None:
    rows: list[TfRelease | CudaRelease | MinorCompat | PlatformFact] = [
        *matrix.tensorflow,
        *matrix.cuda,
        *matrix.cuda_minor_compat,
        *matrix.platform,
    ]
    for row in rows:
        assert row.source, row
        for source in row.source:
            assert matrix.sources[source].startswith("https://"), source


def test_known_facts(matrix: Matrix) -> None:
    # TensorFlow's tested build configurations (tensorflow.org/install/source#gpu)
    tf215 = matrix.release("2.15.1")
    assert tf215 is not None
    assert (tf215.version, tf215.python, tf215.cuda, tf215.cudnn) == (
        "2.15.0",
        "3.9-3.11",
        "12.2",
        "8.9",
    )
    tf210 = matrix.release("2.10")
    assert tf210 is not None
    assert tf210.windows_native_cuda == "11.2"
    tf211 = matrix.release("2.11.0")
    assert tf211 is not None
    assert tf211.windows_native_cuda is None
    assert matrix.release("2.13.0").and_cuda is None  # type: ignore[union-attr]
    assert matrix.release("2.14.0").and_cuda  # type: ignore[union-attr]
    # NVIDIA's CUDA 12.2 GA row and the CUDA 12 minor-version-compatibility floor
    cuda122 = matrix.cuda_release("12.2")
    assert cuda122 is not None
    assert (cuda122.min_driver_linux, cuda122.min_driver_windows) == ("535.54.03", "536.25")
    compat12 = matrix.minor_compat("12.5.1")
    assert compat12 is not None
    assert compat12.min_driver_linux == "525.60.13"
    assert matrix.fact("windows_native_last_gpu").value == "2.10"


def test_python_ranges() -> None:
    assert python_in_range("3.11.7", "3.9-3.11")
    assert not python_in_range("3.12.0", "3.9-3.11")
    assert python_in_range("2.7.18", "2.7, 3.3-3.7")
    assert python_in_range("3.5.2", "2.7, 3.3-3.7")
    assert not python_in_range("3.8.0", "2.7, 3.3-3.7")


@pytest.mark.parametrize(
    ("capability", "kind", "via"),
    [
        ("8.0", "native", "sm_80"),
        ("8.6", "native", "sm_80"),  # binary kernels run on a higher minor of the same major
        ("8.9", "native", "sm_89"),
        ("7.5", "native", "sm_70"),
        ("9.0", "ptx", "compute_90"),
        ("12.0", "ptx", "compute_90"),
        ("5.2", "too_old", None),
    ],
)
def test_capability_fit_for_tf_2_21(capability: str, kind: str, via: str | None) -> None:
    caps = ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"]
    result = fit(capability, caps)
    assert (result.kind, result.via) == (kind, via)


def test_capability_with_neither_kernels_nor_ptx() -> None:
    # TensorFlow 2.3's build: sm_35 sm_37 sm_52 sm_60 sm_61 + compute_70; a 5.0 GPU has nothing
    assert (
        fit("5.0", ["sm_35", "sm_37", "sm_52", "sm_60", "sm_61", "compute_70"]).kind
        == "unsupported"
    )


def _text_with(change: str) -> str:
    data = yaml.safe_load(MATRIX_FILE.read_text())
    exec(change, {"data": data})
    return yaml.safe_dump(data)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("data['tensorflow'][3]['gpu_arch'] = 'x'", "unknown key 'gpu_arch'"),
        ("data['tensorflow'].append(dict(data['tensorflow'][-1]))", "a second row for 2.21"),
        (
            "data['cuda'] = [r for r in data['cuda'] if r['version'] != '12.2']",
            "names CUDA 12.2, which has no cuda row",
        ),
        ("data['tensorflow'][0]['source'] = ['nowhere']", "unknown source 'nowhere'"),
        ("data['schema_version'] = 2", "schema_version must be 1"),
        ("del data['tensorflow'][0]['python']", "python: missing"),
    ],
)
def test_broken_matrix_is_one_clear_error(change: str, words: str) -> None:
    with pytest.raises(GpucheckError) as caught:
        parse_matrix(_text_with(change), "test.yaml")
    assert words in caught.value.message
    assert caught.value.reference == "matrix-invalid"


@pytest.mark.parametrize("text", ["{unclosed", "- just\n- a list\n", ""])
def test_not_a_matrix(text: str) -> None:
    with pytest.raises(GpucheckError, match="not a valid compatibility matrix"):
        parse_matrix(text, "test.yaml")


def test_missing_matrix_file(tmp_path: Path) -> None:
    with pytest.raises(GpucheckError) as caught:
        load_matrix(str(tmp_path / "nope.yaml"))
    assert caught.value.reference == "matrix-missing"


@pytest.mark.slow
def test_the_wheel_ships_the_matrix(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (wheel,) = tmp_path.glob("tf_gpucheck-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = archive.read("tf_gpucheck/compat_matrix.yaml").decode()
    assert shipped == MATRIX_FILE.read_text()
    assert len(parse_matrix(shipped, str(wheel)).tensorflow) == 38


def test_a_development_build_gets_its_release_row_only_where_the_releases_around_it_agree() -> None:
    """tf-nightly 2.20.0.dev20250314 was built between 2.19 and 2.20, which share CUDA 12.5,
    cuDNN 9.3 and kernels: that row holds for it. 2.5.0.dev20201108 lies between 2.4 (CUDA 11.0,
    cuDNN 8.0) and 2.5 (11.2, 8.1): which one it had is not known, so no row judges it."""
    matrix = load_matrix()
    nightly = matrix.release("2.20.0.dev20250314")
    assert nightly is not None
    assert nightly.version == "2.20.0"
    assert matrix.release("2.5.0.dev20201108") is None
    assert matrix.release("2.5.0") is not None
    release_candidate = matrix.release("2.5.0rc1")  # a release candidate is built as the release
    assert release_candidate is not None
    assert release_candidate.version == "2.5.0"


@FAST
@given(st.text(max_size=300))
def test_matrix_loader_never_crashes(text: str) -> None:
    with pytest.raises(GpucheckError):
        parse_matrix(text, "fuzz.yaml")


@FAST
@given(JSON)
def test_matrix_loader_never_crashes_on_yaml_data(data: Any) -> None:
    with pytest.raises(GpucheckError):
        parse_matrix(json.dumps(data), "fuzz.yaml")
