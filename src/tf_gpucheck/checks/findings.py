"""What a check returns: a Finding, and the Report that gathers them into one verdict."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tf_gpucheck.installer.intent import Fix

if TYPE_CHECKING:
    from tf_gpucheck.installer.proof import Proof
    from tf_gpucheck.similar import Match


@dataclass(frozen=True)
class Observation:
    """What a statement rests on: one observation taken in the target's own setting (the
    import system in the user's folder, the installer's own check, the dynamic loader's order,
    a device node), as plain facts an oracle can check by doing the same experiment."""

    kind: str
    """``import``, ``distribution``, ``requirement``, ``library``, ``device_nodes``, ``installer``."""
    facts: tuple[tuple[str, object], ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, **dict(self.facts)}


def observation(kind: str, **facts: object) -> Observation:
    return Observation(kind, tuple(facts.items()))


def observation_of(kind: str, record: object, *fields: str, **more: object) -> Observation:
    """The observation a recorded fact gives: its ``fields`` as recorded, in that order, then
    ``more``."""
    return observation(kind, **{name: getattr(record, name) for name in fields}, **more)


class Status(str, enum.Enum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"
    INFO = "info"

    @property
    def severity(self) -> int:
        return {"fail": 3, "warn": 2, "info": 1, "ok": 0, "skip": 0}[self.value]


@dataclass(frozen=True)
class Finding:
    """One check's judgement.

    ``cause`` is None when ok, otherwise a stable snake_case code (documented in the README);
    ``fix`` is a command or code line to paste, or None.
    """

    check: str
    status: Status
    summary: str
    details: str = ""
    fix: str | None = None
    cause: str | None = None
    stated: tuple[str, ...] = ()
    """Judged on facts a text states (``explain``): the words each fact came from."""
    observed: tuple[Observation, ...] = ()
    """The observations its statement rests on."""
    proof: Proof | None = None
    """The installer's answer to ``fix`` (install fixes, once proven)."""
    fallbacks: tuple[str, ...] = ()
    """What to print instead of ``fix``, in order, when the installer refuses it."""
    plan: Fix | None = None
    """The fix as a value (package steps), where it is package work: ``fix`` is it written
    for the target."""
    alternatives: tuple[Fix, ...] = ()
    """The plans of ``fallbacks``."""

    def otherwise(self, alternatives: tuple[Fix, ...]) -> Finding:
        """The same finding with ``alternatives`` to its plan (as intents until written)."""
        return dataclasses.replace(
            self, alternatives=alternatives, fallbacks=tuple(a.text() for a in alternatives)
        )

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "check": self.check,
            "status": self.status.value,
            "summary": self.summary,
            "details": self.details,
            "fix": self.fix,
            "cause": self.cause,
        }
        if self.plan is not None:
            data["plan"] = self.plan.to_dict()
        if self.observed:
            data["observed"] = [o.to_dict() for o in self.observed]
        if self.proof is not None:
            data["proof"] = self.proof.to_dict()
        return data


def ok(
    check: str, summary: str, details: str = "", observed: tuple[Observation, ...] = ()
) -> Finding:
    return Finding(check, Status.OK, summary, details, observed=observed)


def skip(check: str, summary: str, details: str = "") -> Finding:
    return Finding(check, Status.SKIP, summary, details)


def info(
    check: str,
    summary: str,
    details: str = "",
    cause: str | None = None,
    fix: str | Fix | None = None,
    observed: tuple[Observation, ...] = (),
) -> Finding:
    return _finding(Status.INFO, check, cause, summary, details, fix, observed)


@dataclass(frozen=True)
class _Fault:
    """``warn`` and ``fail``: a finding with its cause."""

    status: Status

    def __call__(
        self,
        check: str,
        cause: str,
        summary: str,
        details: str = "",
        fix: str | Fix | None = None,
        observed: tuple[Observation, ...] = (),
    ) -> Finding:
        return _finding(self.status, check, cause, summary, details, fix, observed)


warn = _Fault(Status.WARN)
fail = _Fault(Status.FAIL)


def _finding(
    status: Status,
    check: str,
    cause: str | None,
    summary: str,
    details: str,
    fix: str | Fix | None,
    observed: tuple[Observation, ...],
) -> Finding:
    return Finding(
        check, status, summary, details, _text(fix), cause, observed=observed, plan=_plan(fix)
    )


def _text(fix: str | Fix | None) -> str | None:
    return fix.text() if isinstance(fix, Fix) else fix


def _plan(fix: str | Fix | None) -> Fix | None:
    return fix if isinstance(fix, Fix) else None


@dataclass(frozen=True)
class Cause:
    """One cause with its evidence, ranked."""

    code: str
    status: Status
    summary: str
    fix: str | None
    check: str
    """The check that reported it, or ``tf_log`` / ``log`` for evidence from a log alone."""
    evidence: tuple[str, ...] = ()
    """Log lines (verbatim) that point at it."""
    explains: tuple[str, ...] = ()
    """The checks whose symptom it explains."""
    details: str = ""
    """The reporting check's own details."""
    explained_by: str | None = None
    """For a symptom: the cause code that explains it (it ranks after that cause)."""
    stated: tuple[str, ...] = ()
    """The words of a text the cause was inferred from (``explain``), when it was."""
    observed: tuple[Observation, ...] = ()
    """The observations the reporting check's statement rests on."""
    proof: Proof | None = None
    """The installer's answer to ``fix``, when it was asked."""
    fallbacks: tuple[str, ...] = ()
    """What to print instead of ``fix``, in order, when the installer refuses it."""
    plan: Fix | None = None
    """``fix`` as a value, where it is package work."""
    alternatives: tuple[Fix, ...] = ()
    """The plans of ``fallbacks``."""

    @property
    def origin(self) -> str:
        """``message`` (a line says it), ``stated`` (inferred from facts a text states),
        ``probe`` (a check read it from the machine)."""
        if self.evidence:
            return "message"
        return "stated" if self.stated else "probe"

    def as_finding(self) -> Finding:
        parts = [self.details] if self.details else []
        if self.explains:
            parts.append(f"Explains: {', '.join(self.explains)}")
        if self.evidence:
            parts.append("Evidence:\n" + "\n".join(self.evidence))
        return Finding(
            self.check,
            self.status,
            self.summary,
            "\n".join(parts),
            self.fix,
            self.code,
            observed=self.observed,
            proof=self.proof,
            fallbacks=self.fallbacks,
            plan=self.plan,
            alternatives=self.alternatives,
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "cause": self.code,
            "status": self.status.value,
            "check": self.check,
            "summary": self.summary,
            "fix": self.fix,
            "evidence": list(self.evidence),
            "explains": list(self.explains),
            "explained_by": self.explained_by,
            "origin": self.origin,
            "stated": list(self.stated),
            **({"plan": self.plan.to_dict()} if self.plan is not None else {}),
            **({"observed": [o.to_dict() for o in self.observed]} if self.observed else {}),
            **({"proof": self.proof.to_dict()} if self.proof is not None else {}),
        }


DEPTH_LAST = 99
"""The rank of a code no layer lists (symptoms, requirements): after every cause."""


@dataclass(frozen=True)
class Report:
    """Every finding, in check order, the ranked causes, and what they add up to."""

    findings: tuple[Finding, ...]
    strict: bool = False
    gpu_usable: bool = False
    notes: tuple[str, ...] = field(default=())
    causes: tuple[Cause, ...] = ()
    """Every cause with evidence, most important first (see :mod:`tf_gpucheck.checks.diagnosis`)."""
    hint_info: bool = False
    """With nothing to fix, name the most likely cause anyway (``explain``: a log that is normal
    on a machine without a GPU still says what is wrong if the reader has one)."""
    similar: tuple[Match, ...] = ()
    """The solved public reports closest to the user's own logs (``doctor --log``), best first:
    shown beside the verdict, never a cause of their own (the machine's facts decide)."""

    @property
    def verdict(self) -> Status:
        statuses = [f.status for f in self.findings] + [c.status for c in self.causes]
        worst = max(statuses, key=lambda s: s.severity, default=Status.OK)
        return worst if worst in (Status.FAIL, Status.WARN) else Status.OK

    @property
    def first_fix(self) -> Finding | None:
        """The most important cause: a failure before a warning, and among equals the deepest
        layer (the diagnosis ranks them); without a diagnosis, the first failure in check order."""
        for cause in self.causes:
            if cause.status in (Status.FAIL, Status.WARN):
                return cause.as_finding()
        if self.hint_info:
            for cause in self.causes:
                if cause.status is Status.INFO and cause.fix:
                    return cause.as_finding()
        for wanted in (Status.FAIL, Status.WARN):
            for finding in self.findings:
                if finding.status is wanted:
                    return finding
        return None

    @property
    def exit_code(self) -> int:
        if self.verdict is Status.FAIL or (self.strict and self.verdict is Status.WARN):
            return 1
        return 0
