"""`gpucheck matrix`: the compatibility table and the recommendation."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tf_gpucheck._numbers import is_whole_number
from tf_gpucheck.installer.recommend import Recommendation
from tf_gpucheck.matrix import Matrix, TfRelease
from tf_gpucheck.render.console import Command
from tf_gpucheck.render.format import text


def _cc(value: str) -> str:
    digits = "".join(ch for ch in value if is_whole_number(ch))
    return f"{digits[:-1]}.{digits[-1]}" if len(digits) >= 2 else value


def row_to_data(row: TfRelease, matrix: Matrix) -> dict[str, Any]:
    caps = row.compute_capabilities
    cuda = matrix.cuda_release(row.cuda) if row.cuda else None
    return {
        "tensorflow": row.version,
        "python": row.python,
        "cuda": row.cuda,
        "cudnn": row.cudnn,
        "compute_capabilities": [_cc(c) for c in caps.sass] if caps else None,
        "ptx": [_cc(c) for c in caps.ptx] if caps else None,
        "min_driver_linux": cuda.min_driver_linux if cuda else None,
        "min_driver_windows": cuda.min_driver_windows if cuda else None,
        "windows_native_cuda": row.windows_native_cuda,
        "windows_native_cudnn": row.windows_native_cudnn,
        "and_cuda": list(row.and_cuda) if row.and_cuda is not None else None,
        "sources": [matrix.sources[s] for s in row.source],
    }


def render_matrix(rows: list[TfRelease], matrix: Matrix) -> RenderableType:
    table = Table(header_style="heading", box=None, pad_edge=False)
    for column in (
        "TensorFlow",
        "Python",
        "CUDA",
        "cuDNN",
        "min driver (Linux)",
        "kernels (sm)",
        "PTX",
        "Windows native",
    ):
        table.add_column(column, overflow="fold")
    for row in rows:
        data = row_to_data(row, matrix)
        windows = (
            f"CUDA {row.windows_native_cuda}, cuDNN {row.windows_native_cudnn}"
            if row.windows_native_cuda
            else "—"
        )
        table.add_row(
            row.version,
            row.python,
            text(row.cuda),
            text(row.cudnn),
            text(data["min_driver_linux"]),
            text(" ".join(data["compute_capabilities"] or []) or None),
            text(" ".join(data["ptx"] or []) or None),
            windows,
        )
    note = Text(
        "sources: compat_matrix.yaml (every row cites TensorFlow's tested build table, "
        "the released wheels and NVIDIA's release notes); --json for all of it",
        style="muted",
    )
    return Group(table, Text(""), note)


def recommendation_to_data(rec: Recommendation) -> dict[str, Any]:
    return {
        "tensorflow": rec.release.version if rec.release else None,
        "cuda": rec.release.cuda if rec.release else None,
        "cudnn": rec.release.cudnn if rec.release else None,
        "command": rec.command,
        "driver_upgrade": rec.driver_upgrade,
        "python_upgrade": rec.python_upgrade,
        "reasons": list(rec.reasons),
    }


def render_recommendation(rec: Recommendation) -> RenderableType:
    lines: list[RenderableType] = []
    if rec.release is not None:
        head = Text("Install TensorFlow ", style="heading")
        head.append(
            f"{rec.release.version} (CUDA {rec.release.cuda}, cuDNN {rec.release.cudnn})",
            style="ok",
        )
        lines.append(head)
    elif rec.command is None:
        lines.append(
            Text("No TensorFlow release will use this machine's GPU as it is.", style="fail")
        )
    if rec.command:
        lines.append(Command(rec.command, indent=2))
    if rec.driver_upgrade:
        lines.append(Text(f"NVIDIA driver: install {rec.driver_upgrade} or newer", style="warn"))
    if rec.python_upgrade:
        lines.append(
            Text(f"Python: install {rec.python_upgrade} for the newest TensorFlow", style="warn")
        )
    for reason in rec.reasons:
        lines.append(Text(f"- {reason}", style="muted"))
    return Group(*lines)
