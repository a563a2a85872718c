"""The Typer application, the object the commands reach the machine through, and ``main``:
the one place errors become messages and exit codes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tf_gpucheck.__about__ import __version__
from tf_gpucheck.cli._help import EXIT_CODES_HELP, HELP, VERSION_HELP
from tf_gpucheck.errors import ExitCode, GpucheckError

if TYPE_CHECKING:
    from tf_gpucheck.probes import Probes
    from tf_gpucheck.target import Target


@dataclass
class CliEnvironment:
    """What the commands reach the machine through; tests pass their own (``main(obj=...)``)."""

    probes_factory: Callable[[Target], Probes]


def _live_probes(target: Target) -> Probes:
    from tf_gpucheck.probes import LiveProbes

    return LiveProbes(target)


app = typer.Typer(
    name="gpucheck",
    help=HELP,
    epilog=EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=True,
    # Plain help: fast, and flags show no value placeholder (Rich help prints "<bool>" for them).
    rich_markup_mode=None,
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
            help=VERSION_HELP,
            callback=_version_callback,
            is_eager=True,
        ),
    ] = False,
) -> None:
    if not isinstance(ctx.obj, CliEnvironment):
        ctx.obj = CliEnvironment(probes_factory=_live_probes)


def environment(ctx: typer.Context) -> CliEnvironment:
    env = ctx.obj
    assert isinstance(env, CliEnvironment)
    return env


def _print_error(message: str, hint: str | None = None) -> None:
    sys.stderr.write(f"gpucheck: error: {message}\n")
    if hint:
        sys.stderr.write(f"hint: {hint}\n")


def main(argv: list[str] | None = None, *, obj: Any = None) -> int:
    """Run the CLI; return the exit code. Errors are rendered here, in one place."""
    from tf_gpucheck._process import allow_children

    allow_children()
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
    from tf_gpucheck._process import kill_all_children

    kill_all_children()
    sys.stderr.write("gpucheck: interrupted\n")
    return int(ExitCode.INTERRUPTED)


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
