"""``gpucheck lint``: Dockerfiles, Compose files and Kubernetes manifests judged before they run.

A Dockerfile becomes facts (the base image's CUDA, cuDNN and Python, the TensorFlow and other
packages its RUN lines install, the variables it bakes in), and those facts are judged by
doctor's own checks, the way ``explain`` judges what a text states: the findings carry doctor's
cause codes and the file and line they come from. Compose services and Kubernetes workloads
running a GPU image are checked for the GPU request that gives it one.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from tf_gpucheck.checks.findings import Status
from tf_gpucheck.errors import GpucheckError
from tf_gpucheck.lint import dockerfile, images
from tf_gpucheck.matrix import Matrix


@dataclass(frozen=True)
class LintFinding:
    file: str
    line: int | None
    status: Status
    check: str
    cause: str | None
    summary: str
    fix: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "status": self.status.value,
            "check": self.check,
            "cause": self.cause,
            "summary": self.summary,
            "fix": self.fix,
        }


@dataclass(frozen=True)
class LintReport:
    files: tuple[str, ...]
    findings: tuple[LintFinding, ...]

    @property
    def verdict(self) -> Status:
        worst = max((f.status for f in self.findings), key=lambda s: s.severity, default=Status.OK)
        return worst if worst in (Status.FAIL, Status.WARN) else Status.OK

    def exit_code(self, strict: bool = False) -> int:
        if self.verdict is Status.FAIL or (strict and self.verdict is Status.WARN):
            return 1
        return 0


def kind_of(path: str, text: str) -> str:
    """dockerfile, compose or kubernetes; bad input when it is none of them."""
    name = os.path.basename(path).lower()
    if "dockerfile" in name or "containerfile" in name or name.endswith(".dockerfile"):
        return "dockerfile"
    stripped = [
        line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    if stripped and stripped[0].split()[0].upper() in ("FROM", "ARG"):
        return "dockerfile"
    if "apiVersion:" in text and "kind:" in text:
        return "kubernetes"
    if "services:" in text:
        return "compose"
    raise GpucheckError(
        f"{path}: not a Dockerfile, a Compose file or a Kubernetes manifest",
        reference="lint-unknown-file",
        hint="gpucheck lint Dockerfile docker-compose.yml deployment.yaml",
    )


def lint_paths(paths: Sequence[str], matrix: Matrix) -> LintReport:
    from tf_gpucheck._textfile import read_text

    findings: list[LintFinding] = []
    for path in paths:
        text = read_text(
            path, "Dockerfile or manifest", "gpucheck lint Dockerfile docker-compose.yml pod.yaml"
        )
        kind = kind_of(path, text)
        if kind == "dockerfile":
            findings += lint_dockerfile(path, text, matrix)
        else:
            from tf_gpucheck.lint import manifests

            findings += (
                manifests.lint_compose(path, text)
                if kind == "compose"
                else manifests.lint_kubernetes(path, text)
            )
    return LintReport(tuple(paths), tuple(findings))


# --- Dockerfiles ---------------------------------------------------------------------------

_TF_NAMES = frozenset(
    {"tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tf-nightly", "intel-tensorflow"}
)
_MOVES_CUDA_WHEELS = ("torch", "jax", "jaxlib", "cupy-cuda12x", "cupy-cuda11x")


def _requirement(text: str) -> Requirement | None:
    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def _pinned(requirement: Requirement) -> str | None:
    """The release a requirement names (``==2.15.*`` -> 2.15, ``==2.15.1`` -> 2.15.1), or the
    least it allows (``>=2`` -> 2: whatever pip takes is at least that)."""
    for spec in requirement.specifier:
        if spec.operator in ("==", "===", "~="):
            return spec.version.removesuffix(".*")
    for spec in requirement.specifier:
        if spec.operator in (">=", ">"):
            return spec.version
    return None


def lint_dockerfile(path: str, text: str, matrix: Matrix) -> list[LintFinding]:
    from tf_gpucheck.checks.textual import stated_checks
    from tf_gpucheck.reading import textfacts

    stage = dockerfile.parse(text)
    if stage is None:
        return [
            LintFinding(path, None, Status.SKIP, "dockerfile", None, "no FROM: nothing to judge")
        ]
    image = images.facts(stage.base)
    found: list[LintFinding] = []

    def add(
        line: int | None,
        status: Status,
        check: str,
        cause: str | None,
        summary: str,
        fix: str | None = None,
    ) -> None:
        found.append(LintFinding(path, line, status, check, cause, summary, fix))

    packages: dict[str, tuple[str | None, int, Requirement]] = {}
    tf_line = stage.base_line
    and_cuda = False
    tf_name = None
    for install in stage.installs:
        requirement = _requirement(install.requirement)
        if requirement is None:
            continue
        name = canonicalize_name(requirement.name)
        packages[name] = (_pinned(requirement), install.line, requirement)
        if name in _TF_NAMES:
            tf_line, tf_name = install.line, name
            and_cuda = "and-cuda" in requirement.extras
        elif and_cuda and (
            name in _MOVES_CUDA_WHEELS or any("cuda" in extra for extra in requirement.extras)
        ):
            add(
                install.line,
                Status.WARN,
                "cuda_wheels",
                "and_cuda_pins_unmet",
                f"{install.requirement} after tensorflow[and-cuda] can move the nvidia-* CUDA "
                "wheels off the versions TensorFlow pins",
                "install TensorFlow last, or check with pip install --dry-run of both together",
            )
    tf_version = packages[tf_name][0] if tf_name else image.tf
    python = image.python
    if tf_name and tf_version is None:
        newest = next(
            (r for r in matrix.newest_first() if not python or r.supports_python(python)), None
        )
        tf_version = newest.version if newest else None
        if newest:
            add(tf_line, Status.INFO, "tf_install", None,
                f"{tf_name} is not pinned: pip takes {newest.version}"
                + (f", the newest for Python {python}" if python else ""))  # fmt: skip
    gpu_build = (tf_name or ("tensorflow" if image.tf_gpu else None)) not in (
        None,
        "tensorflow-cpu",
    )
    stated_packages = [(name, version) for name, (version, _, _) in packages.items() if version]
    if tf_name and tf_version and not any(n == tf_name for n, _ in stated_packages):
        stated_packages.append((tf_name, tf_version))
    # what the running image will hold, as facts doctor's checks judge
    cuda = None if and_cuda else image.cuda
    cudnn = None if and_cuda else image.cudnn
    stated = textfacts.StatedFacts(
        tf_version=tf_version,
        python_version=python,
        os="Linux",
        cuda_version=cuda,
        cudnn_version=cudnn,
        packages=tuple(stated_packages),
    )
    for finding in stated_checks(stated, matrix):
        if finding.status is Status.INFO and finding.check == "python":
            continue
        summary = (
            finding.summary.split(": ", 1)[-1]
            if finding.summary.startswith("the text says")
            else finding.summary
        ).replace(" is loaded but ", " is in the image but ")
        if image.said_by and finding.check in ("cuda_libraries", "cudnn", "python"):
            summary += f" ({stage.base}, {image.said_by})"
        status = finding.status
        if (
            finding.check == "python"
            and finding.status is Status.WARN
            and tf_name
            and tf_name in packages
            and packages[tf_name][0]
        ):
            # TensorFlow's wheels are built for exactly its tested Pythons: pip finds none
            status = Status.FAIL
            summary += f"; pip finds no {tf_name} {tf_version} wheel for it, so the build fails"
        add(
            tf_line if finding.check != "python" else stage.base_line,
            status,
            finding.check,
            finding.cause,
            summary,
            finding.fix,
        )
    row = matrix.release(tf_version) if tf_version else None
    if gpu_build and row and not and_cuda and not image.tf_gpu and image.known:
        if image.cuda is None:
            add(stage.base_line, Status.FAIL, "cuda_libraries", "cuda_libs_missing",
                f"the base image {stage.base} has no CUDA and TensorFlow {tf_version} is installed without [and-cuda]",
                f'pip install "tensorflow[and-cuda]=={tf_version}"' if row.and_cuda else f"FROM nvidia/cuda:{row.cuda}-cudnn{(row.cudnn or '8').split('.')[0]}-runtime-ubuntu22.04")  # fmt: skip
        elif image.cudnn_known and image.cudnn is None:
            add(stage.base_line, Status.FAIL, "cudnn", "cudnn_missing",
                f"{stage.base} has no cuDNN (a {image.flavor} image without 'cudnn' in its tag), which TensorFlow {tf_version} needs",
                f'pip install "tensorflow[and-cuda]=={tf_version}"' if row.and_cuda else f"use an nvidia/cuda image with cuDNN {row.cudnn}")  # fmt: skip
    for variable, (value, line) in stage.env.items():
        if variable == "CUDA_VISIBLE_DEVICES":
            add(line, Status.WARN, "gpu_visibility", "gpu_hidden_by_env",
                f"ENV CUDA_VISIBLE_DEVICES={value} is baked into the image: every container hides the other GPUs",
                "set it when the container starts (docker run -e CUDA_VISIBLE_DEVICES=...), not in the image")  # fmt: skip
        elif variable == "LD_LIBRARY_PATH" and "stubs" in value:
            add(line, Status.FAIL, "cuda_libraries", "cuda_stub_libcuda",
                f"ENV LD_LIBRARY_PATH={value} puts the CUDA stubs (a libcuda.so for linking only) on the loader's path",
                "drop lib64/stubs from LD_LIBRARY_PATH (use it only while building)")  # fmt: skip
        elif variable == "NVIDIA_DRIVER_CAPABILITIES" and not {"compute", "all"} & set(
            value.split(",")
        ):
            add(line, Status.FAIL, "place", "container_capabilities_missing",
                f"ENV NVIDIA_DRIVER_CAPABILITIES={value} has no compute: the container gets no libcuda",
                "ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility")  # fmt: skip
    for package, line in stage.apt:
        if package.startswith(
            ("nvidia-driver", "cuda-drivers", "nvidia-utils", "libnvidia-compute")
        ):
            add(line, Status.WARN, "nvidia_driver", "nvml_driver_mismatch",
                f"{package} installs an NVIDIA driver into the image; the NVIDIA runtime mounts the host's, and two drivers disagree (Driver/library version mismatch)",
                "remove it: install the driver on the host only")  # fmt: skip
    if image.tf_gpu and image.tf and image.cuda is None and not and_cuda:
        add(stage.base_line, Status.INFO, "cuda_libraries", None,
            f"no cited source states the CUDA and cuDNN inside {stage.base}: not judged")  # fmt: skip
    if not found:
        add(None, Status.OK, "dockerfile", None,
            f"{stage.base}" + (f", TensorFlow {tf_version}" if tf_version else "") + ": nothing to fix")  # fmt: skip
    return [dataclasses.replace(f) for f in found]


def describe_image(reference: str) -> dict[str, Any]:
    """What gpucheck reads from an image reference (for the report's context)."""
    return dataclasses.asdict(images.facts(reference))
