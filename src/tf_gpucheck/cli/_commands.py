"""Every command on the Typer application, in the order ``gpucheck --help`` lists them."""

from collections.abc import Callable
from typing import Any

from tf_gpucheck.cli import bench, detect, doctor, explain, fix, fleet, lint, matrix, memory
from tf_gpucheck.cli._app import CliEnvironment, app, main
from tf_gpucheck.cli._help import COMMANDS

_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "detect": detect.detect,
    "doctor": doctor.doctor,
    "fix": fix.fix,
    "explain": explain.explain,
    "fleet": fleet.fleet,
    "lint": lint.lint,
    "matrix": matrix.matrix,
    "configure-memory": memory.configure_memory,
    "benchmark": bench.benchmark,
    "bench": bench.benchmark,
}
_LONG_HELP = {"bench": "Alias of `gpucheck benchmark`."}

for _name, _short in COMMANDS:
    app.command(_name, short_help=_short, help=_LONG_HELP.get(_name))(_FUNCTIONS[_name])

__all__ = ["CliEnvironment", "app", "main"]
