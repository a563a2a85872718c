"""`gpucheck detect`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from tf_gpucheck.cli._options import (
    CwdOption,
    JsonOption,
    PythonOption,
    RedactOption,
    TimeoutOption,
    option,
    snapshot_for,
)


def detect(
    ctx: typer.Context,
    json_output: JsonOption = False,
    no_tf: Annotated[bool, option("--no-tf", "Skip the TensorFlow child process (fast).")] = False,
    python: PythonOption = None,
    timeout: TimeoutOption = 120.0,
    redact: RedactOption = False,
    cwd: CwdOption = None,
) -> None:
    """Show what is here: system, NVIDIA driver and GPUs, CUDA libraries, TensorFlow's build and devices. Exit 0: shown; 2: bad input; 130: interrupted."""
    snapshot = snapshot_for(
        ctx, None, python, timeout, tf=not no_tf, redact=redact, cwd=cwd, installer=not no_tf
    )
    if json_output:
        sys.stdout.write(snapshot.to_json() + "\n")
        return
    from tf_gpucheck.render.console import make_console
    from tf_gpucheck.render.detect import render_snapshot
    from tf_gpucheck.render.format import target_header

    console = make_console()
    console.print(target_header(snapshot.target))
    console.print(render_snapshot(snapshot))
