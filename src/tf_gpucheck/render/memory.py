"""`gpucheck configure-memory`: what was applied and what TensorFlow shows for it."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tf_gpucheck.memory import MemoryResult
from tf_gpucheck.render.format import human_bytes, text
from tf_gpucheck.snapshot import NvmlGpu


def render_result(result: MemoryResult, gpus: list[NvmlGpu]) -> RenderableType:
    if not result.applied:
        return Text(f"not applied: {result.error}", style="fail")
    table = Table(box=None, pad_edge=False, header_style="muted")
    for column in ("logical device", "1 MiB allocation", "TensorFlow current / peak"):
        table.add_column(column, overflow="fold")
    for device in result.devices:
        if device.allocated:
            allocation = Text("ok", style="ok")
        else:
            allocation = Text(f"failed: {device.error}", style="fail")
        memory = (
            f"{human_bytes(device.current_bytes)} / {human_bytes(device.peak_bytes)}"
            if device.current_bytes is not None
            else "— (TensorFlow reports memory for GPUs only)"
        )
        table.add_row(text(device.name), allocation, memory)
    parts: list[RenderableType] = [
        Text("applied in a fresh TensorFlow process; it created:", style="ok"),
        table,
    ]
    if result.release_probe:
        probe = Table(box=None, pad_edge=False, header_style="muted")
        for column in ("device", "with a model", "after `del model`"):
            probe.add_column(column)
        for item in result.release_probe:
            probe.add_row(
                item.device, human_bytes(item.during_bytes), human_bytes(item.after_delete_bytes)
            )
        parts += [
            Text(
                "\nrelease probe: TensorFlow keeps freed memory in its pool until the process exits",
                style="muted",
            ),
            probe,
        ]
    for gpu in gpus:
        others = sum(p.used_memory_bytes or 0 for p in gpu.processes)
        parts.append(
            Text(
                f"GPU {gpu.index} {gpu.name}: {len(gpu.processes)} other process(es) hold "
                f"{human_bytes(others)} of {human_bytes(gpu.memory_total_bytes)} (NVML)",
                style="muted",
            )
        )
    return Group(*parts)
