"""`gpucheck doctor`."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import TYPE_CHECKING, Annotated

import typer

from tf_gpucheck.cli._options import (
    AllowCpuOption,
    CwdOption,
    ExpectCudaOption,
    ExpectTfOption,
    FormatOption,
    FromOption,
    JsonOption,
    JunitOption,
    MatrixOption,
    MinCapabilityOption,
    MinFreeMemoryOption,
    MinGpusOption,
    PythonOption,
    RedactOption,
    RequireGpuOption,
    StrictOption,
    TimeoutOption,
    chosen_format,
    snapshot_for,
    write_file,
)
from tf_gpucheck.errors import GpucheckError

if TYPE_CHECKING:
    from tf_gpucheck.installer.prover import Prover
    from tf_gpucheck.snapshot import Snapshot


def doctor(
    ctx: typer.Context,
    json_output: JsonOption = False,
    output_format: FormatOption = "text",
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
    allow_cpu: AllowCpuOption = False,
    strict: StrictOption = False,
    timeout: TimeoutOption = 120.0,
    matrix_file: MatrixOption = None,
    require_gpu: RequireGpuOption = False,
    min_gpus: MinGpusOption = None,
    min_compute_capability: MinCapabilityOption = None,
    min_free_memory: MinFreeMemoryOption = None,
    expect_tf: ExpectTfOption = None,
    expect_cuda: ExpectCudaOption = None,
    logs: Annotated[
        list[str] | None,
        typer.Option(
            "--log",
            metavar="FILE",
            help="Also read this log of the failing program as evidence (repeatable; - for stdin).",
        ),
    ] = None,
    redact: RedactOption = False,
    no_tf: Annotated[
        bool,
        typer.Option(
            "--no-tf", help="Judge without importing TensorFlow (fast triage; says what it skips)."
        ),
    ] = False,
    junit: JunitOption = None,
    cwd: CwdOption = None,
    proof_budget: Annotated[
        float | None,
        typer.Option(
            "--proof-budget",
            metavar="SECONDS",
            min=0.0,
            help="How long to wait, once the rest is done, for the installer to resolve the "
            "fixes against the package index. By default doctor does not wait: the dry runs "
            "start while TensorFlow imports, answers come from the proof cache, and one not yet "
            "answered is kept for the next run. 0: never ask the index (the installer's own "
            "policy is still asked, offline).",
            show_default=False,
        ),
    ] = None,
    prove: Annotated[
        bool,
        typer.Option(
            "--prove", help="Wait for the installer's answer to every fix (up to 10 minutes)."
        ),
    ] = False,
) -> int:
    """Run every check and give one verdict with the first thing to fix. Exit 0: no failure; 1: a check failed; 2: bad input."""
    from tf_gpucheck.checks import Status, run_checks, select_checks
    from tf_gpucheck.checks.registry import REGISTRY
    from tf_gpucheck.checks.requirements import Requirements
    from tf_gpucheck.matrix import load_matrix

    if list_checks:
        for item in REGISTRY:
            typer.echo(f"{item.id:<20} {item.title}")
        return 0
    fmt = chosen_format(json_output, output_format)
    from tf_gpucheck.render import doctor as render
    from tf_gpucheck.render.format import target_header, target_line

    # Bad input is reported before any probing.
    select_checks(checks)
    requirements = Requirements.from_flags(
        require_gpu=require_gpu,
        min_gpus=min_gpus,
        min_compute_capability=min_compute_capability,
        min_free_memory=min_free_memory,
        expect_tf=expect_tf,
        expect_cuda=expect_cuda,
    )
    if matrix_file is not None:
        load_matrix(matrix_file)
    evidence = _read_logs(logs or [])
    # The shipped matrix loads while the probes run (the TensorFlow child dominates the wall time).
    from concurrent.futures import ThreadPoolExecutor

    every = verbose or fmt != "text"
    from tf_gpucheck.installer.prover import DEFAULT_BUDGET_S, PROVE_BUDGET_S

    if prove and proof_budget is not None:
        raise GpucheckError(
            "--prove and --proof-budget say two things: give one",
            reference="options-conflict",
            hint="--prove waits for every answer; --proof-budget SECONDS waits that long",
        )
    asking = proof_budget is None or proof_budget > 0 or prove
    wait = PROVE_BUDGET_S if prove else DEFAULT_BUDGET_S if proof_budget is None else proof_budget
    provers: list[Prover] = []

    def start_proofs(partial: Snapshot, probes: object) -> None:
        """While TensorFlow imports: the fixes that do not depend on it go to the installer."""
        make = getattr(probes, "prover", None)
        # a redacted report carries no proofs (their installer lines name the user's paths):
        # a dry run started for it would only hold the command up until the installer answered
        prover = make() if callable(make) and asking and not redact else None
        if prover is None:
            return
        provers.append(prover)
        early = run_checks(partial, matrix_future.result(), checks=checks, allow_cpu=allow_cpu)
        for cause in early.causes if every else early.causes[:1]:
            if cause.fix and cause.status in (Status.FAIL, Status.WARN):
                prover.submit(cause.fix)

    with ThreadPoolExecutor(max_workers=1) as pool:
        matrix_future = pool.submit(load_matrix, matrix_file)
        snapshot = snapshot_for(
            ctx,
            source,
            python,
            timeout,
            tf=not no_tf,
            redact=redact,
            cwd=cwd,
            on_partial=start_proofs,
        )
        matrix = matrix_future.result()
    report = run_checks(
        snapshot,
        matrix,
        checks=checks,
        allow_cpu=allow_cpu,
        strict=strict,
        requirements=requirements,
        logs=evidence,
    )
    if provers:
        from tf_gpucheck.checks.proofs import prove_report

        try:
            report = prove_report(report, provers[0], time.monotonic() + wait, every=every)
        finally:
            provers[0].close()
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
