"""`gpucheck lint`: Dockerfiles, Compose files and Kubernetes manifests, each with what it must give.

The files are in tests/data/lint/ (README there: which are quoted from public repositories, and
from where). Every finding is checked by cause code, file line and status, so a rule that moves
to another line or loses its code fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.paths import DATA
from tf_gpucheck import knowledge
from tf_gpucheck.lint import dockerfile, images, lint_paths
from tf_gpucheck.matrix import load_matrix

DATA = DATA / "lint"

# file -> exit code, {(cause, line, status)} that must all be there (other findings are errors)
EXPECTED: dict[str, tuple[int, set[tuple[str | None, int | None, str]]]] = {
    # TF's own images: 2.15.0-gpu is TF 2.15.0 (not "CUDA 2.15"), first published with CUDA 11.8
    # and cuDNN 8.6 under a wheel built for CUDA 12.2 / cuDNN 8.9 (issue #62412)
    "tf215-gpu.Dockerfile": (
        1,
        {("cuda_libs_missing", 2, "fail"), ("cudnn_version_mismatch", 2, "fail")},
    ),
    # no source read states the CUDA inside 2.10.0-gpu: said, not guessed
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
    assert facts.cuda == "11.8"  # the images table's, never "2.15" from the tag
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
    tf_versions = [row["tf"] for row in table["tensorflow_images"]]
    assert len(tf_versions) == len(set(tf_versions))
    for row in table["tensorflow_images"]:
        assert re.fullmatch(r"\d+\.\d+\.\d+(\.post\d+)?", row["tf"]), row["tf"]
        if row["cuda"] is not None:
            assert row["cudnn"] is not None
            assert row["os"] is not None


# What TensorFlow's own GPU images hold, per knowledge/images.yaml and the build file each row cites
# (the Dockerfile at the release tag or branch, or tensorflow/build's on the release date).
@pytest.mark.parametrize(
    ("tag", "cuda", "cudnn", "os_name", "python"),
    [
        # v2.0.0 tag: ARG CUDA=10.0, ARG CUDNN=7.6.2.24-1, UBUNTU_VERSION=18.04; "2.0.0-gpu" was
        # Python 2 and "-py3" Python 3, so no Python is stated
        ("2.0.0-gpu-py3", "10.0", "7.6.2.24", "ubuntu18.04", None),
        # r2.2 branch (March 2020): ARG CUDA=10.1, ARG CUDNN=7.6.4.38-1, python3 for every tag
        ("2.2.0-gpu", "10.1", "7.6.4.38", "ubuntu18.04", "3.6"),
        # first published from tensorflow/build's CUDA 11.8 Dockerfile (before PR #165)
        ("2.15.0-gpu", "11.8", "8.6.0.163", "ubuntu22.04", "3.11"),
        ("2.15.0-gpu-jupyter", "11.8", "8.6.0.163", "ubuntu22.04", "3.11"),
        # built after the move to CUDA 12.3: its own row, not 2.15.0's
        ("2.15.0.post1-gpu-jupyter", "12.3", "8.9.6.50", "ubuntu22.04", "3.11"),
        ("2.15.1-gpu", "12.3", "8.9.6.50", "ubuntu22.04", "3.11"),
    ],
)
def test_tensorflow_gpu_images_contents(
    tag: str, cuda: str, cudnn: str, os_name: str, python: str | None
) -> None:
    facts = images.facts(f"tensorflow/tensorflow:{tag}")
    assert facts.tf_gpu
    assert facts.tf == tag.split("-", maxsplit=1)[0]
    assert (facts.cuda, facts.cudnn, facts.os, facts.python) == (cuda, cudnn, os_name, python)
    assert facts.cudnn_known
    assert facts.said_by == "per knowledge/images.yaml"


@pytest.mark.parametrize("tag", ["2.1.0-gpu", "2.4.0-gpu", "2.11.0-gpu"])
def test_tensorflow_gpu_images_unread_or_disputed_stay_unknown(tag: str) -> None:
    # 2.1.0: the tag's Dockerfile says CUDA 10.0 while the wheel and master say 10.1;
    # 2.3-2.11: the tag's Dockerfile was not read. Unknown, never the wheel's CUDA.
    facts = images.facts(f"tensorflow/tensorflow:{tag}")
    assert facts.tf == tag.split("-", maxsplit=1)[0]
    assert (facts.cuda, facts.cudnn, facts.cudnn_known) == (None, None, False)


def test_every_tensorflow_image_row_is_read_back() -> None:
    # each row is reachable from its own tag (a post release included) and gives its own values
    for row in knowledge.read("images.yaml")["tensorflow_images"]:
        facts = images.facts(f"tensorflow/tensorflow:{row['tf']}-gpu")
        assert facts.tf == row["tf"]
        assert (facts.cuda, facts.cudnn, facts.os, facts.python) == (
            row["cuda"],
            row["cudnn"],
            row["os"],
            row["python"],
        ), row["tf"]


def test_tf215_gpu_image_is_judged_with_its_cuda(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "Dockerfile"
    path.write_text("FROM tensorflow/tensorflow:2.15.0-gpu\nRUN pip install pandas\n")
    result = run_cli(["lint", "--json", str(path)])
    assert result.exit_code == 1
    findings = json.loads(result.stdout)["findings"]
    cuda = next(f for f in findings if f["cause"] == "cuda_libs_missing")
    assert "11.8" in cuda["summary"]
    assert "12" in cuda["summary"]
    assert "per knowledge/images.yaml" in cuda["summary"]
    assert cuda["fix"] == 'pip install "tensorflow[and-cuda]==2.15.0"'
    # the fix it gives makes it pass; so does the tag built after the move to CUDA 12.3
    path.write_text(
        'FROM tensorflow/tensorflow:2.15.0-gpu\nRUN pip install "tensorflow[and-cuda]==2.15.0"\n'
    )
    assert run_cli(["lint", str(path)]).exit_code == 0
    path.write_text("FROM tensorflow/tensorflow:2.15.0.post1-gpu-jupyter\n")
    assert run_cli(["lint", str(path)]).exit_code == 0


def test_old_tensorflow_gpu_images_are_judged(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "Dockerfile"
    for tag in ("2.0.0-gpu-py3", "2.2.0-gpu"):
        path.write_text(f"FROM tensorflow/tensorflow:{tag}\n")
        data = json.loads(run_cli(["lint", "--json", str(path)]).stdout)
        assert [(f["status"], f["cause"]) for f in data["findings"]] == [("ok", None)], tag


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
