"""`gpucheck doctor`."""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated

import typer

from tf_gpucheck.cli._options import (
    CwdOption,
    FormatOption,
    FromOption,
    Gate,
    JsonOption,
    JunitOption,
    MatrixOption,
    PythonOption,
    RedactOption,
    TimeoutOption,
    chosen_format,
    no_target_with_from,
    option,
    probes_for,
    progress,
    with_gate,
    write_file,
)
from tf_gpucheck.errors import GpucheckError


@with_gate
def doctor(
    ctx: typer.Context,
    gate: Gate,
    json_output: JsonOption = False,
    output_format: FormatOption = "text",
    verbose: Annotated[
        bool, option("--verbose", "Show the evidence and fix of every check.", short="-v")
    ] = False,
    list_checks: Annotated[bool, option("--list", "List the checks and exit.")] = False,
    checks: Annotated[
        list[str] | None, option("--check", "Run only this check (repeatable).", metavar="ID")
    ] = None,
    python: PythonOption = None,
    source: FromOption = None,
    timeout: TimeoutOption = 120.0,
    matrix_file: MatrixOption = None,
    logs: Annotated[
        list[str] | None,
        option(
            "--log",
            "Also read this log of the failing program as evidence (repeatable; - for stdin).",
            metavar="FILE",
        ),
    ] = None,
    redact: RedactOption = False,
    no_tf: Annotated[
        bool,
        option("--no-tf", "Judge without importing TensorFlow (fast triage; says what it skips)."),
    ] = False,
    junit: JunitOption = None,
    cwd: CwdOption = None,
    proof_budget: Annotated[
        float | None,
        option(
            "--proof-budget",
            "How long to wait, once the rest is done, for the installer to resolve the "
            "fixes against the package index. By default doctor does not wait: the dry runs "
            "start while TensorFlow imports, answers come from the proof cache, and one not yet "
            "answered is kept for the next run. 0: never ask the index (the installer's own "
            "policy is still asked, offline).",
            metavar="SECONDS",
            min=0.0,
            show_default=False,
        ),
    ] = None,
    prove: Annotated[
        bool, option("--prove", "Wait for the installer's answer to every fix (up to 10 minutes).")
    ] = False,
) -> int:
    """Run every check and give one verdict with the first thing to fix. Exit 0: no failure; 1: a check failed; 2: bad input."""
    if list_checks:
        from tf_gpucheck.checks.registry import REGISTRY

        for item in REGISTRY:
            typer.echo(f"{item.id:<20} {item.title}")
        return 0
    no_target_with_from(source, python, cwd)
    probes = probes_for(ctx, python, cwd) if source is None else None
    begin = getattr(probes, "begin", None)
    if callable(begin):
        begin()  # the installer's start-up runs while the rest is imported and read
    from tf_gpucheck.checks import select_checks
    from tf_gpucheck.matrix import load_matrix

    fmt = chosen_format(json_output, output_format)
    from tf_gpucheck.render import doctor as render
    from tf_gpucheck.render.format import target_header, target_line

    # Bad input is reported before any probing (only the installer's offline policy ask, which
    # changes nothing, is already under way).
    select_checks(checks)
    if matrix_file is not None:
        load_matrix(matrix_file)
    evidence = _read_logs(logs or [])
    every = verbose or fmt != "text"
    from tf_gpucheck.examine import examine
    from tf_gpucheck.installer.prover import DEFAULT_BUDGET_S, PROVE_BUDGET_S

    if prove and proof_budget is not None:
        raise GpucheckError(
            "--prove and --proof-budget say two things: give one",
            reference="options-conflict",
            hint="--prove waits for every answer; --proof-budget SECONDS waits that long",
        )
    wait: float | None = (
        PROVE_BUDGET_S
        if prove
        else DEFAULT_BUDGET_S
        if proof_budget is None
        else proof_budget or None  # 0: never ask the index
    )
    recorded = None
    if source is not None:
        from tf_gpucheck.snapshot import load_snapshot

        recorded = load_snapshot(source)
        if redact:
            from tf_gpucheck.redact import redact as mask

            recorded = mask(recorded)
    with progress(recorded is None) as say:
        done = examine(
            probes,
            snapshot=recorded,
            tf=not no_tf,
            timeout_s=timeout,
            checks=checks,
            allow_cpu=gate.allow_cpu,
            strict=gate.strict,
            requirements=gate.requirements,
            logs=evidence,
            matrix_file=matrix_file,
            prove_wait_s=wait if recorded is None else None,
            every_fix=every,
            redact=redact,
            progress=say,
        )
    snapshot, report = done.snapshot, done.report
    if junit is not None:
        write_file(junit, render.report_to_junit(report))
    if os.environ.get("GITHUB_ACTIONS") == "true":
        sys.stderr.write(render.report_to_annotations(report))
    if fmt == "json":
        from tf_gpucheck._codec import to_data

        meta = {
            "created_at": snapshot.created_at,
            "gpucheck_version": snapshot.gpucheck_version,
            "target": to_data(snapshot.target),
        }
        sys.stdout.write(
            json.dumps(
                render.report_to_data(report, snapshot_meta=meta, node=snapshot.node), indent=2
            )
            + "\n"
        )
    elif fmt == "markdown":
        sys.stdout.write(
            render.report_to_markdown(
                report,
                title=f"gpucheck doctor ({snapshot.gpucheck_version})",
                subtitle=target_line(snapshot.target, source),
            )
        )
    else:
        from tf_gpucheck.render.console import emit, make_console

        emit(
            make_console(),
            render.render_report(
                report, verbose=verbose, header=target_header(snapshot.target, source)
            ),
        )
    return report.exit_code


def _read_logs(paths: list[str]) -> list[tuple[str, list[str]]]:
    from tf_gpucheck._textfile import read_text
    from tf_gpucheck.reading.textlines import normalise

    return [(f"--log {path}", normalise(read_text(path))) for path in paths]
