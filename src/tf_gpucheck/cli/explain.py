"""`gpucheck explain`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from tf_gpucheck.cli._options import FormatOption, JsonOption, MatrixOption, chosen_format
from tf_gpucheck.errors import GpucheckError


def explain(
    source: Annotated[
        str,
        typer.Argument(metavar="FILE", show_default=False, hidden=True),
    ] = "-",
    json_output: JsonOption = False,
    output_format: FormatOption = "text",
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Also list the harmless and good lines.")
    ] = False,
    matrix_file: MatrixOption = None,
) -> int:
    """Explain a log or pasted report (FILE, or - for standard input, the default): every recognised line, the ranked causes, the fix. Exit 0: nothing actionable; 1: a cause found; 2: unreadable input."""
    from tf_gpucheck._textfile import read_text
    from tf_gpucheck.explain import explain as explain_text
    from tf_gpucheck.matrix import load_matrix
    from tf_gpucheck.render import explain as render

    fmt = chosen_format(json_output, output_format)
    if source == "-" and sys.stdin.isatty():
        raise GpucheckError(
            "nothing on standard input",
            reference="input-missing",
            hint="gpucheck explain train.log  # or: python train.py 2>&1 | gpucheck explain -",
        )
    text = read_text(source)
    result = explain_text(text, load_matrix(matrix_file))
    if fmt == "json":
        sys.stdout.write(render.explanation_to_json(result))
    elif fmt == "markdown":
        sys.stdout.write(render.explanation_to_markdown(result))
    else:
        from tf_gpucheck.render.console import emit, make_console

        emit(make_console(), render.render_explanation(result, verbose=verbose))
    return result.report.exit_code
