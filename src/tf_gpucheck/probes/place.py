"""Where this runs: a container, a Kubernetes pod, a SLURM job, a notebook runtime, CI.

Facts, no judgement, each from a marker its runtime documents:

- Docker creates ``/.dockerenv`` in every container (moby: daemon/initlayer); Podman creates
  ``/run/.containerenv`` (podman-run(1): "Podman creates the file /run/.containerenv") and sets
  ``container=podman``; systemd-nspawn, LXC and others set ``container=<name>`` (systemd's
  Container Interface, systemd.io/CONTAINER_INTERFACE); Apptainer/Singularity set
  ``APPTAINER_CONTAINER`` / ``SINGULARITY_CONTAINER``; ``/proc/1/cgroup`` names ``docker``,
  ``libpod``, ``kubepods``, ``containerd`` or ``crio`` where the cgroup namespace is shared.
- Kubernetes sets ``KUBERNETES_SERVICE_HOST`` in every container of a pod (kubernetes.io:
  "Environment variables" of Services) and mounts ``/var/run/secrets/kubernetes.io``.
- SLURM sets ``SLURM_JOB_ID`` in a job, and ``SLURM_STEP_GPUS`` / ``SLURM_JOB_GPUS`` /
  ``SLURM_GPUS_ON_NODE`` only when GPUs were allocated (sbatch(1), srun(1): OUTPUT ENVIRONMENT
  VARIABLES).
- Colab sets ``COLAB_RELEASE_TAG`` (and ``COLAB_GPU`` on a GPU runtime); Kaggle sets
  ``KAGGLE_KERNEL_RUN_TYPE``; a Jupyter kernel inherits ``JPY_PARENT_PID`` or
  ``JPY_SESSION_NAME`` from the server that started it.
- GitHub Actions sets ``GITHUB_ACTIONS=true``, GitLab CI ``GITLAB_CI=true``, most CI ``CI=true``.
- The NVIDIA container runtime passes in the ``/dev/nvidia*`` device nodes, mounts the driver's
  ``libcuda.so.1`` and ``libnvidia-ml.so.1``, and reads ``NVIDIA_VISIBLE_DEVICES``,
  ``NVIDIA_DRIVER_CAPABILITIES`` and ``NVIDIA_REQUIRE_CUDA`` (NVIDIA Container Toolkit: "Specialized
  Configurations with Docker", environment variables); WSL2 has ``/dev/dxg`` instead.

``root`` reads another root directory's files (tests replay markers recorded in real runtimes).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping

from tf_gpucheck.snapshot import NvidiaRuntimeInfo, PlaceInfo

_CGROUP_WORDS = (
    ("kubepods", "containerd"),
    ("libpod", "podman"),
    ("docker", "docker"),
    ("crio", "cri-o"),
    ("containerd", "containerd"),
    ("lxc", "lxc"),
)
_DRIVER_LIBRARY_DIRS = (
    "usr/lib/x86_64-linux-gnu",
    "usr/lib/aarch64-linux-gnu",
    "usr/lib64",
    "usr/lib",
    "usr/local/nvidia/lib64",
    "usr/local/nvidia/lib",
    "usr/lib/wsl/lib",
)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(65536)
    except OSError:
        return None


def probe_place(environ: Mapping[str, str], root: str = "/") -> PlaceInfo:
    def at(*parts: str) -> str:
        return os.path.join(root, *parts)

    markers: list[str] = []
    container: str | None = None
    if os.path.exists(at(".dockerenv")):
        container = "docker"
        markers.append("/.dockerenv")
    if os.path.exists(at("run", ".containerenv")):
        container = "podman"
        markers.append("/run/.containerenv")
    variable = environ.get("container")
    if variable:
        markers.append(f"container={variable}")
        container = container or ("podman" if variable == "podman" else variable)
    for name in ("APPTAINER_CONTAINER", "SINGULARITY_CONTAINER"):
        if environ.get(name):
            markers.append(name)
            container = container or "apptainer"
    cgroup = _read(at("proc", "1", "cgroup")) or ""
    for word, runtime in _CGROUP_WORDS:
        if word in cgroup:
            markers.append(f"/proc/1/cgroup names {word}")
            container = container or runtime
            break
    kubernetes = bool(environ.get("KUBERNETES_SERVICE_HOST")) or os.path.isdir(
        at("var", "run", "secrets", "kubernetes.io")
    )
    if kubernetes:
        markers.append(
            "KUBERNETES_SERVICE_HOST"
            if environ.get("KUBERNETES_SERVICE_HOST")
            else "/var/run/secrets/kubernetes.io"
        )
        container = container or "containerd"
    slurm_job = environ.get("SLURM_JOB_ID") or None
    slurm_gpus = None
    if slurm_job:
        markers.append("SLURM_JOB_ID")
        for name in ("SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "SLURM_GPUS_ON_NODE"):
            if environ.get(name):
                slurm_gpus = f"{name}={environ[name]}"
                break
    notebook = None
    if environ.get("COLAB_RELEASE_TAG") or environ.get("COLAB_GPU") is not None:
        notebook = "colab"
        markers.append("COLAB_RELEASE_TAG")
    elif environ.get("KAGGLE_KERNEL_RUN_TYPE"):
        notebook = "kaggle"
        markers.append("KAGGLE_KERNEL_RUN_TYPE")
    elif environ.get("JPY_PARENT_PID") or environ.get("JPY_SESSION_NAME"):
        notebook = "jupyter"
        markers.append("JPY_PARENT_PID" if environ.get("JPY_PARENT_PID") else "JPY_SESSION_NAME")
    ci = None
    if environ.get("GITHUB_ACTIONS") == "true":
        ci = "github_actions"
    elif environ.get("GITLAB_CI") == "true":
        ci = "gitlab_ci"
    elif environ.get("CI", "").lower() in ("true", "1"):
        ci = "ci"
    nodes = sorted(
        "/" + os.path.relpath(path, root)
        for pattern in ("dev/nvidia*", "dev/dxg")
        for path in glob.glob(at(*pattern.split("/")))
    )
    libraries = sorted(
        "/" + os.path.relpath(path, root)
        for folder in _DRIVER_LIBRARY_DIRS
        for name in ("libcuda.so.1", "libnvidia-ml.so.1")
        for path in glob.glob(at(*folder.split("/"), name))
    )
    nvidia = NvidiaRuntimeInfo(
        device_nodes=tuple(nodes),
        driver_libraries=tuple(libraries),
        visible_devices=environ.get("NVIDIA_VISIBLE_DEVICES"),
        driver_capabilities=environ.get("NVIDIA_DRIVER_CAPABILITIES"),
        require_cuda=environ.get("NVIDIA_REQUIRE_CUDA"),
    )
    return PlaceInfo(
        container=container,
        markers=tuple(markers),
        kubernetes=kubernetes,
        slurm_job=slurm_job,
        slurm_gpus=slurm_gpus,
        notebook=notebook,
        ci=ci,
        nvidia=nvidia,
    )
