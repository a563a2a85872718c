"""Import one GPU framework (torch, jax or cupy) and report what it sees, as JSON written to the
file named by argv[2]; argv[1] names the framework.

Runs in the target interpreter, one child per framework, so that a framework that crashes or
hangs loses only its own facts. The report is rewritten after every stage, as tf_probe does:
the parent keeps what was learnt before a crash. Facts only, errors verbatim: version, the CUDA
the build was made with, whether the build has CUDA at all, the GPUs it lists, and a tiny
matrix product on the first GPU compared with the exact answer.

Standard library and the framework only. Written in the syntax Python 2.7 and 3.5+ share (no
f-strings, no annotations), like interpreter_probe.
"""

from __future__ import print_function

import os
import sys
import time
import traceback
import warnings

try:  # only for the type comments; the typing module exists from Python 3.5
    from typing import Any, Dict, Optional, Tuple
except ImportError:  # pragma: no cover - Python 2.7 without the typing backport
    Any = Dict = Optional = Tuple = None  # type: ignore[assignment,misc]

sys.path.append(os.path.dirname(os.path.abspath(__file__)))  # the folder of this child, last
import _gpucheck_staged  # type: ignore[import-not-found]

CHECKSUM = 3680.0
"""sum(A @ A.T) for A = arange(16).reshape(4, 4): exact in float32."""

_report = {
    "name": sys.argv[1] if len(sys.argv) > 1 else "",
    "version": None,
    "devices": [],
}  # type: Dict[str, Any]
_out_path = sys.argv[2] if len(sys.argv) > 2 else None


def _save(stage):
    # type: (str) -> None
    _gpucheck_staged.save(_report, _out_path, stage)


def _error(exc):
    # type: (BaseException) -> str
    return ("%s: %s" % (type(exc).__name__, exc)).strip()


def _cuda_text(number):
    # type: (int) -> str
    """12040 (CUDA's own encoding) -> "12.4"."""
    return "%d.%d" % (number // 1000, number % 1000 // 10)


def _checked(checksum):
    # type: (float) -> None
    _report["checksum"] = checksum
    if checksum == CHECKSUM:
        _report["gpu_usable"] = True
    else:
        _report["gpu_usable"] = False
        _report["error"] = "the GPU computed %r for a product whose exact sum is %r" % (
            checksum,
            CHECKSUM,
        )


def probe_torch():
    # type: () -> None
    import torch

    _report["version"] = torch.__version__
    _report["cuda_version"] = getattr(torch.version, "cuda", None)
    _report["built_with_cuda"] = _report["cuda_version"] is not None
    _save("imported")
    if not _report["built_with_cuda"]:
        _report["gpu_usable"] = False  # torch 2.x+cpu: cannot use a GPU, says nothing about one
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        available = torch.cuda.is_available()
    if not available:
        _report["gpu_usable"] = False
        cuda = torch.cuda  # type: Any
        try:
            cuda.init()  # raises with PyTorch's own reason ("Found no NVIDIA driver ...")
        except Exception as exc:
            _report["error"] = _error(exc)
        if not _report.get("error"):
            said = [str(w.message) for w in caught]
            _report["error"] = said[0] if said else "torch.cuda.is_available() is False"
        return
    _save("devices")
    _report["devices"] = [
        "cuda:%d %s" % (i, torch.cuda.get_device_name(i)) for i in range(torch.cuda.device_count())
    ]
    _save("gpu op")
    a = torch.arange(16, dtype=torch.float32, device="cuda:0").reshape(4, 4)
    checksum = float(torch.matmul(a, a.T).sum().item())  # .item() waits for the device
    _checked(checksum)


def _jax_cuda(jax, jaxlib):
    # type: (object, object) -> Tuple[Optional[str], Optional[bool]]
    """(the CUDA jaxlib was built with or None, whether this jaxlib has CUDA at all or None)."""
    version = getattr(jaxlib, "__version__", "") or ""
    if "+cuda" in version:  # jaxlib < 0.4.16 shipped CUDA builds as local versions
        return version.split("+cuda", 1)[1][:2].rstrip("."), True
    try:
        from jax._src.lib import cuda_versions  # present with a CUDA plugin
    except Exception:
        cuda_versions = None
    if cuda_versions is not None:
        try:
            return _cuda_text(int(cuda_versions.cuda_runtime_build_version())), True
        except Exception:
            return None, True
    try:
        import importlib.util

        for name in ("jax_cuda13_plugin", "jax_cuda12_plugin", "jax_plugins.xla_cuda12"):
            try:
                if importlib.util.find_spec(name) is not None:
                    return None, True
            except ImportError:
                continue
    except ImportError:  # pragma: no cover - Python 2.7
        return None, None
    return None, False


def probe_jax():
    # type: () -> None
    import jax
    import jaxlib

    _report["version"] = jax.__version__
    _report["cuda_version"], _report["built_with_cuda"] = _jax_cuda(jax, jaxlib)
    _save("imported")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError as exc:  # "Unknown backend: 'gpu' requested ...", "Unable to initialize"
        _report["gpu_usable"] = False
        if _report["built_with_cuda"] is not False:
            _report["error"] = _error(exc)
        return
    _report["devices"] = [
        "%s:%d %s" % (d.platform, d.id, getattr(d, "device_kind", "")) for d in gpus
    ]
    _save("gpu op")
    import numpy as np

    a = jax.device_put(np.arange(16, dtype=np.float32).reshape(4, 4), gpus[0])
    checksum = float(jax.numpy.sum(jax.numpy.matmul(a, a.T)).block_until_ready())
    _checked(checksum)


def probe_cupy():
    # type: () -> None
    import cupy

    _report["version"] = cupy.__version__
    runtime = cupy.cuda.runtime
    _report["built_with_cuda"] = not getattr(runtime, "is_hip", False)
    _save("imported")
    try:
        _report["cuda_version"] = _cuda_text(int(runtime.runtimeGetVersion()))
        count = runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError: cudaErrorInsufficientDriver ...
        _report["gpu_usable"] = False
        _report["error"] = _error(exc)
        return
    names = []
    for i in range(count):
        name = runtime.getDeviceProperties(i)["name"]
        names.append("cuda:%d %s" % (i, name.decode() if isinstance(name, bytes) else name))
    _report["devices"] = names
    if not count:
        _report["gpu_usable"] = False
        return
    _save("gpu op")
    a = cupy.arange(16, dtype=cupy.float32).reshape(4, 4)
    checksum = float(cupy.matmul(a, a.T).sum().get())
    _checked(checksum)


PROBES = {"torch": probe_torch, "jax": probe_jax, "cupy": probe_cupy}


def main():
    # type: () -> None
    name = _report["name"]
    _save("starting")
    start = time.time()
    try:
        PROBES[str(name)]()
    except BaseException as exc:  # an import error, or the framework failing half-way
        _report["error"] = _error(exc)
        _report["traceback"] = traceback.format_exc()
        if _report.get("stage") == "gpu op":
            _report["gpu_usable"] = False
    _report["seconds"] = time.time() - start
    _save("done")


if __name__ == "__main__":
    sys.path = [
        p
        for p in sys.path
        if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))
    ]
    main()
