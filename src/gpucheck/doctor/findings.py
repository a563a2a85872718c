"""What a check returns: a Finding, and the Report that gathers them into one verdict."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


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

    def to_dict(self) -> dict[str, object]:
        return {
            "check": self.check,
            "status": self.status.value,
            "summary": self.summary,
            "details": self.details,
            "fix": self.fix,
            "cause": self.cause,
        }


def ok(check: str, summary: str, details: str = "") -> Finding:
    return Finding(check, Status.OK, summary, details)


def skip(check: str, summary: str, details: str = "") -> Finding:
    return Finding(check, Status.SKIP, summary, details)


def info(
    check: str, summary: str, details: str = "", cause: str | None = None, fix: str | None = None
) -> Finding:
    return Finding(check, Status.INFO, summary, details, fix, cause)


def warn(
    check: str, cause: str, summary: str, details: str = "", fix: str | None = None
) -> Finding:
    return Finding(check, Status.WARN, summary, details, fix, cause)


def fail(
    check: str, cause: str, summary: str, details: str = "", fix: str | None = None
) -> Finding:
    return Finding(check, Status.FAIL, summary, details, fix, cause)


@dataclass(frozen=True)
class Report:
    """Every finding, in check order, and what they add up to."""

    findings: tuple[Finding, ...]
    strict: bool = False
    gpu_usable: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def verdict(self) -> Status:
        worst = max((f.status for f in self.findings), key=lambda s: s.severity, default=Status.OK)
        return worst if worst in (Status.FAIL, Status.WARN) else Status.OK

    @property
    def first_fix(self) -> Finding | None:
        """The first failure in check order (the layers go bottom up), else the first warning."""
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
