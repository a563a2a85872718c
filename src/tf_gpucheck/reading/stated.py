"""What a pasted text states about the machine it came from, as :func:`tf_gpucheck.reading.
textfacts.extract` reads it: each fact with the line it came from and the words that stated it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

OS = Literal["Linux", "Windows", "Darwin"]


@dataclass(frozen=True)
class StatedFacts:
    tf_version: str | None = None
    python_version: str | None = None
    driver_version: str | None = None
    cuda_driver_version: str | None = None
    """nvidia-smi's "CUDA Version": the newest CUDA the driver supports."""
    cuda_build_version: str | None = None
    """The CUDA TensorFlow was built with, where the text states it."""
    cudnn_build_version: str | None = None
    gpus: tuple[tuple[str, str | None], ...] = ()
    """(name, compute capability or None), one per GPU, in device order where known."""
    os: OS | None = None
    is_wsl: bool | None = None
    """True when the text shows WSL; None when it does not say (never False)."""
    cuda_visible_devices: str | None = None
    """The value the text shows CUDA_VISIBLE_DEVICES set to ("" when set empty)."""
    cuda_version: str | None = None
    """The CUDA toolkit or runtime installed (nvcc, a template's CUDA field, prose), not the
    driver's "CUDA Version" of nvidia-smi."""
    cudnn_version: str | None = None
    """The cuDNN installed (or loaded: "Loaded runtime CuDNN library")."""
    packages: tuple[tuple[str, str], ...] = ()
    """(normalised distribution name, version) stated for a package (pip list, pip freeze,
    conda list, prose: "numpy 2.0.1")."""
    env: tuple[tuple[str, str], ...] = ()
    """Environment variables the text shows set (KERAS_BACKEND=jax, LD_LIBRARY_PATH=...)."""
    place: str | None = None
    """Where it ran, as the text shows: colab, kaggle, kubernetes, slurm, docker, jupyter."""
    arch: str | None = None
    """arm64 where the text names Apple silicon."""
    needed: tuple[tuple[str, str], ...] = ()
    """(fact, version) a text says is needed or asked for ("TF 1.14 needs CUDA 10.0":
    ("cuda_version", "10.0")), as opposed to installed."""
    gpu_requested: str | None = None
    """"true" where the text shows the place was asked for a GPU (docker run --gpus, srun
    --gres=gpu, a nvidia.com/gpu limit): a GPU missing there is not the place's doing."""
    cuda_image: str | None = None
    """An image the text runs TensorFlow in that brings its own CUDA and cuDNN
    (``tensorflow/tensorflow:2.3.0-gpu``, ``nvcr.io/nvidia/tensorflow:23.10-tf2-py3``)."""
    tf_build: str | None = None
    """How TensorFlow was had where the text says it is not PyPI's wheel: "source" (built from
    source) or "image" (NVIDIA's container): the matrix's CUDA and kernels are not that build's."""
    evidence: tuple[tuple[str, int], ...] = field(default=())
    """(fact, index of the line it came from) for every fact above that is set."""
    spans: tuple[tuple[str, str, str], ...] = field(default=())
    """(fact, the words that stated it, printed or said) for every fact above that is set."""

    def line_of(self, fact: str) -> int | None:
        """Index (into the lines given to :func:`extract`) of the line a fact came from."""
        return next((index for name, index in self.evidence if name == fact), None)

    def package(self, name: str) -> str | None:
        """The version stated for a distribution (``numpy``, ``keras``, ``tf-keras``)."""
        return next((version for known, version in self.packages if known == name), None)

    def span_of(self, fact: str) -> str | None:
        return next((text for name, text, _ in self.spans if name == fact), None)

    def printed(self, fact: str) -> bool:
        """Whether a tool printed the fact (pip list, nvidia-smi), not the writer's words or a
        command that asks for it (``package:tensorflow-gpu`` for a distribution)."""
        return any(name == fact and how == "printed" for name, _, how in self.spans)

    def env_value(self, name: str) -> str | None:
        return next((value for known, value in self.env if known == name), None)
