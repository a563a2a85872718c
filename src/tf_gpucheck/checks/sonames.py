"""Which CUDA or cuDNN a library name TensorFlow asked the loader for belongs to, and which
TensorFlow releases are built with it: a text that names no TensorFlow release still says, in
``Could not load dynamic library 'libcudart.so.10.1'``, what its build wants.

The names, as the libraries ship them: the CUDA runtime is ``libcudart.so.<major>.<minor>``
through CUDA 10 (``cudart64_<major><minor>.dll``), ``libcudart.so.11.0`` for every CUDA 11
(the nvidia-cuda-runtime-cu11 11.8.89 wheel's RECORD: ``nvidia/cuda_runtime/lib/libcudart.so.11.0``;
``cudart64_110.dll``), and the major alone from CUDA 12 (nvidia-cuda-runtime-cu12 12.9.79:
``libcudart.so.12``; CUDA 13.0's toolkit: ``lib64/libcudart.so.13``); cuDNN is
``libcudnn.so.<major>`` (nvidia-cudnn-cu11 8.6.0.163: ``libcudnn.so.8``; ``cudnn64_<major>.dll``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tf_gpucheck.matrix import Matrix, TfRelease

_NAME = re.compile(
    r"\b(?:lib(?P<lib>cudart|cudnn)\.so\.(?P<so>\d+(?:\.\d+)?)"
    r"|(?P<dll>cudart|cudnn)64_(?P<digits>\d+)\.dll)\b",
    re.IGNORECASE,
)


def asked_for(texts: Iterable[str]) -> tuple[str, str, str] | None:
    """(``cuda`` or ``cudnn``, the version it names: ``10.1``, ``11`` for any CUDA 11, ``8``
    for cuDNN 8; the name as written) from the first line that names one."""
    for text in texts:
        match = _NAME.search(text)
        if match is None:
            continue
        kind = (match.group("lib") or match.group("dll")).lower()
        if match.group("so"):
            version = match.group("so")
        else:
            digits = match.group("digits")
            # cudart64_101.dll: 10.1; cudart64_90.dll: 9.0; cudart64_12.dll: 12; cudnn64_7.dll: 7
            major_only = kind == "cudnn" or (len(digits) == 2 and digits[0] == "1")
            version = digits if major_only else f"{digits[:-1]}.{digits[-1]}"
        if kind == "cudart":
            major, _, minor = version.partition(".")
            version = major if int(major) >= 11 else f"{major}.{minor or '0'}"
            return "cuda", version, match.group(0)
        return "cudnn", version.split(".")[0], match.group(0)
    return None


def _fits(have: str | None, wanted: str) -> bool:
    if not have:
        return False
    parts = have.split(".")
    if "." in wanted:  # an exact CUDA up to 10: 10.1 (the table writes 9, 8 for 9.0, 8.0)
        major, minor = wanted.split(".")
        return parts[0] == major and (parts[1] if len(parts) > 1 else "0") == minor
    return parts[0] == wanted


def releases_built_with(
    matrix: Matrix, kind: str, version: str, *, windows: bool
) -> list[TfRelease]:
    """The releases whose build uses that CUDA (or cuDNN major), newest first; on Windows the
    native builds (up to 2.10)."""
    out = []
    for row in matrix.newest_first():
        if kind == "cuda":
            have = row.windows_native_cuda if windows else row.cuda
        else:
            have = row.windows_native_cudnn if windows else row.cudnn
        if _fits(have, version):
            out.append(row)
    return out
