"""Every install fix doctor prints, proven by the target's own installer before it is printed.

A :class:`Prover` runs the installer's dry run of each fix in the user's setting (the target's
interpreter, their variables and folder), several at once and concurrently with the TensorFlow
probe; :func:`tf_gpucheck.checks.proofs.prove_report` attaches each answer to its cause: **proven** (what it would
change), **refused** (the installer's own line; the next fix it accepts is printed instead, and
the refusal is said), or **not proven** (no index, an old pip, an installer that could not run on
this machine such as a full disk, or the time budget ran out).

What the installer decides before resolving (PEP 668, its configuration) is asked on every run
by the installer probe and already shaped the fix; this is the resolution against the index.

Answers are kept (:mod:`tf_gpucheck.installer.proofcache`), keyed by what decides them. A dry run
not answered from there runs in a worker process of its own that stores its answer when it
comes, so a doctor that does not wait for it (the default: never past the TensorFlow probe)
leaves it for the next doctor and for ``gpucheck fix``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from tf_gpucheck import _codec
from tf_gpucheck.installer.intent import NOT_ASKED
from tf_gpucheck.installer.operations import Operation
from tf_gpucheck.installer.proof import Proof, Target, prove
from tf_gpucheck.installer.proofcache import ProofCache, ProofKey, age_words

DEFAULT_BUDGET_S = 0.0
"""How long doctor waits for proofs after everything else is done (``--proof-budget``): by
default not at all; the answers that came while TensorFlow imported are used, the others are
stored for the next run when they come."""

PROVE_BUDGET_S = 600.0
"""``doctor --prove``: wait for every answer (the installer's own limit)."""

_WORKERS: list[subprocess.Popen[str]] = []
"""Worker processes started by this process: kept (not waited for) so that they may outlive it."""

NOT_YET = "not yet answered: the installer is still resolving it; gpucheck doctor --prove waits"


def detached() -> bool:
    """Dry runs go to worker processes that outlive doctor, to answer the next one; not in CI
    (``CI`` set: nobody runs doctor there again, and a job should leave no process behind) nor
    with ``TF_GPUCHECK_PROOF_WORKERS=0`` (the test suite): then they run in threads and are
    stopped when doctor ends."""
    setting = os.environ.get("TF_GPUCHECK_PROOF_WORKERS")
    if setting is not None:
        return setting != "0"
    return os.environ.get("CI", "").lower() in ("", "0", "false")


class Prover:
    """The installer's dry runs, started as early as a fix is known, answered by a deadline."""

    def __init__(
        self,
        target: Target,
        *,
        timeout_s: float = 600.0,
        cache: ProofCache | None = None,
        workers: bool | None = None,
    ) -> None:
        self.target = target
        self.timeout_s = timeout_s
        self.cache = cache if cache is not None else ProofCache()
        self.workers = detached() if workers is None else workers
        self._pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="gpucheck-proof")
        self._futures: dict[str, Future[Proof | None]] = {}
        self._asked: dict[str, tuple[ProofKey, float]] = {}
        """Fixes handed to a worker process: their key, and when."""
        self._operations: dict[str, tuple[tuple[Operation, ...], str]] = {}
        """The operations each fix runs, as the writer made them with its line (and why it is
        not package work); a line given without them (a cause's words) is read."""

    def submit_known(self, fix: str, operations: tuple[tuple[Operation, ...], str]) -> None:
        """Record what ``fix`` runs without asking anything (a worker given them)."""
        self._operations[fix] = operations

    def operations(self, fix: str) -> tuple[tuple[Operation, ...], str]:
        """What ``fix`` runs, as the writer made it; a line given without them is words, and
        nothing is asked about it (a printed line is never read back)."""
        known = self._operations.get(fix)
        if known is not None:
            return known
        return (), "a fix in words: nothing the installer is asked"

    def key(self, fix: str) -> ProofKey:
        return ProofKey.of(fix, self.target)

    def submit(self, fix: str, operations: tuple[tuple[Operation, ...], str] | None = None) -> None:
        """Start asking about ``fix`` (``operations``: what it runs, as the writer made them)."""
        if operations is not None:
            self._operations.setdefault(fix, operations)
        if fix in self._futures or fix in self._asked:
            return
        key = self.key(fix)
        cached = self.cache.load(key)
        if cached is not None:
            proof, age = cached
            done: Future[Proof | None] = Future()
            done.set_result(dataclasses.replace(proof, by=f"{proof.by}, {age_words(age)}"))
            self._futures[fix] = done
            return
        if not self.workers or not self._asks_the_index(fix):
            self._futures[fix] = self._pool.submit(self._prove_and_keep, fix, key)
            return
        self._asked[fix] = (key, time.time())
        if not self.cache.asking(key, self.timeout_s):
            self._start_worker(fix, key)

    def answer(
        self,
        fix: str,
        deadline: float,
        operations: tuple[tuple[Operation, ...], str] | None = None,
    ) -> Proof | None:
        """The proof of ``fix`` (``None``: not a package command), waiting until ``deadline``
        (``time.monotonic()``) at the latest."""
        self.submit(fix, operations)
        if fix in self._asked:
            key, since = self._asked[fix]
            while True:
                found = self.cache.load(key) or self.cache.load_recent(key, since)
                if found is not None:
                    return found[0]
                if time.monotonic() >= deadline:
                    return Proof("not_proven", reason=NOT_YET)
                time.sleep(0.05)
        try:
            return self._futures[fix].result(timeout=max(0.0, deadline - time.monotonic()))
        except FutureTimeout:
            return Proof(
                "not_proven", reason="the installer had not answered within the proof budget"
            )

    def _asks_the_index(self, fix: str) -> bool:
        operations, why = self.operations(fix)
        return not why and bool(operations) and any(op.verb != "uninstall" for op in operations)

    def _prove_and_keep(self, fix: str, key: ProofKey) -> Proof | None:
        proof = self._prove(fix)
        if proof is not None:
            self.cache.store(key, proof)
        return proof

    def _start_worker(self, fix: str, key: ProofKey) -> None:
        request = {
            "fix": fix,
            "operations": [dataclasses.asdict(o) for o in self.operations(fix)[0]],
            "why_not": self.operations(fix)[1],
            "target": _codec.to_data(self.target),
            "timeout_s": self.timeout_s,
            "cache": str(self.cache.folder.parent),
            "key": key.digest,
        }
        try:
            process = subprocess.Popen(  # gpucheck's own Python; argv built here, no shell
                [sys.executable, "-m", "tf_gpucheck.installer.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                text=True,
            )
            _WORKERS.append(process)
            assert process.stdin is not None
            process.stdin.write(json.dumps(request))
            process.stdin.close()
        except OSError:
            self._asked.pop(fix, None)
            self._futures[fix] = self._pool.submit(self._prove_and_keep, fix, key)

    def close(self) -> None:
        """Stop: a dry run still running is killed (it changes nothing), so the budget bounds
        doctor's wall time."""
        from tf_gpucheck._process import allow_children, kill_all_children

        self._pool.shutdown(wait=False, cancel_futures=True)
        if any(not f.done() for f in self._futures.values()):
            kill_all_children()
            self._pool.shutdown(wait=True)
            allow_children()

    def prove_now(self, fix: str) -> Proof | None:
        """Ask the installer in this process and keep the answer (the worker's job)."""
        return self._prove_and_keep(fix, self.key(fix))

    def _prove(self, fix: str) -> Proof | None:
        operations, why = self.operations(fix)
        if why in NOT_ASKED.values():  # a step the writer said cannot be asked before it runs
            return Proof("not_proven", reason=why)
        if why or not operations:
            return None
        changes: dict[str, tuple[str | None, str | None]] = {}
        by = ""
        for operation in operations:
            proof = prove(operation, self.target, self.timeout_s)
            if not proof.ok:
                return proof
            changes.update(proof.changes)
            by = proof.by or by
        return Proof("proven", changes, by=by)
