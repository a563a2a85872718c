"""The gpucheck command line: wiring only. Commands import their domain code inside the function,
so that ``gpucheck --help`` stays fast and never imports TensorFlow or NVML.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gpucheck.__about__ import __version__
from gpucheck.errors import ExitCode, GpucheckError

if TYPE_CHECKING:
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
) -> None:
    """Show what is here: system, NVIDIA driver and GPUs, CUDA libraries, TensorFlow's build and devices."""
    from gpucheck.probes import collect_snapshot, resolve_python

    probes = _environment(ctx).probes_factory(resolve_python(python))
    with _progress(True) as progress:
        snapshot = collect_snapshot(
            probes, include_tensorflow=not no_tf, timeout_s=timeout, progress=progress
        )
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
    ctx: typer.Context, source: str | None, python: str | None, timeout: float, *, tf: bool
) -> Snapshot:
    from gpucheck.probes import collect_snapshot, resolve_python
    from gpucheck.snapshot import load_snapshot

    if source is not None:
        return load_snapshot(source)
    probes = _environment(ctx).probes_factory(resolve_python(python))
    with _progress(True) as progress:
        return collect_snapshot(probes, include_tensorflow=tf, timeout_s=timeout, progress=progress)


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
) -> int:
    """Run every check and give one verdict with the first thing to fix. Exit 0: no failure; 1: a check failed; 2: bad input."""
    from gpucheck.doctor import REGISTRY_VIEW, run_checks, select_checks
    from gpucheck.matrix import load_matrix

    if list_checks:
        for item in REGISTRY_VIEW():
            typer.echo(f"{item.id:<20} {item.title}")
        return 0
    fmt = "json" if json_output else output_format
    if fmt not in ("text", "json", "markdown"):
        raise GpucheckError(
            f"--format {fmt!r}: expected text, json or markdown", reference="format-unknown"
        )
    select_checks(checks)  # reject an unknown --check before the probes run
    matrix = load_matrix(matrix_file)
    snapshot = _snapshot(ctx, source, python, timeout, tf=True)
    report = run_checks(snapshot, matrix, checks=checks, allow_cpu=allow_cpu, strict=strict)
    from gpucheck.render import doctor as render

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


def _version_prefix(flag: str, value: str) -> list[str]:
    parts = value.strip().split(".")
    if not value.strip() or not all(p.isdigit() for p in parts):
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
        sys.stderr.write("gpucheck: interrupted\n")
        return int(ExitCode.INTERRUPTED)
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
    return result if isinstance(result, int) else 0


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
