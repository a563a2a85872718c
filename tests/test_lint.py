"""`gpucheck lint`: Dockerfiles, Compose files and Kubernetes manifests, each with what it must give.

The files are in tests/data/lint/ (README there: which are quoted from public repositories, and
from where). Every finding is checked by cause code, file line and status, so a rule that moves
to another line or loses its code fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tf_gpucheck import knowledge
from tf_gpucheck.lint import dockerfile, images, lint_paths
from tf_gpucheck.matrix import load_matrix

DATA = Path(__file__).parent / "data" / "lint"

# file -> exit code, {(cause, line, status)} that must all be there (other findings are errors)
EXPECTED: dict[str, tuple[int, set[tuple[str | None, int | None, str]]]] = {
    # TF's own images: 2.15.0-gpu is TF 2.15.0 (not "CUDA 2.15"); no source states its CUDA
    "tf215-gpu.Dockerfile": (0, {(None, 2, "info")}),
    "tf210-gpu.Dockerfile": (0, {(None, 2, "info")}),
    # 2.18.0-gpu: CUDA 12.3 / cuDNN 8.9 inside while the wheel is built for cuDNN 9.3
    "tf218-gpu.Dockerfile": (1, {("cudnn_version_mismatch", 1, "fail")}),
    "ngc-21.04.Dockerfile": (0, {(None, None, "ok")}),
    "ngc-20.12.Dockerfile": (0, {(None, None, "ok")}),
    # TF 2.17 needs CUDA 12; the image has 11.8 and no [and-cuda]
    "tf217-cuda118.Dockerfile": (1, {("cuda_libs_missing", 3, "fail")}),
    "cuda-runtime-no-cudnn.Dockerfile": (
        1,
        {("cudnn_missing", 1, "fail"), ("numpy_incompatible", 3, "fail")},
    ),
    "baked.Dockerfile": (
        1,
        {
            ("python_unsupported", 2, "fail"),
            ("nvml_driver_mismatch", 3, "warn"),
            ("gpu_hidden_by_env", 4, "warn"),
            ("cuda_stub_libcuda", 4, "fail"),
            ("and_cuda_pins_unmet", 8, "warn"),
        },
    ),
    "and-cuda.Dockerfile": (0, {(None, None, "ok")}),
    "cpu-build.Dockerfile": (1, {("tf_cpu_only_build", 6, "fail")}),
    "compose-runtime-nvidia.yml": (0, {(None, 4, "ok"), ("gpu_hidden_by_env", 13, "warn")}),
    "compose-no-gpu.yml": (1, {("container_no_gpu", 2, "fail"), (None, 5, "info")}),
    "compose-gpu.yml": (0, {(None, 2, "ok")}),
    "pod-limit.yaml": (0, {(None, 9, "ok")}),
    "deployment-request-only.yaml": (
        1,
        {("pod_no_gpu", 14, "fail"), ("container_capabilities_missing", 17, "fail")},
    ),
    "cronjob-no-gpu.yaml": (1, {("pod_no_gpu", 13, "fail")}),
}


def test_every_file_has_its_expectation() -> None:
    files = {p.name for p in DATA.iterdir() if p.name != "README.md"}
    assert files == set(EXPECTED)
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    for name in files:
        assert f"`{name}`" in readme, name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_lint_file(name: str, run_cli) -> None:  # type: ignore[no-untyped-def]
    code, expected = EXPECTED[name]
    result = run_cli(["lint", "--json", str(DATA / name)])
    assert result.exit_code == code, result.stdout + result.stderr
    data = json.loads(result.stdout)
    got = {(f["cause"], f["line"], f["status"]) for f in data["findings"]}
    assert got == expected
    for finding in data["findings"]:
        assert finding["file"].endswith(name)


def test_strict_fails_on_warnings(run_cli) -> None:  # type: ignore[no-untyped-def]
    path = str(DATA / "compose-runtime-nvidia.yml")
    assert run_cli(["lint", path]).exit_code == 0
    assert run_cli(["lint", "--strict", path]).exit_code == 1


def test_several_files_and_text_output(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli(
        ["lint", str(DATA / "tf217-cuda118.Dockerfile"), str(DATA / "compose-gpu.yml")]
    )
    assert result.exit_code == 1
    assert "tf217-cuda118.Dockerfile:3" in result.stdout
    assert "cuda_libs_missing" in result.stdout
    assert 'pip install "tensorflow[and-cuda]==2.17.0"' in result.stdout


def test_github_annotations(run_cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    path = str(DATA / "baked.Dockerfile")
    result = run_cli(["lint", path])
    lines = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert f"::error file={path},line=4::" in "\n".join(lines)
    assert any(line.startswith(f"::warning file={path},line=8::") for line in lines)
    assert all("\n" not in line for line in lines)


@pytest.mark.parametrize(
    ("content", "name", "reference"),
    [
        ("hello\n", "notes.txt", "lint-unknown-file"),
        ("services:\n  a: [\n", "docker-compose.yml", "lint-unreadable"),
        (b"\x00\x01\x02", "Dockerfile", "input-binary"),
    ],
)
def test_bad_input_is_exit_2(run_cli, tmp_path: Path, content, name, reference) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    result = run_cli(["lint", str(path)])
    assert result.exit_code == 2
    assert reference in result.stderr
    assert "Traceback" not in result.stderr
    assert run_cli(["lint", str(tmp_path / "missing")]).exit_code == 2


def test_cuda_tags_read() -> None:
    facts = images.facts("nvidia/cuda:12.3.2-cudnn9-runtime-ubuntu22.04")
    assert (facts.cuda, facts.cudnn, facts.flavor, facts.os, facts.python) == (
        "12.3.2",
        "9",
        "runtime",
        "ubuntu22.04",
        "3.10",
    )
    bare = images.facts("docker.io/nvidia/cuda:11.8.0-base-ubuntu20.04")
    assert (bare.cuda, bare.cudnn, bare.cudnn_known) == ("11.8.0", None, True)
    # the newer form with "cudnn" and no major
    assert images.facts("nvidia/cuda:12.9.1-cudnn-devel-ubuntu24.04").flavor == "devel"


def test_tensorflow_tags_are_tensorflow_versions() -> None:
    facts = images.facts("tensorflow/tensorflow:2.15.0-gpu")
    assert facts.tf == "2.15.0"
    assert facts.tf_gpu
    assert facts.cuda is None  # not "2.15"
    cpu = images.facts("tensorflow/tensorflow:2.17.0")
    assert cpu.tf == "2.17.0"
    assert not cpu.tf_gpu
    ngc = images.facts("nvcr.io/nvidia/tensorflow:21.04-tf2-py3")
    assert (ngc.cuda, ngc.cudnn, ngc.python) == ("11.3.0", "8.2.0.41", "3.8")


def test_images_table_cites_every_row() -> None:
    table = knowledge.read("images.yaml")
    sources = table["sources"]
    assert all(str(url).startswith("https://") for url in sources.values())
    rows = table["os_python"] + table["tensorflow_images"] + table["ngc_tensorflow"]
    assert len(rows) > 40
    for row in rows:
        assert row["source"], row
        for source in row["source"]:
            assert source in sources, (row, source)
    # the lint table's rows for TF's images: every filled value has a row source
    for row in table["tensorflow_images"]:
        assert row["tf"].count(".") == 2
        if row["cuda"] is not None:
            assert row["cudnn"] is not None
            assert row["os"] is not None


def test_dockerfile_reader() -> None:
    stage = dockerfile.parse(
        "ARG BASE=python:3.11\n"
        "FROM ${BASE} AS build\n"
        "RUN pip install -r requirements.txt --no-cache-dir 'numpy<2' \\\n"
        "    && uv pip install --system tensorflow==2.16.1\n"
        'ENV A=1 B="two words"\n'
        "FROM build\n"
        "RUN conda install -y -c conda-forge cudnn=8.9\n"
    )
    assert stage is not None
    assert stage.base == "python:3.11"
    assert stage.base_line == 2
    assert [(i.line, i.tool, i.requirement) for i in stage.installs] == [
        (3, "pip", "numpy<2"),
        (3, "uv", "tensorflow==2.16.1"),
        (7, "conda", "cudnn=8.9"),
    ]
    assert stage.env == {"A": ("1", 5), "B": ("two words", 5)}
    assert dockerfile.parse("# nothing\n") is None


def test_lint_paths_report_verdict() -> None:
    report = lint_paths([str(DATA / "compose-gpu.yml")], load_matrix(None))
    assert report.exit_code() == 0
    assert report.verdict.value == "ok"
