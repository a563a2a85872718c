"""Every install fix doctor prints, proven by the target's own installer before it is printed.

A :class:`Prover` runs the installer's dry run of each fix in the user's setting (the target's
interpreter, their variables and folder), several at once and concurrently with the TensorFlow
probe; :func:`tf_gpucheck.checks.proofs.prove_report` attaches each answer to its cause: **proven** (what it would
change), **refused** (the installer's own line; the next fix it accepts is printed instead, and
the refusal is said), or **not proven** (no index, an old pip, an installer that could not run on
this machine such as a full disk, or the time budget ran out).

What the installer decides before resolving (PEP 668, its configuration) is asked on every run
by the installer probe and already shaped the fix; this is the resolution against the index.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from tf_gpucheck.installer.operations import read_command
from tf_gpucheck.installer.proof import Proof, prove

DEFAULT_BUDGET_S = 15.0
"""How long doctor waits for proofs after everything else is done (``--proof-budget``)."""


class Prover:
    """The installer's dry runs, started as early as a fix is known, answered by a deadline."""

    def __init__(
        self,
        python: str,
        versions: Mapping[str, str],
        pip: str | None,
        *,
        environ: Mapping[str, str] | None = None,
        cwd: str | None = None,
        timeout_s: float = 600.0,
        outside: Collection[str] = (),
    ) -> None:
        self.python = python
        self.outside = frozenset(outside)
        self.versions = dict(versions)
        self.pip = pip
        self.environ = dict(environ) if environ is not None else None
        self.cwd = cwd
        self.timeout_s = timeout_s
        self._pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="gpucheck-proof")
        self._futures: dict[str, Future[Proof | None]] = {}

    def submit(self, fix: str) -> None:
        if fix not in self._futures:
            self._futures[fix] = self._pool.submit(self._prove, fix)

    def answer(self, fix: str, deadline: float) -> Proof | None:
        """The proof of ``fix`` (``None``: not a package command), waiting until ``deadline``
        (``time.monotonic()``) at the latest."""
        self.submit(fix)
        try:
            return self._futures[fix].result(timeout=max(0.0, deadline - time.monotonic()))
        except FutureTimeout:
            return Proof(
                "not_proven", reason="the installer had not answered within the proof budget"
            )

    def close(self) -> None:
        """Stop: a dry run still running is killed (it changes nothing), so the budget bounds
        doctor's wall time."""
        from tf_gpucheck._process import allow_children, kill_all_children

        self._pool.shutdown(wait=False, cancel_futures=True)
        if any(not f.done() for f in self._futures.values()):
            kill_all_children()
            self._pool.shutdown(wait=True)
            allow_children()

    def _prove(self, fix: str) -> Proof | None:
        if " -m ensurepip" in fix:
            return Proof(
                "not_proven",
                reason="pip is not in this environment until ensurepip adds it: nothing to ask",
            )
        operations, _note, why = read_command(fix)
        if why or not operations:
            if " -m venv " in fix:
                return Proof(
                    "not_proven",
                    reason="a new environment cannot be asked before it exists",
                )
            return None
        changes: dict[str, tuple[str | None, str | None]] = {}
        by = ""
        for operation in operations:
            proof = prove(
                operation,
                self.python,
                self.versions,
                self.pip,
                self.timeout_s,
                environ=self.environ,
                cwd=self.cwd,
                outside=self.outside,
            )
            if not proof.ok:
                return proof
            changes.update(proof.changes)
            by = proof.by or by
        return Proof("proven", changes, by=by)
