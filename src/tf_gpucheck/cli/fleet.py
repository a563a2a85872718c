"""`gpucheck fleet`."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from tf_gpucheck.cli._options import (
    FormatOption,
    Gate,
    JsonOption,
    JunitOption,
    MatrixOption,
    RedactOption,
    chosen_format,
    option,
    progress,
    with_gate,
    write_file,
)
from tf_gpucheck.errors import GpucheckError


@with_gate
def fleet(
    ctx: typer.Context,
    gate: Gate,
    paths: Annotated[
        list[str] | None, typer.Argument(metavar="PATH", show_default=False, hidden=True)
    ] = None,
    json_output: JsonOption = False,
    output_format: FormatOption = "text",
    verbose: Annotated[
        bool, option("--verbose", "Show every attribute, also those all agree on.", short="-v")
    ] = False,
    junit: JunitOption = None,
    ray: Annotated[
        bool,
        option(
            "--ray",
            "Collect the snapshots from every alive node of a Ray cluster (pip install "
            "'tf_gpucheck[ray]'), then judge them here.",
        ),
    ] = False,
    node_timeout: Annotated[
        float,
        option(
            "--node-timeout",
            "With --ray: a node that has not answered by then is reported as such.",
            min=1.0,
            metavar="SECONDS",
        ),
    ] = 180.0,
    no_tf: Annotated[
        bool, option("--no-tf", "With --ray: probe without importing TensorFlow (fast).")
    ] = False,
    matrix_file: MatrixOption = None,
    redact: RedactOption = False,
) -> int:
    """Judge many nodes at once: nodes per verdict, grouped by first cause with the fix, the odd ones out. PATH: `gpucheck detect --json` snapshots or `gpucheck doctor --json` reports (files, directories of *.json, glob patterns); with --ray, the cluster's address (default: RAY_ADDRESS, else the local cluster). Exit 0: every node passes; 1: a node fails; 2: bad input (an unreadable file)."""
    from tf_gpucheck.__about__ import __version__
    from tf_gpucheck.fleet import judge_fleet, read_inputs
    from tf_gpucheck.matrix import load_matrix

    fmt = chosen_format(json_output, output_format)
    matrix = load_matrix(matrix_file)
    if ray:
        if paths and len(paths) > 1:
            raise GpucheckError(
                "--ray takes one cluster address, not paths",
                reference="usage",
                hint="gpucheck fleet --ray [ADDRESS]",
            )
        from tf_gpucheck.fleet.ray_collect import collect_from_ray

        with progress(True) as say:
            inputs = collect_from_ray(
                paths[0] if paths else None,
                node_timeout_s=node_timeout,
                include_tensorflow=not no_tf,
                progress=say,
            )
    else:
        if not paths:
            raise GpucheckError(
                "no snapshots given",
                reference="usage",
                hint="gpucheck fleet DIR  # of `gpucheck detect --json` files, or --ray",
            )
        inputs = read_inputs(paths)
    if not inputs:
        raise GpucheckError("no node to judge", reference="fleet-empty")
    report = judge_fleet(
        inputs,
        matrix,
        requirements=gate.requirements if gate.requirements.any else None,
        allow_cpu=gate.allow_cpu,
        strict=gate.strict,
        redact=redact,
    )
    from tf_gpucheck.render import fleet as render

    if junit is not None:
        write_file(junit, render.fleet_to_junit(report))
    for node in report.nodes:
        if node.origin == "unreadable":
            sys.stderr.write(f"gpucheck: error: {node.source}: {node.problem}\n")
    if fmt == "json":
        data = render.fleet_to_data(report, gpucheck_version=__version__)
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    elif fmt == "markdown":
        sys.stdout.write(render.fleet_to_markdown(report, title=f"gpucheck fleet ({__version__})"))
    else:
        from tf_gpucheck.render.console import emit, make_console

        emit(make_console(), render.render_fleet(report, verbose=verbose))
    return report.exit_code
