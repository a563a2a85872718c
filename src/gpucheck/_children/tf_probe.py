"""Import TensorFlow and report what it sees, as JSON written to the file named by argv[1].

Runs in the target interpreter with TF_CPP_MIN_LOG_LEVEL=0, so that TensorFlow's C++ start-up
log lands on stderr, which the parent keeps verbatim. The report is rewritten after every
stage: when TensorFlow crashes or hangs half-way, the parent still gets what was learnt
before. Standard library and TensorFlow only; Python 3.8+.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from typing import Any

_report: dict[str, Any] = {"installed": None}
_out_path: str | None = sys.argv[1] if len(sys.argv) > 1 else None


def _save(stage: str) -> None:
    _report["stage"] = stage
    if _out_path is None:
        return
    tmp = _out_path + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(_report, handle, default=str)
    os.replace(tmp, _out_path)


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _short_error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".strip()


def main() -> None:
    _save("starting")
    start = time.perf_counter()
    try:
        import tensorflow as tf
    except ModuleNotFoundError as exc:
        if exc.name == "tensorflow":
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
    _report["import_seconds"] = time.perf_counter() - start
    _report["version"] = getattr(tf, "__version__", None)
    _save("imported")

    try:
        _report["build_info"] = _plain(dict(tf.sysconfig.get_build_info()))
    except Exception as exc:
        _report["build_info_error"] = _short_error(exc)
    try:
        _report["is_built_with_cuda"] = bool(tf.test.is_built_with_cuda())
    except Exception as exc:
        _report["is_built_with_cuda_error"] = _short_error(exc)
    _save("build_info")

    physical = tf.config.list_physical_devices()
    _report["physical_devices"] = [{"name": d.name, "device_type": d.device_type} for d in physical]
    _save("physical_devices")

    details: list[dict[str, Any]] = []
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
        logical = tf.config.list_logical_devices()
    except Exception as exc:
        _report["error"] = "initialising TensorFlow's devices failed: " + _short_error(exc)
        _save("logical_devices")
        return
    _report["logical_devices"] = [{"name": d.name, "device_type": d.device_type} for d in logical]
    _save("logical_devices")

    ops: list[dict[str, Any]] = []
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
            begin = time.perf_counter()
            with tf.device(device.name):
                values = tf.range(128 * 128, dtype=tf.float32) % 7.0 / 7.0
                a = tf.reshape(values, (128, 128))
                b = tf.transpose(a)
                product = tf.matmul(a, b)
                checksum = float(tf.reduce_sum(product).numpy())  # .numpy() waits for the device
            result["seconds"] = time.perf_counter() - begin
            result["checksum"] = checksum
            result["ok"] = True
        except Exception as exc:
            result["error"] = _short_error(exc)
        _save("op " + device.name)
    _save("done")


if __name__ == "__main__":
    try:
        main()
    except BaseException as exc:
        _report["error"] = "the TensorFlow probe failed: " + _short_error(exc)
        _report["traceback"] = traceback.format_exc()
        _save("failed")
