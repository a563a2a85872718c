"""`gpucheck matrix`."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from tf_gpucheck.cli._options import (
    FromOption,
    JsonOption,
    MatrixOption,
    PythonOption,
    option,
    snapshot_for,
)
from tf_gpucheck.errors import ExitCode, GpucheckError


def matrix(
    ctx: typer.Context,
    tf: Annotated[
        str | None, option("--tf", "Only this TensorFlow release (2.15).", metavar="VERSION")
    ] = None,
    cuda: Annotated[
        str | None,
        option("--cuda", "Only releases built with this CUDA (12.2).", metavar="VERSION"),
    ] = None,
    json_output: JsonOption = False,
    recommend: Annotated[
        bool,
        option(
            "--recommend",
            "What to install on this machine: the newest TensorFlow that will use its GPU.",
        ),
    ] = False,
    python: PythonOption = None,
    source: FromOption = None,
    matrix_file: MatrixOption = None,
) -> None:
    """The TensorFlow / Python / CUDA / cuDNN / compute capability / driver table, with its sources. Exit 0: rows shown; 1: no row matches; 2: bad input."""
    from tf_gpucheck.matrix import load_matrix
    from tf_gpucheck.render import matrix as render
    from tf_gpucheck.render.console import emit, make_console

    if not recommend and (source is not None or python is not None):
        given = "--from" if source is not None else "--python"
        raise GpucheckError(
            f"{given} names an environment, and only --recommend reads one",
            reference="options-conflict",
            hint=f"gpucheck matrix --recommend {given} ...  # what to install there",
        )
    table = load_matrix(matrix_file)
    if recommend:
        from tf_gpucheck.installer.recommend import recommend as recommend_for

        snapshot = snapshot_for(ctx, source, python, 60.0, tf=False, installer=False)
        rec = recommend_for(snapshot, table)
        if json_output:
            sys.stdout.write(json.dumps(render.recommendation_to_data(rec), indent=2) + "\n")
        else:
            from tf_gpucheck.render.format import target_header

            console = make_console()
            console.print(target_header(snapshot.target, source))
            emit(console, render.render_recommendation(rec))
        return
    rows = table.select(tf=tf, cuda=cuda)
    if not rows:
        raise GpucheckError(
            "no row matches the filter",
            reference="matrix-no-match",
            hint="gpucheck matrix  # lists every row",
            exit_code=ExitCode.FAILURE,
        )
    if json_output:
        sys.stdout.write(json.dumps([render.row_to_data(r, table) for r in rows], indent=2) + "\n")
        return
    make_console().print(render.render_matrix(rows, table))
