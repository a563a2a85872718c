"""The words of ``gpucheck --help`` (one source for Typer and for the top-level help below), and
that help printed without loading the command-line framework.

``gpucheck --help`` is what people run first and most often; importing Typer and building every
command's parameters costs more than Python's own start. The top-level page is laid out here the
way Click lays out a group's help (its ``HelpFormatter``: the usage line, the help text, the
``Options`` and ``Commands`` definition lists, the epilog; the width from the terminal, at most
78 and at least 50 columns). tests/cli/test_help.py checks that it is Typer's page, character for
character, at several widths.
"""

from __future__ import annotations

import shutil
import textwrap

HELP = "Does TensorFlow see your NVIDIA GPU? If not: why, and the exact fix."
EXIT_CODES_HELP = (
    "Exit codes: 0 ok; 1 a check failed or no usable GPU; 2 bad usage or input; "
    "130 interrupted (Ctrl-C)."
)
VERSION_HELP = "Print gpucheck's version and exit."

COMMANDS: tuple[tuple[str, str], ...] = (
    ("detect", "What is here: driver, GPUs, CUDA libraries, TensorFlow."),
    ("doctor", "Every check, one verdict, the first thing to fix."),
    ("fix", "Apply doctor's package fixes: plan, proof, journal, undo."),
    ("explain", "Explain a log or a pasted report: causes and fixes."),
    ("fleet", "Many nodes at once: verdicts, causes, the odd ones out."),
    ("lint", "Check Dockerfiles, Compose files and Kubernetes manifests."),
    ("matrix", "The TensorFlow/CUDA/cuDNN/driver table; --recommend."),
    ("configure-memory", "GPU memory growth, limits, virtual GPUs."),
    ("benchmark", "CPU vs GPU Keras training speed."),
    ("bench", "Alias of `gpucheck benchmark`."),
)
"""Each command and its line in the list, in the order the list shows them."""

_OPTIONS = (
    ("--version", VERSION_HELP),
    # Typer's own completion options (typer/main.py), as it prints them
    ("--install-completion", "Install completion for the current shell."),
    (
        "--show-completion",
        "Show completion for the current shell, to copy it or customize the installation.",
    ),
    ("-h, --help", "Show this message and exit."),
)


def asks_for_top_help(argv: list[str]) -> bool:
    return argv in (["--help"], ["-h"])


def top_help() -> str:
    """The page ``gpucheck --help`` prints, ending in a newline."""
    width = max(min(shutil.get_terminal_size().columns, 80) - 2, 50)
    out = [_wrap("[OPTIONS] COMMAND [ARGS]...", width, "Usage: gpucheck ", " " * 16), "\n"]
    out += ["\n", _wrap(HELP, width, "  ", "  "), "\n"]
    out += ["\n", "Options:\n", *_definitions(_OPTIONS, width)]
    out += ["\n", "Commands:\n", *_definitions(COMMANDS, width)]
    out += ["\n", _wrap(EXIT_CODES_HELP, width, "  ", "  "), "\n"]
    return "".join(out)


def _wrap(text: str, width: int, first: str = "", rest: str = "") -> str:
    return textwrap.TextWrapper(
        width, initial_indent=first, subsequent_indent=rest, replace_whitespace=False
    ).fill(text)


def _definitions(rows: tuple[tuple[str, str], ...], width: int) -> list[str]:
    """Click's ``write_dl`` at an indent of 2: terms in a column (at most 30 wide), each text
    wrapped beside its term."""
    indent, spacing = 2, 2
    first_col = min(max(len(term) for term, _ in rows), 30) + spacing
    out = []
    for term, text in rows:
        out.append(" " * indent + term)
        if len(term) <= first_col - spacing:
            out.append(" " * (first_col - len(term)))
        else:
            out.append("\n" + " " * (first_col + indent))
        lines = _wrap(text, max(width - first_col - 2, 10)).splitlines()
        out.append(lines[0] + "\n")
        out += [" " * (first_col + indent) + line + "\n" for line in lines[1:]]
    return out
