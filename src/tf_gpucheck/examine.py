"""One doctor: probe (or take a snapshot), check, diagnose and prove, the report every entry
point shows. The CLI's ``doctor``, the notebook's ``tf_gpucheck.doctor()``, ``fleet`` for each
node's snapshot, ``fix`` before and after it changes anything, the pytest plugin and the
library's ``diagnose()`` all call :func:`examine`: each gets the same checks, the same logs
read, and the same proofs.

Proofs (the installer's dry runs of the fixes, :mod:`tf_gpucheck.installer.prover`) start while
TensorFlow imports and are taken as far as ``prove_wait_s`` after the rest is done: by default
not at all (the answers already there, in this run or the proof cache, are used; the others are
kept for the next run).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tf_gpucheck.installer.prover import DEFAULT_BUDGET_S

if TYPE_CHECKING:
    from tf_gpucheck.checks.findings import Report
    from tf_gpucheck.checks.requirements import Requirements
    from tf_gpucheck.installer.prover import Prover
    from tf_gpucheck.matrix import Matrix
    from tf_gpucheck.probes import Probes
    from tf_gpucheck.snapshot import Snapshot


@dataclass(frozen=True)
class Examination:
    snapshot: Snapshot
    report: Report
    matrix: Matrix


def examine(
    probes: Probes | None = None,
    *,
    snapshot: Snapshot | None = None,
    python: str | None = None,
    tf: bool = True,
    timeout_s: float = 120.0,
    checks: Sequence[str] | None = None,
    allow_cpu: bool = False,
    strict: bool = False,
    requirements: Requirements | None = None,
    logs: Sequence[tuple[str, list[str]]] = (),
    matrix: Matrix | None = None,
    matrix_file: str | None = None,
    prove_wait_s: float | None = DEFAULT_BUDGET_S,
    every_fix: bool = False,
    redact: bool = False,
    installer: bool = True,
    progress: Callable[[str], None] | None = None,
    amend: Callable[[Snapshot], Snapshot] | None = None,
) -> Examination:
    """The doctor's report of ``snapshot`` (judged as it is), else of what ``probes`` (default:
    the live machine, ``python``'s environment) find now.

    ``prove_wait_s``: how long to wait, once the rest is done, for the installer's answers to the
    fixes (``None``: never ask the index; the installer's policy, asked offline, still shapes
    them). ``every_fix``: prove every cause's fix, not the first only (verbose, JSON, Markdown).
    ``redact``: the snapshot with user names, host names and paths masked (no proofs then: their
    lines name those paths). ``amend``: what the caller adds to a probed snapshot (the notebook
    its kernel)."""
    from tf_gpucheck.checks import Status, run_checks
    from tf_gpucheck.checks.proofs import written_operations
    from tf_gpucheck.matrix import load_matrix

    provers: list[Prover] = []
    asking = prove_wait_s is not None and not redact
    with ThreadPoolExecutor(max_workers=1) as pool:
        future = pool.submit(lambda: matrix if matrix is not None else load_matrix(matrix_file))
        if snapshot is None:
            from tf_gpucheck.probes import LiveProbes, collect_snapshot

            live = probes if probes is not None else LiveProbes(python)
            begin = getattr(live, "begin", None)
            if installer and callable(begin):
                begin()

            def start_proofs(partial: Snapshot) -> None:
                """While TensorFlow imports: the fixes that do not depend on it go to the
                installer."""
                make = getattr(live, "prover", None)
                prover = make() if callable(make) and asking else None
                if prover is None:
                    return
                provers.append(prover)
                if not tf:  # nothing runs alongside: the report's own fixes are asked at the end
                    return
                early = run_checks(partial, future.result(), checks=checks, allow_cpu=allow_cpu)
                for cause in early.causes if every_fix else early.causes[:1]:
                    if cause.fix and cause.status in (Status.FAIL, Status.WARN):
                        operations = written_operations(cause.fix, cause.plan, partial)
                        prover.submit(cause.fix, operations)

            snapshot = collect_snapshot(
                live,
                include_tensorflow=tf,
                timeout_s=timeout_s,
                progress=progress,
                on_partial=start_proofs,
                include_installer=installer,
            )
            if amend is not None:
                snapshot = amend(snapshot)
            if redact:
                from tf_gpucheck.redact import redact as mask

                snapshot = mask(snapshot)
        judged_with = future.result()
    report = run_checks(
        snapshot,
        judged_with,
        checks=checks,
        allow_cpu=allow_cpu,
        strict=strict,
        requirements=requirements,
        logs=list(logs),
    )
    if provers and prove_wait_s is not None:
        from tf_gpucheck.checks.proofs import prove_report

        try:
            report = prove_report(
                report, provers[0], time.monotonic() + prove_wait_s, every=every_fix
            )
        finally:
            provers[0].close()
    return Examination(snapshot, report, judged_with)
