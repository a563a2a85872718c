"""`gpucheck explain`: the log of a failed job, a CI run, or text pasted from an issue, explained.

Reads any mix of TensorFlow's log (every release's prefixes), Python tracebacks, nvidia-smi,
the container runtime and pip; explains every recognised line; and ranks the causes with the
same diagnosis ``doctor`` uses. The facts the text itself states (TensorFlow and Python
versions, driver, GPUs, OS) feed the checks that can judge them without probing, so a pasted
report gets the same judgement a live machine would.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from tf_gpucheck.checks import diagnosis, remedies, textual, wholetext
from tf_gpucheck.checks.findings import Report, Status
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.reading import logscan, textfacts, textlines
from tf_gpucheck.reading.logrules import Rule
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
    count: int = 1
    """How many lines of the text said the same message (a job log repeats itself, each time
    with a new timestamp): this is the first of them."""
    last: str | None = None
    """The last of them, where it differs from the first (its time)."""

    @classmethod
    def of(
        cls, text: str, rule: Rule, gpu_expected: bool, count: int = 1, last: str | None = None
    ) -> ExplainedLine:
        """``text``, recognised by ``rule``, in words for a text that expects a GPU or not."""
        kind = textual.kind_words(rule.kind, gpu_expected)
        return cls(text, kind, rule.cause, rule.explanation, rule.id, count, last)

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "kind": self.kind,
            "cause": self.cause,
            "explanation": self.explanation,
            "rule": self.rule,
            "count": self.count,
            "last": self.last,
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
    note: str | None = None
    """What was done to a very large text (repeats grouped, long lines cut), said once."""
    gpu_expected: bool = False
    """The text shows a GPU (lines normal without one are then actionable)."""


def explain(
    text: str,
    matrix: Matrix,
    *,
    similar: bool = True,
    exclude: str | None = None,
    threshold: float | None = None,
    title: str | None = None,
    model: object | None = None,
) -> Explanation:
    """Explain ``text`` (see the module docstring).

    ``title`` (a report's title) is read as the text's first line: the error or the versions
    are often only there. ``similar`` also finds the closest solved public reports; ``exclude``
    leaves one report (by URL) out of them and ``threshold`` changes how close they must be (for
    measuring); ``model`` replaces the shipped reader's model (to measure one trained on other
    reports)."""
    if title and title.strip():
        text = f"{title.strip()}\n\n{text}"
    lines = logscan.rejoin(textlines.normalise(text))
    return _explain(lines, matrix, similar, exclude, threshold, model)


class Counted(Protocol):
    """Lines read from somewhere that counts what it read (:class:`tf_gpucheck._textfile.TextLines`)."""

    bytes_read: int
    cut: int
    max_line: int

    def __iter__(self) -> Iterator[str]: ...


def explain_lines(
    raws: Iterable[str] | Counted,
    matrix: Matrix,
    *,
    title: str | None = None,
    similar: bool = True,
) -> Explanation:
    """:func:`explain` of lines as they are read (a file, standard input), in one pass and in
    bounded memory: a text of up to :data:`logscan.PASTE_LINES` lines is read as a paste, exactly
    as :func:`explain` reads it; a longer one is a program's log, whose repeats of one message
    (the same rule, the same words after the logging prefix) become one line with a count and
    its first and last occurrence, and whose unrecognised lines are kept only at its start and
    end (where a job states what it runs on, and how it ended)."""
    source = iter(raws)
    head: list[str] = []
    for raw in source:
        head.append(raw)
        if len(head) > logscan.PASTE_LINES:
            break
    else:
        return explain("\n".join(head), matrix, similar=similar, title=title)
    stream = itertools.chain(([title.strip(), ""] if title and title.strip() else []), head, source)
    result = _explain_log(textlines.normalise_lines(stream), matrix, similar)
    read = getattr(raws, "bytes_read", 0)
    cut = getattr(raws, "cut", 0)
    extra = f" ({read / 1e6:.0f} MB)" if read else ""
    if cut:
        extra += (
            f"; {cut:,} line(s) longer than {getattr(raws, 'max_line', 0):,} characters were cut"
        )
    return dataclasses.replace(result, note=(result.note or "") + extra)


def _grouped(lines: tuple[ExplainedLine, ...]) -> tuple[ExplainedLine, ...]:
    """Each message once (the same rule, the same words after the logging prefix), in the order
    of its first line, with how often it came and its last line."""
    groups: dict[tuple[str, str], ExplainedLine] = {}
    for line in lines:
        key = (line.rule, logscan.split_line(line.text)[2])
        known = groups.get(key)
        if known is None:
            groups[key] = line
        else:
            groups[key] = dataclasses.replace(
                known,
                count=known.count + line.count,
                last=line.text if line.text != known.text else known.last,
            )
    return tuple(groups.values())


KEPT_PLAIN = 2000
"""Unrecognised lines kept of a long log, at each end."""


READ_PER_RULE = 50
"""Of one rule's distinct messages in a long log, the first this many are read by the diagnosis
(the rest are counted and listed, and say nothing new about the cause)."""


@dataclass
class _Group:
    first: str
    at: int
    rule: Rule
    count: int = 1
    last: str | None = None


def _explain_log(lines: Iterable[str], matrix: Matrix, similar: bool) -> Explanation:
    groups: dict[tuple[str, str], _Group] = {}
    plain_head: list[tuple[int, str]] = []
    plain_tail: collections.deque[tuple[int, str]] = collections.deque(maxlen=KEPT_PLAIN)
    seen_plain: set[str] = set()
    total = 0
    for total, line in enumerate(lines, start=1):
        _severity, _location, message = logscan.split_line(line)
        rule = logscan.find_rule(message)
        if rule is None:
            if line in seen_plain:
                continue
            if len(plain_head) < KEPT_PLAIN:
                plain_head.append((total, line))
                seen_plain.add(line)
            else:
                plain_tail.append((total, line))
            continue
        key = (rule.id, message)
        group = groups.get(key)
        if group is None:
            groups[key] = _Group(line, total, rule)
        else:
            group.count += 1
            group.last = line
    ordered = sorted(groups.values(), key=lambda g: g.at)
    per_rule: collections.Counter[str] = collections.Counter()
    read_groups = []
    for group in ordered:
        per_rule[group.rule.id] += 1
        if per_rule[group.rule.id] <= READ_PER_RULE:
            read_groups.append((group.at, group.first))
    kept = sorted([*plain_head, *plain_tail, *read_groups])
    result = _explain([line for _at, line in kept], matrix, similar, None, None, None)
    explained = tuple(
        ExplainedLine.of(
            g.first, g.rule, result.gpu_expected, g.count, g.last if g.last != g.first else None
        )
        for g in ordered
    )
    repeats = sum(g.count - 1 for g in ordered)
    note = (
        f"a program's log of {total:,} lines: each message once with how often it came "
        f"({repeats:,} repeats grouped)"
        + (
            f"; of the {total - sum(g.count for g in ordered):,} lines no rule knows, the "
            f"first and last {KEPT_PLAIN:,} were read for facts"
            if len(plain_head) >= KEPT_PLAIN
            else ""
        )
    )
    return dataclasses.replace(result, lines=explained, read=total, note=note)


def _explain(
    lines: list[str],
    matrix: Matrix,
    similar: bool,
    exclude: str | None,
    threshold: float | None,
    model: object | None = None,
) -> Explanation:
    read = textual.read(lines, matrix)
    classified, stated, known = read.classified, read.stated, read.known
    findings = list(read.findings)
    explained = tuple(
        ExplainedLine.of(line.text, line.rule, read.gpu_expected)
        for line in classified
        if line.rule is not None
    )
    explained = _grouped(explained)
    matches: list[Match] = []
    if similar:
        from tf_gpucheck import similar as solved

        query = solved.query_tokens(lines, classified)
        matches = solved.similar(
            query, exclude=exclude, threshold=solved.THRESHOLD if threshold is None else threshold
        )
    result = diagnosis.diagnose(findings, [], fix_for=remedies.planned(known, matrix))
    report = Report(findings=result.findings, causes=result.causes, hint_info=True)
    first = report.first_fix
    # a build or platform without GPU support, in a text that names no GPU, is a note beside
    # what the text itself is about
    gpu_note = first is not None and first.cause in textual.NO_GPU_SUPPORT and not read.gpu_named
    if first is None or first.status is Status.INFO or gpu_note:
        # no message and no stated fact names a cause, or only lines normal without a GPU do:
        # what the text says as a whole
        if first is None or gpu_note:
            whole = wholetext.whole_reading_findings(
                lines,
                findings,
                classified,
                stated,
                known,
                matrix,
                model=model,
                gpu_named=read.gpu_named,
            )
        else:
            whole = wholetext.conditional_reading(lines, findings, classified, stated, model)
            findings = [f for f in findings if not any(f.cause == w.cause for w in whole)]
        if whole and gpu_note:  # what the text is about leads; the GPU notes follow it
            findings = [
                dataclasses.replace(f, status=Status.INFO)
                if f.cause in textual.NO_GPU_SUPPORT
                else f
                for f in findings
            ]
        if whole:
            result = diagnosis.diagnose(
                [*findings, *whole], [], fix_for=remedies.planned(known, matrix)
            )
            report = Report(findings=result.findings, causes=result.causes, hint_info=True)
    return Explanation(
        report, explained, stated, len(lines), tuple(matches), gpu_expected=read.gpu_expected
    )
