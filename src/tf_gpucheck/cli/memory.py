"""`gpucheck configure-memory`."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from tf_gpucheck.cli._options import (
    FromOption,
    JsonOption,
    PythonOption,
    TimeoutOption,
    option,
    snapshot_for,
    target_for,
)
from tf_gpucheck.errors import ExitCode, GpucheckError

if TYPE_CHECKING:
    from tf_gpucheck.memory import MemoryPlan


def configure_memory(
    ctx: typer.Context,
    growth: Annotated[
        bool | None,
        option(
            "--growth/--no-growth", "Let TensorFlow grow its GPU memory instead of taking it all."
        ),
    ] = None,
    limit: Annotated[
        str | None,
        option(
            "--limit", "Hard limit in MB for every GPU, or per GPU as 0:4096,1:8192.", metavar="MB"
        ),
    ] = None,
    virtual: Annotated[
        str | None,
        option(
            "--virtual",
            "Split each selected GPU into logical GPUs of these sizes.",
            metavar="MB,MB",
        ),
    ] = None,
    gpus: Annotated[
        str | None, option("--gpus", "Only these GPUs are visible to TensorFlow.", metavar="0,1")
    ] = None,
    cpu_devices: Annotated[
        int | None,
        option(
            "--cpu-devices",
            "Split the CPU into N logical devices (MirroredStrategy without GPUs).",
            metavar="N",
        ),
    ] = None,
    allocator: Annotated[
        str | None, option("--allocator", "TF_GPU_ALLOCATOR: cuda_malloc_async.", metavar="NAME")
    ] = None,
    emit: Annotated[
        str | None,
        option(
            "--emit", "Print how to persist it (python or env) and exit: a dry run.", metavar="KIND"
        ),
    ] = None,
    release_probe: Annotated[
        bool,
        option(
            "--release-probe",
            "Also show how much memory TensorFlow keeps after a model is deleted.",
        ),
    ] = False,
    json_output: JsonOption = False,
    python: PythonOption = None,
    source: FromOption = None,
    timeout: TimeoutOption = 120.0,
) -> int:
    """Set GPU memory growth, limits and virtual GPUs; apply them in a fresh TensorFlow process and prove they took. Exit 0: applied and verified (or only emitted); 1: no GPU to configure, or the plan did not apply; 2: bad input."""
    from tf_gpucheck import memory
    from tf_gpucheck.checks.facts import no_gpu_reason, visible_gpus

    plan = memory.plan_from_flags(
        growth=growth,
        limit=limit,
        virtual=virtual,
        gpus=gpus,
        cpu_devices=cpu_devices,
        allocator=allocator,
    )
    if not plan.touches_gpus and not plan.cpu_devices:
        raise GpucheckError(
            "nothing to configure",
            reference="memory-plan-empty",
            hint="give --growth, --limit, --virtual, --gpus, --cpu-devices or --allocator",
        )
    if emit is not None:
        return _emit(plan, emit, json_output)
    snapshot = snapshot_for(ctx, source, python, timeout, tf=False, installer=False)
    visible, _ = visible_gpus(snapshot)
    code = 0
    reason = no_gpu_reason(snapshot)
    if plan.touches_gpus and reason is not None:
        sys.stderr.write(f"gpucheck: no GPU to configure: {reason}\n")
        if not plan.cpu_devices:
            return int(ExitCode.FAILURE)
        plan = memory.make_plan(cpu_devices=plan.cpu_devices)
        code = int(ExitCode.FAILURE)
    indices = memory.validate_against(plan, snapshot) if plan.touches_gpus else []
    result = memory.apply_in_child(
        plan, indices, target_for(python).python, timeout, release_probe=release_probe
    )
    selected = [g for g in visible if g.index in indices]
    if json_output:
        from tf_gpucheck._codec import to_data

        sys.stdout.write(
            json.dumps(
                {"schema_version": 1, "plan": to_data(plan), "result": to_data(result)}, indent=2
            )
            + "\n"
        )
    else:
        from tf_gpucheck.render.console import make_console
        from tf_gpucheck.render.format import target_header
        from tf_gpucheck.render.memory import render_result

        console = make_console()
        console.print(target_header(snapshot.target, source))
        console.print(render_result(result, selected))
    return code if result.applied else int(ExitCode.FAILURE)


def _emit(plan: MemoryPlan, kind: str, json_output: bool) -> int:
    from tf_gpucheck import memory

    if kind == "python":
        sys.stdout.write(memory.emit_python(plan))
        return 0
    if kind == "env":
        env, missing = memory.emit_env(plan)
        if json_output:
            sys.stdout.write(
                json.dumps({"env": env, "no_environment_variable": missing}, indent=2) + "\n"
            )
            return 0
        for name, value in env.items():
            sys.stdout.write(f"export {name}={value}\n")
        for item in missing:
            sys.stdout.write(f"# no environment variable for the {item}\n")
        return 0
    raise GpucheckError(f"--emit {kind!r}: expected python or env", reference="emit-unknown")
