"""`gpucheck lint`."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from tf_gpucheck.cli._options import (
    FormatOption,
    JsonOption,
    MatrixOption,
    StrictOption,
    chosen_format,
)


def lint(
    paths: Annotated[list[str], typer.Argument(metavar="FILE...", show_default=False)],
    json_output: JsonOption = False,
    output_format: FormatOption = "text",
    strict: StrictOption = False,
    matrix_file: MatrixOption = None,
) -> int:
    """Check Dockerfiles, Compose files and Kubernetes manifests before they run: the base image's CUDA, cuDNN and Python against the TensorFlow installed, the pip installs, the variables baked in, the GPU requests. Findings carry doctor's cause codes and the file and line. Exit 0: nothing to fix; 1: a finding fails (or warns, with --strict); 2: unreadable input."""
    from tf_gpucheck.lint import lint_paths
    from tf_gpucheck.matrix import load_matrix
    from tf_gpucheck.render import lint as render

    fmt = chosen_format(json_output, output_format)
    report = lint_paths(paths, load_matrix(matrix_file))
    if fmt == "json":
        sys.stdout.write(render.report_to_json(report))
    elif fmt == "markdown":
        sys.stdout.write(render.report_to_markdown(report))
    else:
        from tf_gpucheck.render.console import emit, make_console

        emit(make_console(), render.render_report(report))
    if os.environ.get("GITHUB_ACTIONS") == "true":
        sys.stdout.write(render.github_annotations(report))
    return report.exit_code(strict)
