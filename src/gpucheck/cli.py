"""The gpucheck command line: wiring only. Commands import their domain code inside the function,
so that ``gpucheck --help`` stays fast and never imports TensorFlow or NVML.
"""

from __future__ import annotations

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
