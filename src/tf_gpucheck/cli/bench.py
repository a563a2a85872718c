"""`gpucheck benchmark` (alias `gpucheck bench`)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from tf_gpucheck.cli._options import (
    JsonOption,
    PythonOption,
    bar_progress,
    option,
    snapshot_for,
    target_for,
    write_file,
)
from tf_gpucheck.errors import ExitCode


def benchmark(
    ctx: typer.Context,
    workload: Annotated[
        list[str] | None,
        option(
            "--workload",
            "mlp, cnn or matmul (repeatable; default mlp and cnn).",
            short="-w",
            metavar="NAME",
        ),
    ] = None,
    device: Annotated[str, option("--device", "cpu, gpu or all.", metavar="DEVICE")] = "all",
    backend: Annotated[
        str,
        option(
            "--backend",
            "Keras backend: tensorflow, jax, torch, or all (those installed; the others are "
            "skipped with the reason).",
            metavar="NAME",
        ),
    ] = "tensorflow",
    batch_size: Annotated[
        int | None, option("--batch-size", "Samples per step (default 128).", metavar="N")
    ] = None,
    steps: Annotated[
        int | None, option("--steps", "Steps per timed window (default 50).", metavar="N")
    ] = None,
    repeats: Annotated[
        int | None, option("--repeats", "Timed windows (default 5).", metavar="N")
    ] = None,
    mixed_precision: Annotated[
        str | None,
        option("--mixed-precision", "mixed_float16 or mixed_bfloat16.", metavar="POLICY"),
    ] = None,
    xla: Annotated[
        bool | None, option("--xla/--no-xla", "Force jit_compile on or off (default: Keras' auto).")
    ] = None,
    quick: Annotated[
        bool,
        option("--quick", "The smallest honest run: 3 windows of 30 steps after 10 warm-up steps."),
    ] = False,
    sweep: Annotated[
        bool,
        option(
            "--sweep",
            "Batch sizes 32..4096: where the GPU overtakes the CPU, where throughput stops growing.",
        ),
    ] = False,
    strategy: Annotated[
        str | None,
        option(
            "--strategy",
            "mirrored: also run under MirroredStrategy on all devices and report scaling.",
            metavar="NAME",
        ),
    ] = None,
    cpu_devices: Annotated[
        int | None,
        option(
            "--cpu-devices",
            "With --strategy mirrored: split the CPU into N logical devices.",
            metavar="N",
        ),
    ] = None,
    json_output: JsonOption = False,
    baseline: Annotated[
        str | None,
        option(
            "--baseline",
            "Fail (exit 1) when a workload got slower than this earlier --output "
            "(compared as a share of each run's matmul ceiling).",
            metavar="FILE",
        ),
    ] = None,
    tolerance: Annotated[
        str, option("--tolerance", "Allowed slowdown against --baseline (10%).", metavar="SHARE")
    ] = "10%",
    output: Annotated[
        str | None, option("--output", "Also write the JSON results to FILE.", metavar="FILE")
    ] = None,
    python: PythonOption = None,
    timeout: Annotated[
        float,
        option(
            "--timeout", "Give up on one device's run after this long.", min=1.0, metavar="SECONDS"
        ),
    ] = 900.0,
) -> int:
    """How much faster the GPU trains a Keras model than the CPU, on each Keras backend: warm-up excluded, repeated windows, median and spread. Exit 0: measured; 1: no device could run, or slower than --baseline; 2: bad input."""
    from tf_gpucheck import bench

    plan = bench.make_plan(
        workloads=workload,
        device=device,
        batch_size=batch_size,
        steps=steps,
        repeats=repeats,
        mixed_precision=mixed_precision,
        xla=xla,
        quick=quick,
        sweep=sweep,
        strategy=strategy,
        cpu_devices=cpu_devices,
        backend=backend,
    )
    allowed = bench.parse_tolerance(tolerance)
    previous = bench.load_baseline(baseline) if baseline is not None else None
    snapshot = snapshot_for(ctx, None, python, 60.0, tf=False, installer=False)
    gpu_reason = {b: bench.gpu_unavailable_reason(snapshot, b) for b in plan.backends}
    with bar_progress() as progress:
        result = bench.run(
            plan,
            snapshot,
            gpu_reason=gpu_reason,
            python=target_for(python).python,
            timeout_s=timeout,
            progress=progress,
        )
    data = result.to_data()
    if output:
        write_file(output, json.dumps(data, indent=2) + "\n")
    if json_output:
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        from tf_gpucheck.render.bench import render_report
        from tf_gpucheck.render.console import make_console
        from tf_gpucheck.render.format import target_header

        console = make_console()
        console.print(target_header(snapshot.target))
        console.print(render_report(result))
    ran = [r for r in result.results if r.status == "ok"]
    if previous is not None:
        regressions = bench.compare(result, previous, allowed)
        sys.stderr.write(
            "gpucheck: compared with the baseline in ceiling-normalised throughput (each model's "
            "GFLOP/s over the matmul GFLOP/s measured around its own timed windows), so a busy or "
            "throttled machine is not a regression\n"
        )
        for change in bench.ceiling_changes(result, previous):
            sys.stderr.write(f"gpucheck: matmul ceiling {change}\n")
        for item in regressions:
            if item.measure == "samples_per_s":
                figures = "no ceiling in one of the runs: compared in samples/s"
            else:
                figures = f"{item.current:.1%} of the ceiling vs {item.baseline:.1%}"
            sys.stderr.write(
                f"gpucheck: slower than the baseline: {item.backend}/{item.device}/{item.workload} "
                f"{item.current_samples_per_s:,.0f} samples/s vs {item.baseline_samples_per_s:,.0f}, "
                f"{figures} ({item.change:+.1%}, tolerance {allowed:.0%})\n"
            )
        if regressions:
            return int(ExitCode.FAILURE)
    return 0 if ran else int(ExitCode.FAILURE)
