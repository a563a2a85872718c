"""What a base image brings: CUDA, cuDNN, Python, TensorFlow, read from its reference.

- ``nvidia/cuda:<version>-[cudnn[<major>]-]<base|runtime|devel>-<os>``: the tag says it
  (NVIDIA's CUDA images: ``base`` has only the CUDA runtime, ``runtime`` the CUDA libraries,
  ``devel`` also nvcc and ptxas; ``cudnn`` adds cuDNN).
- ``tensorflow/tensorflow:<version>[-gpu][-jupyter]`` and ``nvcr.io/nvidia/tensorflow:<YY.MM>-tf2-py3``:
  a cited table (``knowledge/images.yaml``) says what each holds.
- ``python:<version>[-variant]``: that Python, no CUDA.
- the OS's own Python where the image has no other (``knowledge/images.yaml``: ``os_python``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from tf_gpucheck import knowledge


@dataclass(frozen=True)
class ImageFacts:
    reference: str
    tf: str | None = None
    tf_gpu: bool = False
    """A TensorFlow image built for GPUs (its CUDA libraries inside)."""
    cuda: str | None = None
    cudnn: str | None = None
    """cuDNN's version, or its major alone ("8"); ``None`` when the image has none (or it is unknown)."""
    cudnn_known: bool = False
    """Whether the image is known to hold cuDNN or not (``cudnn`` is then meaningful)."""
    flavor: str | None = None
    """base, runtime or devel (nvidia/cuda)."""
    os: str | None = None
    python: str | None = None
    known: bool = False
    """The reference was recognised at all."""
    said_by: str = ""
    """Where the facts come from (the tag itself, or a row of the images table and its source)."""


@functools.cache
def _table() -> dict[str, Any]:
    data: Any = knowledge.read("images.yaml")
    return data if isinstance(data, dict) else {}


_CUDA_TAG = re.compile(
    r"^(?P<cuda>\d+\.\d+(?:\.\d+)?)-(?:(?P<cudnn>cudnn\d*)-)?(?P<flavor>base|runtime|devel)-(?P<os>[a-z]+\d+(?:\.\d+)?)"
)


def _split(reference: str) -> tuple[str, str]:
    name, _, tag = (
        reference.rpartition(":")
        if ":" in reference.rsplit("/", maxsplit=1)[-1]
        else (reference, "", "latest")
    )
    return name.lower(), tag


def os_python(os_name: str | None) -> str | None:
    for row in _table().get("os_python", []) or []:
        if os_name and str(row.get("os")) == os_name:
            return str(row.get("python"))
    return None


def facts(reference: str) -> ImageFacts:
    name, tag = _split(reference)
    short = name.removeprefix("docker.io/").removeprefix("library/")
    if short in ("nvidia/cuda", "nvcr.io/nvidia/cuda"):
        match = _CUDA_TAG.match(tag)
        if not match:
            return ImageFacts(reference)
        cudnn = match["cudnn"]
        os_name = match["os"]
        return ImageFacts(
            reference,
            cuda=match["cuda"],
            cudnn=(cudnn.removeprefix("cudnn") or None) if cudnn else None,
            cudnn_known=True,
            flavor=match["flavor"],
            os=os_name,
            python=os_python(os_name),
            known=True,
            said_by="per its tag",
        )
    if short == "tensorflow/tensorflow":
        # 2.15.0.post1-gpu is its own image (built after the move to CUDA 12.3), not 2.15.0's
        version = re.match(r"^(\d+\.\d+\.\d+(?:\.post\d+)?)", tag)
        gpu = "-gpu" in tag or tag in ("latest-gpu", "nightly-gpu")
        if not version:
            return ImageFacts(reference, tf_gpu=gpu, known=tag.startswith(("latest", "nightly")))
        row = next(
            (
                r
                for r in _table().get("tensorflow_images", []) or []
                if str(r.get("tf")) == version[1]
            ),
            None,
        )
        base = ImageFacts(reference, tf=version[1], tf_gpu=gpu, known=True, said_by="per its tag")
        if row is None:
            return base
        return ImageFacts(
            reference,
            tf=version[1],
            tf_gpu=gpu,
            cuda=_text(row.get("cuda")) if gpu else None,
            cudnn=_text(row.get("cudnn")) if gpu else None,
            cudnn_known=gpu and row.get("cudnn") is not None,
            os=_text(row.get("os")),
            python=_text(row.get("python")),
            known=True,
            said_by="per knowledge/images.yaml",
        )
    if short == "nvcr.io/nvidia/tensorflow":
        row = next(
            (r for r in _table().get("ngc_tensorflow", []) or [] if str(r.get("tag")) == tag), None
        )
        if row is None:
            return ImageFacts(
                reference, tf_gpu=True, known=True, said_by="per its name (an NGC TensorFlow image)"
            )
        return ImageFacts(
            reference,
            tf=_text(row.get("tf")),
            tf_gpu=True,
            cuda=_text(row.get("cuda")),
            cudnn=_text(row.get("cudnn")),
            cudnn_known=row.get("cudnn") is not None,
            os=_text(row.get("os")),
            python=_text(row.get("python")),
            known=True,
            said_by="per knowledge/images.yaml",
        )
    if short == "python":
        version = re.match(r"^(\d+\.\d+)", tag)
        return ImageFacts(
            reference, python=version[1] if version else None, known=True, said_by="per its tag"
        )
    if short in ("ubuntu", "debian"):
        return ImageFacts(
            reference, os=f"{short}{tag}", python=os_python(f"{short}{tag}"), known=True
        )
    return ImageFacts(reference)


def _text(value: object) -> str | None:
    return None if value is None else str(value)
