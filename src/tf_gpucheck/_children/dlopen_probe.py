"""dlopen each library path given as JSON on stdin and report, as JSON on stdout, whether it
loaded, dlopen's error verbatim, and the version the library's own API reports.

Runs in a child process so that a library that crashes on load cannot take gpucheck down.
Standard library only; Python 3.8+.
"""

from __future__ import annotations

import ctypes
import json
import sys
from collections.abc import Callable
from typing import Any


def _int_out(lib: ctypes.CDLL, symbol: str) -> int | None:
    value = ctypes.c_int(0)
    status = getattr(lib, symbol)(ctypes.byref(value))
    return int(value.value) if status == 0 else None


def _properties(lib: ctypes.CDLL, symbol: str) -> str | None:
    parts: list[str] = []
    for prop in (0, 1, 2):  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL (libraryPropertyType)
        value = ctypes.c_int(0)
        if getattr(lib, symbol)(prop, ctypes.byref(value)) != 0:
            return None
        parts.append(str(value.value))
    return ".".join(parts)


def _cuda_style(number: int | None) -> str | None:
    # cuDriverGetVersion / cudaRuntimeGetVersion: 1000 * major + 10 * minor
    return None if not number else f"{number // 1000}.{number % 1000 // 10}"


def _cudnn(lib: ctypes.CDLL) -> str:
    lib.cudnnGetVersion.restype = ctypes.c_size_t
    number = int(lib.cudnnGetVersion())
    if number >= 90000:  # cuDNN 9: major * 10000 + minor * 100 + patch
        return f"{number // 10000}.{number % 10000 // 100}.{number % 100}"
    return f"{number // 1000}.{number % 1000 // 100}.{number % 100}"  # cuDNN <= 8


def _nccl(lib: ctypes.CDLL) -> str | None:
    number = _int_out(lib, "ncclGetVersion")
    if not number:
        return None
    if number >= 10000:  # NCCL >= 2.9: major * 10000 + minor * 100 + patch
        return f"{number // 10000}.{number % 10000 // 100}.{number % 100}"
    return f"{number // 1000}.{number % 1000 // 100}.{number % 100}"


VERSION_READERS: dict[str, Callable[[ctypes.CDLL], str | None]] = {
    "libcuda": lambda lib: _cuda_style(_int_out(lib, "cuDriverGetVersion")),
    "libcudart": lambda lib: _cuda_style(_int_out(lib, "cudaRuntimeGetVersion")),
    "libcudnn": _cudnn,
    "libnccl": _nccl,
    "libcublas": lambda lib: _properties(lib, "cublasGetProperty"),
    "libcublasLt": lambda lib: _properties(lib, "cublasLtGetProperty"),
    "libcufft": lambda lib: _properties(lib, "cufftGetProperty"),
    "libcusparse": lambda lib: _properties(lib, "cusparseGetProperty"),
    "libcusolver": lambda lib: _properties(lib, "cusolverGetProperty"),
    "libcurand": lambda lib: _properties(lib, "curandGetProperty"),
}


def probe(name: str, path: str) -> dict[str, Any]:
    try:
        lib = ctypes.CDLL(path)
    except OSError as exc:
        return {"name": name, "path": path, "loadable": False, "error": str(exc), "version": None}
    version = None
    reader = VERSION_READERS.get(name)
    if reader is not None:
        try:
            version = reader(lib)
        except Exception:  # a missing symbol in an old release: no version, still loadable
            version = None
    return {"name": name, "path": path, "loadable": True, "error": None, "version": version}


if __name__ == "__main__":
    requests = json.load(sys.stdin)
    results: list[dict[str, Any]] = []
    for item in requests:
        results.append(probe(item["name"], item["path"]))
    json.dump(results, sys.stdout)
