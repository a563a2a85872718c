"""`gpucheck fix`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from tf_gpucheck.cli._options import (
    AllowCpuOption,
    CwdOption,
    JsonOption,
    MatrixOption,
    PythonOption,
    TimeoutOption,
    option,
    probes_for,
    progress,
    target_for,
)

if TYPE_CHECKING:
    from tf_gpucheck.checks.findings import Report
    from tf_gpucheck.snapshot import Snapshot


def fix(
    ctx: typer.Context,
    python: PythonOption = None,
    yes: Annotated[
        bool, option("--yes", "Apply the plan without asking (scripts, CI).", short="-y")
    ] = False,
    dry_run: Annotated[
        bool, option("--dry-run", "Show the plan and its proof; change nothing.")
    ] = False,
    undo: Annotated[
        bool, option("--undo", "Restore the versions recorded by the last applied fix.")
    ] = False,
    allow_conda: Annotated[
        bool, option("--allow-conda", "Let pip replace packages that conda installed.")
    ] = False,
    no_tf: Annotated[
        bool, option("--no-tf", "Diagnose before and after without importing TensorFlow.")
    ] = False,
    allow_cpu: AllowCpuOption = False,
    timeout: TimeoutOption = 120.0,
    matrix_file: MatrixOption = None,
    cwd: CwdOption = None,
    json_output: JsonOption = False,
) -> int:
    """Apply doctor's package fixes to the environment: show the plan with the installer's proof, record the versions, apply after a yes, diagnose again, and put everything back if a step fails, is interrupted or makes things worse. Never sudo, drivers or system packages. Exit 0: nothing left failing; 1: failures remain, nothing applied, or rolled back; 2: bad input; 130: interrupted (restored)."""
    from tf_gpucheck import fix as fixing
    from tf_gpucheck.matrix import load_matrix
    from tf_gpucheck.render import fix as render
    from tf_gpucheck.render.console import emit, make_console

    console = make_console()
    errors = make_console(stderr=True)
    target = target_for(python)
    if undo:
        result = fixing.undo(target.python, apply=False)
        emit(console, render.render_undo(result))
        if result.journal is None or not result.plan:
            return 0
        if not (yes or _confirm("Restore these versions?")):
            return 1
        result = fixing.undo(target.python, apply=True)
        emit(console, render.render_undo(result))
        return 1 if result.not_restored else 0
    matrix = load_matrix(matrix_file)

    def diagnose() -> tuple[Snapshot, Report]:
        from tf_gpucheck.examine import examine

        with progress(True) as say:
            done = examine(
                probes_for(ctx, python, cwd),
                tf=not no_tf,
                timeout_s=timeout,
                allow_cpu=allow_cpu,
                matrix=matrix,
                prove_wait_s=None,  # the plan is proven by fix itself, before anything changes
                progress=say,
            )
        return done.snapshot, done.report

    snapshot, report = diagnose()
    run = fixing.prepare(
        report, snapshot, target.python, own_tool=target.is_own, allow_conda=allow_conda
    )
    if not json_output:
        emit(console, render.render_plan(run))
    if run.refused or not run.plan.runnable or dry_run or not run.proven:
        if json_output:
            sys.stdout.write(render.run_to_json(run))
        return run.exit_code
    if not yes:
        if not sys.stdin.isatty():
            errors.print(
                "no terminal to ask: nothing changed (gpucheck fix --yes applies the plan)"
            )
            run.asked = True
            if json_output:
                sys.stdout.write(render.run_to_json(run))
            return 1
        if not _confirm(f"Apply {len(run.plan.runnable)} step(s)?"):
            return 1

    def say(line: str) -> None:
        errors.print(line, markup=False, highlight=False, soft_wrap=True)

    run = fixing.run_fix(run, lambda: diagnose()[1], say, allow_conda=allow_conda)
    if json_output:
        sys.stdout.write(render.run_to_json(run))
    else:
        emit(console, render.render_result(run))
    return run.exit_code


def _confirm(question: str) -> bool:
    try:
        answer = input(f"{question} [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")
