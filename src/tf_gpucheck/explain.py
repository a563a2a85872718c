"""`gpucheck explain`: the log of a failed job, a CI run, or text pasted from an issue, explained.

Reads any mix of TensorFlow's log (every release's prefixes), Python tracebacks, nvidia-smi,
the container runtime and pip; explains every recognised line; and ranks the causes with the
same diagnosis ``doctor`` uses. The facts the text itself states (TensorFlow and Python
versions, driver, GPUs, OS) feed the checks that can judge them without probing, so a pasted
report gets the same judgement a live machine would.
"""

from __future__ import annotations

from dataclasses import dataclass

from tf_gpucheck.checks import diagnosis, remedies, textual
from tf_gpucheck.checks.findings import Report
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.reading import logscan, textfacts, textlines
from tf_gpucheck.similar import Match


@dataclass(frozen=True)
class ExplainedLine:
    """One recognised line: what it is and what it means."""

    text: str
    kind: str
    """actionable, harmless, no_gpu, good or context."""
    cause: str | None
    explanation: str
    rule: str

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "kind": self.kind,
            "cause": self.cause,
            "explanation": self.explanation,
            "rule": self.rule,
        }


@dataclass(frozen=True)
class Explanation:
    report: Report
    lines: tuple[ExplainedLine, ...]
    """Every recognised line, in the text's order."""
    stated: textfacts.StatedFacts
    read: int
    """Lines read (after normalising pasted text)."""
    similar: tuple[Match, ...] = ()
    """The closest solved public reports (knowledge/reports), best first; empty when none is
    close enough."""


def explain(
    text: str,
    matrix: Matrix,
    *,
    similar: bool = True,
    exclude: str | None = None,
    threshold: float | None = None,
    title: str | None = None,
) -> Explanation:
    """Explain ``text`` (see the module docstring).

    ``title`` (a report's title) is read as the text's first line: the error or the versions
    are often only there. ``similar`` also finds the closest solved public reports; ``exclude``
    leaves one report (by URL) out of them and ``threshold`` changes how close they must be (for
    measuring)."""
    if title and title.strip():
        text = f"{title.strip()}\n\n{text}"
    lines = logscan.rejoin(textlines.normalise(text))
    read = textual.read(lines, matrix)
    classified, stated, known = read.classified, read.stated, read.known
    findings = list(read.findings)
    explained = tuple(
        ExplainedLine(
            line.text,
            textual.kind_words(line.rule.kind, read.gpu_expected),
            line.rule.cause,
            line.rule.explanation,
            line.rule.id,
        )
        for line in classified
        if line.rule is not None
    )
    matches: list[Match] = []
    if similar:
        from tf_gpucheck import similar as solved

        query = solved.query_tokens(lines, classified)
        matches = solved.similar(
            query, exclude=exclude, threshold=solved.THRESHOLD if threshold is None else threshold
        )
        findings += textual.similar_findings(matches, findings, classified, known, matrix)
    result = diagnosis.diagnose(findings, [], fix_for=remedies.fix_for(known, matrix))
    report = Report(findings=result.findings, causes=result.causes, hint_info=True)
    return Explanation(report, explained, stated, len(lines), tuple(matches))
