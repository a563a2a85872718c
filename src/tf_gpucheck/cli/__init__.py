"""The gpucheck command line: wiring only, one small module per command.

Each command turns its flags into domain objects through the domain's own parsers, calls the
library, and picks a renderer; commands import their domain code inside the function, so that
``gpucheck --help`` stays fast and never imports TensorFlow or NVML. The commands are
registered in :mod:`._commands`, on first use: the top-level ``gpucheck --help`` is printed by
:mod:`._help` without them.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tf_gpucheck.cli._app import CliEnvironment, app, main


def run() -> None:
    """Console-script entry point."""
    from tf_gpucheck.cli import _help

    if _help.asks_for_top_help(sys.argv[1:]):
        sys.stdout.write(_help.top_help())
        sys.stdout.flush()
        sys.exit(0)
    from tf_gpucheck import _process, policyask

    try:
        policyask.start_early(sys.argv[1:])  # doctor's longest wait, begun before the parsing
        from tf_gpucheck.cli._commands import main

        code = main()
    finally:
        _process.kill_all_children()  # bad input or Ctrl-C: no installer left running
    sys.exit(code)


def __getattr__(name: str) -> Any:
    if name in ("CliEnvironment", "app", "main"):
        from tf_gpucheck.cli import _commands

        return getattr(_commands, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CliEnvironment", "app", "main", "run"]
