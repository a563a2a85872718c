"""Apply a GPU memory plan through tf.config, and verify it: used in-process by
``tf_gpucheck.configure_memory`` and, as a script, in the child that ``gpucheck configure-memory``
runs (plan as JSON in argv[1], report as JSON on stdout's last line).

Standard library and TensorFlow only; Python 3.8+.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

TOO_LATE = "cannot be modified after being initialized"


class TooLate(RuntimeError):
    """TensorFlow had already initialised its devices."""


def apply(tf: Any, plan: dict[str, Any]) -> None:
    """Apply ``plan`` (keys: growth, limits {index: MB}, virtual_mb [MB], gpus [index], cpu_devices, allocator)."""
    allocator = plan.get("allocator")
    if allocator:
        os.environ["TF_GPU_ALLOCATOR"] = allocator
    try:
        cpu_devices = plan.get("cpu_devices")
        if cpu_devices:
            cpus = tf.config.list_physical_devices("CPU")
            tf.config.set_logical_device_configuration(
                cpus[0], [tf.config.LogicalDeviceConfiguration() for _ in range(cpu_devices)]
            )
        gpus = tf.config.list_physical_devices("GPU")
        selected = gpus
        if plan.get("gpus") is not None:
            selected = [gpus[i] for i in plan["gpus"] if i < len(gpus)]
            tf.config.set_visible_devices(selected, "GPU")
        growth = plan.get("growth")
        limits = {int(k): v for k, v in (plan.get("limits") or {}).items()}
        virtual = plan.get("virtual_mb") or []
        for position, gpu in enumerate(selected):
            index = plan["gpus"][position] if plan.get("gpus") is not None else position
            if growth is not None:
                tf.config.experimental.set_memory_growth(gpu, bool(growth))
            if virtual:
                tf.config.set_logical_device_configuration(
                    gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=mb) for mb in virtual]
                )
            elif index in limits:
                tf.config.set_logical_device_configuration(
                    gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=limits[index])]
                )
    except (RuntimeError, ValueError) as exc:
        if TOO_LATE in str(exc):
            raise TooLate(str(exc)) from exc
        raise


def verify(tf: Any, release_probe: bool = False) -> dict[str, Any]:
    """List the logical devices, allocate 1 MiB on each, read get_memory_info where TF has it."""
    devices: list[dict[str, Any]] = []
    for device in tf.config.list_logical_devices():
        if device.device_type not in ("CPU", "GPU"):
            continue
        entry: dict[str, Any] = {
            "name": device.name,
            "device_type": device.device_type,
            "allocated": False,
            "current_bytes": None,
            "peak_bytes": None,
            "error": None,
        }
        try:
            with tf.device(device.name):
                block = tf.zeros((256, 1024), dtype=tf.float32)  # 1 MiB
                float(tf.reduce_sum(block).numpy())  # waits for the device
            entry["allocated"] = True
        except Exception as exc:
            entry["error"] = f"{type(exc).__name__}: {exc}"
        if device.device_type == "GPU":
            try:
                info = tf.config.experimental.get_memory_info(device.name)
                entry["current_bytes"], entry["peak_bytes"] = (
                    int(info["current"]),
                    int(info["peak"]),
                )
            except Exception as exc:
                entry["error"] = entry["error"] or f"get_memory_info: {exc}"
        devices.append(entry)
    report: dict[str, Any] = {"devices": devices, "release_probe": None}
    if release_probe:
        report["release_probe"] = _release_probe(tf, devices)
    return report


def _release_probe(tf: Any, devices: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """Build and run a small model on each GPU, delete it, and read what TensorFlow keeps."""
    import gc

    results = []
    for device in devices:
        if device["device_type"] != "GPU":
            continue
        name = device["name"]
        with tf.device(name):
            model = tf.keras.Sequential(
                [tf.keras.Input((1024,)), tf.keras.layers.Dense(4096), tf.keras.layers.Dense(10)]
            )
            model(tf.zeros((512, 1024)))
            during = int(tf.config.experimental.get_memory_info(name)["current"])
            del model
            gc.collect()
        after = int(tf.config.experimental.get_memory_info(name)["current"])
        results.append({"device": name, "during_bytes": during, "after_delete_bytes": after})
    return results


def main() -> None:
    plan = json.loads(sys.argv[1])
    result: dict[str, Any] = {"applied": False, "error": None, "too_late": False}
    try:
        import tensorflow as tf
    except ImportError as exc:
        result["error"] = f"import tensorflow failed: {exc}"
        print(json.dumps(result))
        return
    try:
        apply(tf, plan)
        result["applied"] = True
        result.update(verify(tf, bool(plan.get("release_probe"))))
    except TooLate as exc:
        result["too_late"] = True
        result["error"] = str(exc)
    except Exception as exc:
        result["error"] = f"{type(exc).__name__}: {exc}"
    print("\n" + json.dumps(result))


if __name__ == "__main__":
    main()
