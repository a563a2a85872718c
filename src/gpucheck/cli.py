"""The gpucheck command line: wiring only. Commands import their domain code inside the function,
so that ``gpucheck --help`` stays fast and never imports TensorFlow or NVML.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gpucheck.__about__ import __version__
from gpucheck._numbers import is_whole_number
from gpucheck.errors import ExitCode, GpucheckError

if TYPE_CHECKING:
    from gpucheck.memory import MemoryPlan
    from gpucheck.probes import Probes
    from gpucheck.snapshot import Snapshot

EXIT_CODES_HELP = (
    "Exit codes: 0 ok; 1 a check failed or no usable GPU; 2 bad usage or input; "
    "130 interrupted (Ctrl-C)."
)


@dataclass
class CliEnvironment:
    """What the commands reach the machine through; tests pass their own (``main(obj=...)``)."""

    probes_factory: Callable[[str | None], Probes]


def _live_probes(python: str | None) -> Probes:
    from gpucheck.probes import LiveProbes

    return LiveProbes(python)


app = typer.Typer(
    name="gpucheck",
    help="Does TensorFlow see your NVIDIA GPU? If not: why, and the exact fix.",
    epilog=EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"gpucheck {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print gpucheck's version and exit.",
            callback=_version_callback,
            is_eager=True,
        ),
    ] = False,
) -> None:
    if not isinstance(ctx.obj, CliEnvironment):
        ctx.obj = CliEnvironment(probes_factory=_live_probes)


def _environment(ctx: typer.Context) -> CliEnvironment:
    env = ctx.obj
    assert isinstance(env, CliEnvironment)
    return env


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[str], None]]:
    """A spinner on stderr while the probes run; silent when stderr is not a terminal."""
    from gpucheck.render.console import make_console

    console = make_console(stderr=True)
    if not enabled or not console.is_terminal:
        yield lambda _message: None
        return
    with console.status("probing") as status:
        yield status.update


PythonOption = Annotated[
    str | None,
    typer.Option(
        "--python",
        metavar="PATH",
        help="Diagnose this interpreter's environment (its packages and its TensorFlow).",
    ),
]
TimeoutOption = Annotated[
    float,
    typer.Option(
        "--timeout",
        min=1.0,
        metavar="SECONDS",
        help="Give up on the TensorFlow child after this long.",
    ),
]
RedactOption = Annotated[
    bool,
    typer.Option(
        "--redact",
        help="Mask host and user names, home paths, GPU UUIDs and secret-looking values.",
    ),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print JSON on stdout (progress goes to stderr).")
]


@app.command()
def detect(
    ctx: typer.Context,
    json_output: JsonOption = False,
    no_tf: Annotated[
        bool, typer.Option("--no-tf", help="Skip the TensorFlow child process (fast).")
    ] = False,
    python: PythonOption = None,
    timeout: TimeoutOption = 120.0,
    redact: RedactOption = False,
) -> None:
    """Show what is here: system, NVIDIA driver and GPUs, CUDA libraries, TensorFlow's build and devices."""
    snapshot = _snapshot(ctx, None, python, timeout, tf=not no_tf, redact=redact)
    if json_output:
        sys.stdout.write(snapshot.to_json() + "\n")
        return
    from gpucheck.render.console import make_console
    from gpucheck.render.detect import render_snapshot

    make_console().print(render_snapshot(snapshot))


MatrixOption = Annotated[
    str | None,
    typer.Option(
        "--matrix", metavar="FILE", help="Use this compat_matrix.yaml instead of the shipped one."
    ),
]
FromOption = Annotated[
    str | None,
    typer.Option(
        "--from",
        metavar="FILE",
        help="Judge a snapshot written by `gpucheck detect --json` instead of probing.",
    ),
]


def _snapshot(
    ctx: typer.Context,
    source: str | None,
    python: str | None,
    timeout: float,
    *,
    tf: bool,
    redact: bool = False,
) -> Snapshot:
    from gpucheck.probes import collect_snapshot, resolve_python
    from gpucheck.snapshot import load_snapshot

    if source is not None:
        snapshot = load_snapshot(source)
    else:
        probes = _environment(ctx).probes_factory(resolve_python(python))
        with _progress(True) as progress:
            snapshot = collect_snapshot(
                probes, include_tensorflow=tf, timeout_s=timeout, progress=progress
            )
    if redact:
        from gpucheck.redact import redact as mask

        snapshot = mask(snapshot)
    return snapshot


@app.command()
def doctor(
    ctx: typer.Context,
    json_output: JsonOption = False,
    output_format: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help="text, json or markdown (a report to paste into an issue).",
        ),
    ] = "text",
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Show the evidence and fix of every check.")
    ] = False,
    list_checks: Annotated[bool, typer.Option("--list", help="List the checks and exit.")] = False,
    checks: Annotated[
        list[str] | None,
        typer.Option("--check", metavar="ID", help="Run only this check (repeatable)."),
    ] = None,
    python: PythonOption = None,
    source: FromOption = None,
    allow_cpu: Annotated[
        bool,
        typer.Option(
            "--allow-cpu", help="No usable GPU is a warning, not a failure (CPU-only runners)."
        ),
    ] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail too (exit 1).")] = False,
    timeout: TimeoutOption = 120.0,
    matrix_file: MatrixOption = None,
    require_gpu: Annotated[
        bool, typer.Option("--require-gpu", help="Fail unless TensorFlow can use a GPU.")
    ] = False,
    min_gpus: Annotated[
        int | None,
        typer.Option(
            "--min-gpus", metavar="N", min=1, help="Fail unless TensorFlow can use N GPUs."
        ),
    ] = None,
    min_compute_capability: Annotated[
        str | None,
        typer.Option(
            "--min-compute-capability", metavar="X.Y", help="Fail if a visible GPU is below X.Y."
        ),
    ] = None,
    min_free_memory: Annotated[
        str | None,
        typer.Option(
            "--min-free-memory",
            metavar="SIZE",
            help="Fail if a visible GPU has less free memory (8GiB).",
        ),
    ] = None,
    expect_tf: Annotated[
        str | None,
        typer.Option(
            "--expect-tf", metavar="PATTERN", help='Fail unless TensorFlow matches ("2.16.*").'
        ),
    ] = None,
    expect_cuda: Annotated[
        str | None,
        typer.Option(
            "--expect-cuda",
            metavar="PATTERN",
            help='Fail unless TensorFlow\'s CUDA matches ("12.*").',
        ),
    ] = None,
    redact: RedactOption = False,
    junit: Annotated[
        str | None,
        typer.Option(
            "--junit",
            metavar="FILE",
            help="Also write a JUnit XML report (one testcase per check).",
        ),
    ] = None,
) -> int:
    """Run every check and give one verdict with the first thing to fix. Exit 0: no failure; 1: a check failed; 2: bad input."""
    from gpucheck.doctor import run_checks, select_checks
    from gpucheck.doctor.checks import REGISTRY
    from gpucheck.matrix import load_matrix

    if list_checks:
        for item in REGISTRY:
            typer.echo(f"{item.id:<20} {item.title}")
        return 0
    fmt = "json" if json_output else output_format
    if fmt not in ("text", "json", "markdown"):
        raise GpucheckError(
            f"--format {fmt!r}: expected text, json or markdown", reference="format-unknown"
        )
    from gpucheck.render import doctor as render

    select_checks(checks)  # reject an unknown --check before the probes run
    if matrix_file is not None:
        load_matrix(matrix_file)  # a bad --matrix is reported before any probing
    # The shipped matrix loads while the probes run (the TensorFlow child dominates the wall time).
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        matrix_future = pool.submit(load_matrix, matrix_file)
        snapshot = _snapshot(ctx, source, python, timeout, tf=True, redact=redact)
        matrix = matrix_future.result()
    from gpucheck.doctor.requirements import (
        Requirements,
        parse_capability,
        parse_pattern,
        parse_size,
    )

    requirements = Requirements(
        require_gpu=require_gpu,
        min_gpus=min_gpus,
        min_compute_capability=parse_capability("--min-compute-capability", min_compute_capability)
        if min_compute_capability is not None
        else None,
        min_free_memory_bytes=parse_size("--min-free-memory", min_free_memory)
        if min_free_memory is not None
        else None,
        expect_tf=parse_pattern("--expect-tf", expect_tf) if expect_tf is not None else None,
        expect_cuda=parse_pattern("--expect-cuda", expect_cuda)
        if expect_cuda is not None
        else None,
    )
    report = run_checks(
        snapshot,
        matrix,
        checks=checks,
        allow_cpu=allow_cpu,
        strict=strict,
        requirements=requirements,
    )
    if junit is not None:
        _write(junit, render.report_to_junit(report))
    if os.environ.get("GITHUB_ACTIONS") == "true":
        sys.stderr.write(render.report_to_annotations(report))
    if fmt == "json":
        meta = {"created_at": snapshot.created_at, "gpucheck_version": snapshot.gpucheck_version}
        sys.stdout.write(
            json.dumps(render.report_to_data(report, snapshot_meta=meta), indent=2) + "\n"
        )
    elif fmt == "markdown":
        sys.stdout.write(
            render.report_to_markdown(
                report, title=f"gpucheck doctor ({snapshot.gpucheck_version})"
            )
        )
    else:
        from gpucheck.render.console import make_console

        make_console().print(render.render_report(report, verbose=verbose))
    return report.exit_code


@app.command()
def matrix(
    ctx: typer.Context,
    tf: Annotated[
        str | None,
        typer.Option("--tf", metavar="VERSION", help="Only this TensorFlow release (2.15)."),
    ] = None,
    cuda: Annotated[
        str | None,
        typer.Option(
            "--cuda", metavar="VERSION", help="Only releases built with this CUDA (12.2)."
        ),
    ] = None,
    json_output: JsonOption = False,
    recommend: Annotated[
        bool,
        typer.Option(
            "--recommend",
            help="What to install on this machine: the newest TensorFlow that will use its GPU.",
        ),
    ] = False,
    python: PythonOption = None,
    source: FromOption = None,
    matrix_file: MatrixOption = None,
) -> None:
    """The TensorFlow / Python / CUDA / cuDNN / compute capability / driver table, with its sources."""
    from gpucheck.matrix import load_matrix
    from gpucheck.render import matrix as render
    from gpucheck.render.console import make_console

    table = load_matrix(matrix_file)
    if recommend:
        from gpucheck.recommend import recommend as recommend_for

        snapshot = _snapshot(ctx, source, python, 60.0, tf=False)
        rec = recommend_for(snapshot, table)
        if json_output:
            sys.stdout.write(json.dumps(render.recommendation_to_data(rec), indent=2) + "\n")
        else:
            make_console().print(render.render_recommendation(rec))
        return
    rows = table.newest_first()
    if tf is not None:
        wanted = _version_prefix("--tf", tf)
        rows = [r for r in rows if r.version.split(".")[: len(wanted)] == wanted]
    if cuda is not None:
        wanted = _version_prefix("--cuda", cuda)
        rows = [r for r in rows if r.cuda and r.cuda.split(".")[: len(wanted)] == wanted]
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


@app.command("configure-memory")
def configure_memory(
    ctx: typer.Context,
    growth: Annotated[
        bool | None,
        typer.Option(
            "--growth/--no-growth",
            help="Let TensorFlow grow its GPU memory instead of taking it all.",
        ),
    ] = None,
    limit: Annotated[
        str | None,
        typer.Option(
            "--limit",
            metavar="MB",
            help="Hard limit in MB for every GPU, or per GPU as 0:4096,1:8192.",
        ),
    ] = None,
    virtual: Annotated[
        str | None,
        typer.Option(
            "--virtual",
            metavar="MB,MB",
            help="Split each selected GPU into logical GPUs of these sizes.",
        ),
    ] = None,
    gpus: Annotated[
        str | None,
        typer.Option("--gpus", metavar="0,1", help="Only these GPUs are visible to TensorFlow."),
    ] = None,
    cpu_devices: Annotated[
        int | None,
        typer.Option(
            "--cpu-devices",
            metavar="N",
            help="Split the CPU into N logical devices (MirroredStrategy without GPUs).",
        ),
    ] = None,
    allocator: Annotated[
        str | None,
        typer.Option("--allocator", metavar="NAME", help="TF_GPU_ALLOCATOR: cuda_malloc_async."),
    ] = None,
    emit: Annotated[
        str | None,
        typer.Option(
            "--emit",
            metavar="KIND",
            help="Print how to persist it (python or env) and exit: a dry run.",
        ),
    ] = None,
    release_probe: Annotated[
        bool,
        typer.Option(
            "--release-probe",
            help="Also show how much memory TensorFlow keeps after a model is deleted.",
        ),
    ] = False,
    json_output: JsonOption = False,
    python: PythonOption = None,
    source: FromOption = None,
    timeout: TimeoutOption = 120.0,
) -> int:
    """Set GPU memory growth, limits and virtual GPUs; apply them in a fresh TensorFlow process and prove they took."""
    from gpucheck import memory
    from gpucheck.doctor.facts import no_gpu_reason, visible_gpus

    plan = memory.make_plan(
        growth=growth,
        limit_mb=_limit(limit),
        virtual_mb=memory.parse_int_list("--virtual", virtual) if virtual is not None else None,
        gpus=memory.parse_int_list("--gpus", gpus) if gpus is not None else None,
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
    snapshot = _snapshot(ctx, source, python, timeout, tf=False)
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
    result = memory.apply_in_child(plan, indices, python, timeout, release_probe=release_probe)
    selected = [g for g in visible if g.index in indices]
    if json_output:
        from gpucheck._codec import to_data

        sys.stdout.write(
            json.dumps(
                {"schema_version": 1, "plan": to_data(plan), "result": to_data(result)}, indent=2
            )
            + "\n"
        )
    else:
        from gpucheck.render.console import make_console
        from gpucheck.render.memory import render_result

        make_console().print(render_result(result, selected))
    return code if result.applied else int(ExitCode.FAILURE)


def _write(path: str, content: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(content)
    except OSError as exc:
        raise GpucheckError(
            f"cannot write {path!r}: {exc.strerror}", reference="output-unwritable"
        ) from None


def _limit(value: str | None) -> int | dict[int, int] | None:
    from gpucheck import memory

    if value is None:
        return None
    every, per_gpu = memory.parse_limit(value)
    return every if every is not None else per_gpu


def _emit(plan: MemoryPlan, kind: str, json_output: bool) -> int:
    from gpucheck import memory

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


def benchmark(
    ctx: typer.Context,
    workload: Annotated[
        list[str] | None,
        typer.Option(
            "--workload",
            "-w",
            metavar="NAME",
            help="mlp, cnn or matmul (repeatable; default mlp and cnn).",
        ),
    ] = None,
    device: Annotated[
        str, typer.Option("--device", metavar="DEVICE", help="cpu, gpu or all.")
    ] = "all",
    batch_size: Annotated[
        int | None,
        typer.Option("--batch-size", metavar="N", help="Samples per step (default 128)."),
    ] = None,
    steps: Annotated[
        int | None,
        typer.Option("--steps", metavar="N", help="Steps per timed window (default 50)."),
    ] = None,
    repeats: Annotated[
        int | None, typer.Option("--repeats", metavar="N", help="Timed windows (default 5).")
    ] = None,
    mixed_precision: Annotated[
        str | None,
        typer.Option(
            "--mixed-precision", metavar="POLICY", help="mixed_float16 or mixed_bfloat16."
        ),
    ] = None,
    xla: Annotated[
        bool | None,
        typer.Option("--xla/--no-xla", help="Force jit_compile on or off (default: Keras' auto)."),
    ] = None,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick", help="The smallest honest run: 3 windows of 30 steps after 10 warm-up steps."
        ),
    ] = False,
    sweep: Annotated[
        bool,
        typer.Option(
            "--sweep",
            help="Batch sizes 32..4096: where the GPU overtakes the CPU, where throughput stops growing.",
        ),
    ] = False,
    strategy: Annotated[
        str | None,
        typer.Option(
            "--strategy",
            metavar="NAME",
            help="mirrored: also run under MirroredStrategy on all devices and report scaling.",
        ),
    ] = None,
    cpu_devices: Annotated[
        int | None,
        typer.Option(
            "--cpu-devices",
            metavar="N",
            help="With --strategy mirrored: split the CPU into N logical devices.",
        ),
    ] = None,
    json_output: JsonOption = False,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            metavar="FILE",
            help="Fail (exit 1) when a workload got slower than this earlier --output.",
        ),
    ] = None,
    tolerance: Annotated[
        str,
        typer.Option(
            "--tolerance", metavar="SHARE", help="Allowed slowdown against --baseline (10%)."
        ),
    ] = "10%",
    output: Annotated[
        str | None,
        typer.Option("--output", metavar="FILE", help="Also write the JSON results to FILE."),
    ] = None,
    python: PythonOption = None,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            min=1.0,
            metavar="SECONDS",
            help="Give up on one device's run after this long.",
        ),
    ] = 900.0,
) -> int:
    """How much faster the GPU trains a Keras model than the CPU: warm-up excluded, repeated windows, median and spread."""
    from gpucheck import bench

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
    )
    allowed = bench.parse_tolerance(tolerance)
    previous = bench.load_baseline(baseline) if baseline is not None else None
    snapshot = _snapshot(ctx, None, python, 60.0, tf=False)
    gpu_reason = bench.gpu_unavailable_reason(snapshot)
    from gpucheck.render.console import make_console

    err = make_console(stderr=True)
    if err.is_terminal:
        from rich.progress import Progress

        with Progress(console=err, transient=True) as bar:
            tasks: dict[tuple[str, str], Any] = {}

            def progress(dev: str, name: str, done: int, total: int) -> None:
                key = (dev, name)
                if key not in tasks:
                    tasks[key] = bar.add_task(f"{dev} {name}", total=total)
                bar.update(tasks[key], completed=done)

            result = bench.run(
                plan,
                snapshot,
                gpu_reason=gpu_reason,
                python=python,
                timeout_s=timeout,
                progress=progress,
            )
    else:
        result = bench.run(plan, snapshot, gpu_reason=gpu_reason, python=python, timeout_s=timeout)
    data = result.to_data()
    if output:
        _write(output, json.dumps(data, indent=2) + "\n")
    if json_output:
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        from gpucheck.render.bench import render_report

        make_console().print(render_report(result))
    ran = [r for r in result.results if r.status == "ok"]
    if previous is not None:
        regressions = bench.compare(result, previous, allowed)
        for item in regressions:
            sys.stderr.write(
                f"gpucheck: slower than the baseline: {item.device}/{item.workload} "
                f"{item.current:,.0f} samples/s vs {item.baseline:,.0f} ({item.change:+.1%}, "
                f"tolerance {allowed:.0%})\n"
            )
        if regressions:
            return int(ExitCode.FAILURE)
    return 0 if ran else int(ExitCode.FAILURE)


app.command("benchmark")(benchmark)
app.command("bench", help="Alias of `gpucheck benchmark`.")(benchmark)


def _version_prefix(flag: str, value: str) -> list[str]:
    parts = value.strip().split(".")
    if not value.strip() or not all(is_whole_number(p) for p in parts):
        raise GpucheckError(
            f"{flag} {value!r}: expected a version such as 2.15 or 12.2",
            reference="version-invalid",
        )
    return parts


def _print_error(message: str, hint: str | None = None) -> None:
    sys.stderr.write(f"gpucheck: error: {message}\n")
    if hint:
        sys.stderr.write(f"hint: {hint}\n")


def main(argv: list[str] | None = None, *, obj: Any = None) -> int:
    """Run the CLI; return the exit code. Errors are rendered here, in one place."""
    try:
        result = app(args=argv, prog_name="gpucheck", standalone_mode=False, obj=obj)
    except GpucheckError as exc:
        _print_error(f"[{exc.reference}] {exc.message}", exc.hint)
        return int(exc.exit_code)
    except (KeyboardInterrupt, typer.Abort):
        return _interrupted()
    except Exception as exc:
        # Typer/Click usage errors (bad flag, bad value) have format_message() and exit_code.
        format_message = getattr(exc, "format_message", None)
        if callable(format_message) and hasattr(exc, "exit_code"):
            command = getattr(getattr(exc, "ctx", None), "command_path", "gpucheck")
            _print_error(f"{format_message()}", f"{command} --help")
            return int(ExitCode.USAGE)
        raise
    except SystemExit as exc:  # pragma: no cover - Typer exits itself in rare paths
        return exc.code if isinstance(exc.code, int) else 1
    if result == ExitCode.INTERRUPTED:  # Typer turns Ctrl-C into exit code 130 itself
        return _interrupted()
    return result if isinstance(result, int) else 0


def _interrupted() -> int:
    from gpucheck._process import kill_all_children

    kill_all_children()
    sys.stderr.write("gpucheck: interrupted\n")
    return int(ExitCode.INTERRUPTED)


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
