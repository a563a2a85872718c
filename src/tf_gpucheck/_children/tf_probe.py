"""Import TensorFlow and report what it sees, as JSON written to the file named by argv[1].

Runs in the target interpreter with TF_CPP_MIN_LOG_LEVEL=0, so that TensorFlow's C++ start-up
log lands on stderr, which the parent keeps verbatim. The report is rewritten after every
stage: when TensorFlow crashes or hangs half-way, the parent still gets what was learnt
before. Standard library and TensorFlow only; written in the syntax of every Python a
TensorFlow 2.x release supported (2.7 and 3.5+).
"""

from __future__ import print_function

import os
import sys
import time
import traceback

try:  # only for the type comments; the typing module exists from Python 3.5
    from typing import Any, Dict, List, Optional
except ImportError:  # pragma: no cover - Python 2.7 without the typing backport
    Any = Dict = List = Optional = None  # type: ignore[assignment,misc]

sys.path.append(os.path.dirname(os.path.abspath(__file__)))  # the folder of this child, last
import _gpucheck_staged  # type: ignore[import-not-found]

_report = {"installed": None}  # type: Dict[str, Any]
_out_path = sys.argv[1] if len(sys.argv) > 1 else None  # type: Optional[str]
_clock = getattr(time, "perf_counter", time.time)


def _save(stage):
    # type: (str) -> None
    _gpucheck_staged.save(_report, _out_path, stage)


def _plain(value):
    # type: (Any) -> Any
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _short_error(exc):
    # type: (BaseException) -> str
    return ("%s: %s" % (type(exc).__name__, exc)).strip()


def _missing_module(exc):
    # type: (ImportError) -> Optional[str]
    name = getattr(exc, "name", None)  # Python 3.3+
    if name:
        return str(name)
    words = str(exc).split()  # Python 2.7: "No module named tensorflow"
    if str(exc).startswith("No module named") and words:
        return words[-1].strip("'\"")
    return None


def _config(tf, name):
    # type: (Any, str) -> Any
    """tf.config.NAME, or tf.config.experimental.NAME on TensorFlow 2.0."""
    return getattr(tf.config, name, None) or getattr(tf.config.experimental, name)


# build_info's module-level names before TensorFlow 2.3 added get_build_info()
_OLD_BUILD_NAMES = {
    "cuda_version_number": "cuda_version",
    "cudnn_version_number": "cudnn_version",
    "is_cuda_build": "is_cuda_build",
    "is_rocm_build": "is_rocm_build",
}


def _build_info(tf):
    # type: (Any) -> Any
    get = getattr(tf.sysconfig, "get_build_info", None)
    if get is not None:
        return _plain(dict(get()))
    from tensorflow.python.platform import build_info  # TensorFlow 2.0 to 2.2

    found = {}  # type: Dict[str, Any]
    for old, new in _OLD_BUILD_NAMES.items():
        if hasattr(build_info, old):
            found[new] = _plain(getattr(build_info, old))
    return found


def main():
    # type: () -> None
    _save("starting")
    start = _clock()
    try:
        import tensorflow as tf
    except ImportError as exc:  # ModuleNotFoundError from Python 3.6
        if _missing_module(exc) == "tensorflow":
            _report["installed"] = False
            _report["error"] = "TensorFlow is not installed in this Python"
        else:
            _report["installed"] = True
            _report["error"] = "import tensorflow failed: " + _short_error(exc)
            _report["traceback"] = traceback.format_exc()
        _save("import")
        return
    except BaseException as exc:  # TensorFlow raises all sorts at import time
        _report["installed"] = True
        _report["error"] = "import tensorflow failed: " + _short_error(exc)
        _report["traceback"] = traceback.format_exc()
        _save("import")
        return
    _report["installed"] = True
    _report["import_seconds"] = _clock() - start
    _report["version"] = getattr(tf, "__version__", None)
    _save("imported")

    try:
        _report["build_info"] = _build_info(tf)
    except Exception as exc:
        _report["build_info_error"] = _short_error(exc)
    try:
        _report["is_built_with_cuda"] = bool(tf.test.is_built_with_cuda())
    except Exception as exc:
        _report["is_built_with_cuda_error"] = _short_error(exc)
    _save("build_info")

    physical = _config(tf, "list_physical_devices")()
    _report["physical_devices"] = [{"name": d.name, "device_type": d.device_type} for d in physical]
    _save("physical_devices")

    details = []  # type: List[Dict[str, Any]]
    for device in physical:
        if device.device_type != "GPU":
            continue
        try:
            info = _plain(dict(tf.config.experimental.get_device_details(device)))
        except Exception as exc:
            info = {"error": _short_error(exc)}
        details.append({"device": device.name, "details": info})
    _report["device_details"] = details
    _save("device_details")

    try:
        logical = _config(tf, "list_logical_devices")()
    except Exception as exc:
        _report["error"] = "initialising TensorFlow's devices failed: " + _short_error(exc)
        _save("logical_devices")
        return
    _report["logical_devices"] = [{"name": d.name, "device_type": d.device_type} for d in logical]
    _save("logical_devices")

    ops = []  # type: List[Dict[str, Any]]
    _report["ops"] = ops
    for device in logical:
        if device.device_type not in ("CPU", "GPU"):
            continue
        if device.device_type == "CPU" and any(op["device"].endswith("CPU:0") for op in ops):
            continue
        result = {
            "device": device.name,
            "ok": False,
            "checksum": None,
            "seconds": None,
            "error": None,
        }
        ops.append(result)
        _save("op " + device.name)
        try:
            begin = _clock()
            with tf.device(device.name):
                values = tf.range(128 * 128, dtype=tf.float32) % 7.0 / 7.0
                a = tf.reshape(values, (128, 128))
                b = tf.transpose(a)
                product = tf.matmul(a, b)
                checksum = float(tf.reduce_sum(product).numpy())  # .numpy() waits for the device
            result["seconds"] = _clock() - begin
            result["checksum"] = checksum
            result["ok"] = True
        except Exception as exc:
            result["error"] = _short_error(exc)
        _save("op " + device.name)
    _save("done")
    # Every fact is in the report. TensorFlow's teardown at exit (a second or more of
    # destructors) would only make the parent wait: leave without it.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    try:
        main()
    except BaseException as exc:
        _report["error"] = "the TensorFlow probe failed: " + _short_error(exc)
        _report["traceback"] = traceback.format_exc()
        _save("failed")
