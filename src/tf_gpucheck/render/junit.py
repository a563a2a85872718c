"""JUnit XML, the one writer of it: doctor's report (a testcase per check) and fleet's (a
testcase per node) are both a list of :class:`Case`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr


@dataclass(frozen=True)
class Case:
    classname: str
    name: str
    outcome: str = "passed"
    """passed, failure, error, skipped or warning (a passing case with its words as output)."""
    message: str = ""
    kind: str = ""
    """The ``type`` of a failure or an error."""
    body: str = ""


def junit(suite: str, cases: Sequence[Case]) -> str:
    def count(outcome: str) -> int:
        return sum(1 for case in cases if case.outcome == outcome)

    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuite name={quoteattr(suite)} tests="{len(cases)}" failures="{count("failure")}" '
        f'errors="{count("error")}" skipped="{count("skipped")}">',
    ]
    for case in cases:
        lines.append(
            f"  <testcase classname={quoteattr(case.classname)} name={quoteattr(case.name)}>"
        )
        if case.outcome == "failure":
            lines.append(
                f"    <failure message={quoteattr(case.message)} type={quoteattr(case.kind)}>"
                f"{escape(case.body)}</failure>"
            )
        elif case.outcome == "error":
            lines.append(
                f"    <error message={quoteattr(case.message)} type={quoteattr(case.kind)}/>"
            )
        elif case.outcome == "skipped":
            lines.append(f"    <skipped message={quoteattr(case.message)}/>")
        elif case.outcome == "warning":
            lines.append(f"    <system-out>{escape('warning: ' + case.message)}</system-out>")
        lines.append("  </testcase>")
    lines.append("</testsuite>")
    return "\n".join(lines) + "\n"
