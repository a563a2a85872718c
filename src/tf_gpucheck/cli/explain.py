"""`gpucheck explain`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from tf_gpucheck.cli._options import FormatOption, JsonOption, MatrixOption, chosen_format, option
from tf_gpucheck.errors import GpucheckError


def explain(
    source: Annotated[str, typer.Argument(metavar="FILE", show_default=False, hidden=True)] = "-",
    json_output: JsonOption = False,
    output_format: FormatOption = "text",
    verbose: Annotated[
        bool, option("--verbose", "Also list the harmless and good lines.", short="-v")
    ] = False,
    matrix_file: MatrixOption = None,
    cause: Annotated[
        str | None,
        option(
            "--cause",
            "Print what a cause code means, how to confirm it, its fix per platform, the "
            "messages that point to it and the sources.",
            metavar="CODE",
        ),
    ] = None,
    list_causes: Annotated[bool, option("--list", "List every cause code with its title.")] = False,
    title: Annotated[
        str | None,
        option(
            "--title",
            "The report's title, read with the text (the error is often only there).",
            metavar="TEXT",
        ),
    ] = None,
) -> int:
    """Explain a log or pasted report (FILE, or - for standard input, the default): every recognised line, the ranked causes, the fix, similar solved reports. Exit 0: nothing actionable; 1: a cause found; 2: unreadable input."""
    if cause is not None or list_causes:
        return _causes(cause, json_output or output_format == "json")
    from tf_gpucheck._textfile import TextLines
    from tf_gpucheck.explain import explain_lines
    from tf_gpucheck.matrix import load_matrix
    from tf_gpucheck.render import explain as render

    fmt = chosen_format(json_output, output_format)
    if source == "-" and sys.stdin.isatty():
        raise GpucheckError(
            "nothing on standard input",
            reference="input-missing",
            hint="gpucheck explain train.log  # or: python train.py 2>&1 | gpucheck explain -",
        )
    result = explain_lines(TextLines(source), load_matrix(matrix_file), title=title)
    if fmt == "json":
        sys.stdout.write(render.explanation_to_json(result))
    elif fmt == "markdown":
        sys.stdout.write(render.explanation_to_markdown(result))
    else:
        from tf_gpucheck.render.console import emit, make_console

        emit(make_console(), render.render_explanation(result, verbose=verbose))
    return result.report.exit_code


def _causes(code: str | None, as_json: bool) -> int:
    from tf_gpucheck.checks import causedocs
    from tf_gpucheck.render import causes as render

    if code is None:
        docs = list(causedocs.load().values())
        if as_json:
            sys.stdout.write(render.causes_to_json(docs))
        else:
            from tf_gpucheck.render.console import emit, make_console

            emit(make_console(), render.render_cause_list(docs))
        return 0
    doc = causedocs.doc(code)
    if as_json:
        sys.stdout.write(render.cause_to_json(doc, causedocs.messages(code)))
    else:
        from tf_gpucheck.render.console import emit, make_console

        emit(make_console(), render.render_cause(doc, causedocs.messages(code)))
    return 0
