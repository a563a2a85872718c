"""Similar solved reports: the real, resolved public threads closest to a text.

The knowledge base is ``knowledge/reports/*.yaml``: public threads, each with the text people
pasted, the cause the thread settled on, the fix that worked and who confirmed it. A text is
compared with them by Okapi BM25 over normalised tokens: lines are cleaned as the report
reader cleans them (logging prefixes, prompts, quotes), paths become their file names, numbers,
addresses and versions drop out, and every line a log rule recognises also adds that rule's id,
so messages match by their template whatever their numbers and paths. Scores are normalised to
[0, 1] (the share of the query's best possible score); below :data:`THRESHOLD` nothing is
returned: no match rather than a guess.

BM25 is written out here (about forty lines) instead of taken from a library: the ones that
exist need NumPy, and gpucheck must not pull a NumPy into the environments it diagnoses (NumPy
versions are one of the causes it finds). The index is built on first use from the shipped files
(a few milliseconds); ``--help``, ``detect`` and ``doctor`` without a log never build it.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tf_gpucheck import knowledge
from tf_gpucheck.errors import GpucheckError

K1 = 1.2
B = 0.75
THRESHOLD = 0.10
"""Normalised score below which a report is not similar enough to show: chosen by leave-one-out
over the solved reports (benchmarks/reports.py: 0.12 -> 0.10 named 7 more first causes and one
fewer false alarm) and benchmarks/similar.py."""

RULE_WEIGHT = 3
"""How many times a recognised message template counts, against one word."""

MIN_SHARED = 3
"""A report shares at least this many distinct words with the text, or one recognised message
template: a few common words in a short text are no likeness."""

FIELDS = ("url", "title", "text", "tf", "platform", "cause", "noise", "fix", "confirmed_by")
PLATFORMS = frozenset({*knowledge.PLACES, "docker"})


@dataclass(frozen=True)
class SolvedReport:
    url: str
    title: str
    text: str
    """What people pasted, verbatim (trimmed)."""
    tf: str | None
    platform: str | None
    cause: str | None
    """The cause code the thread settled on; ``None`` for harmless noise."""
    noise: bool
    fix: str
    """The fix that worked, quoted from the thread."""
    confirmed_by: str
    family: str


@dataclass(frozen=True)
class Match:
    report: SolvedReport
    score: float
    """0 to 1: the share of the text's best possible score this report reached."""

    def to_dict(self) -> dict[str, object]:
        return {
            "url": self.report.url,
            "title": self.report.title,
            "cause": self.report.cause,
            "noise": self.report.noise,
            "fix": self.report.fix,
            "score": round(self.score, 3),
        }


def _bad(family: str, what: str) -> GpucheckError:
    return knowledge.invalid(f"reports/{family}.yaml", what)


def parse_reports(family: str, data: Any) -> list[SolvedReport]:
    """One file's reports, checked (fields, types; the cause codes are checked by the tests)."""
    if not isinstance(data, list):
        raise _bad(family, "expected a list of reports")
    found = []
    for entry in data:
        if not isinstance(entry, dict) or set(entry) != set(FIELDS):
            raise _bad(family, f"a report must have exactly the fields {list(FIELDS)}: {entry!r}")
        found.append(
            SolvedReport(
                url=str(entry["url"]),
                title=str(entry["title"]),
                text=str(entry["text"]),
                tf=None if entry["tf"] is None else str(entry["tf"]),
                platform=entry["platform"],
                cause=entry["cause"],
                noise=bool(entry["noise"]),
                fix=str(entry["fix"]),
                confirmed_by=str(entry["confirmed_by"]),
                family=family,
            )
        )
    return found


@functools.cache
def load_reports() -> tuple[SolvedReport, ...]:
    reports: list[SolvedReport] = []
    for family in knowledge.names("reports"):
        reports += parse_reports(family, knowledge.read("reports", f"{family}.yaml"))
    return tuple(reports)


# --- tokens ------------------------------------------------------------------------------------

_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "which",
        "while",
        "will",
        "with",
        "you",
        "your",
        "am",
        "any",
        "all",
        "also",
        "just",
        "get",
        "got",
        "using",
        "use",
        "used",
        "try",
        "tried",
        "please",
        "help",
        "thanks",
        "thank",
        "any",
        "here",
        "same",
        "one",
    ]
)
_URL = re.compile(r"https?://\S+")
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.+-]+){2,}[\\/]?")
_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")
_WORD = re.compile(r"[a-z][a-z_]+")


def _basename(match: re.Match[str]) -> str:
    return " " + re.split(r"[\\/]", match.group(0).rstrip("\\/"))[-1] + " "


def tokens(lines: Sequence[str]) -> list[str]:
    """The words of cleaned lines (see the module docstring), and ``rule:<id>`` for each line a
    log rule recognises."""
    from tf_gpucheck.reading import logscan

    out: list[str] = []
    for line in logscan.classify(lines):
        if line.rule is not None:
            out += [f"rule:{line.rule.id}"] * RULE_WEIGHT
        text = _PATH.sub(_basename, _HEX.sub(" ", _URL.sub(" ", line.message))).lower()
        out += [word for word in _WORD.findall(text) if word not in _STOP]
    return out


def query_tokens(lines: Sequence[str], classified: Sequence[Any]) -> list[str]:
    """The query for a text already read: the whole text when it is a paste; for a program's
    long log, only the lines a rule recognises (their templates and words), once each."""
    from tf_gpucheck.reading import logscan

    if len(lines) <= logscan.PASTE_LINES:
        return tokens(lines)
    recognised = list(dict.fromkeys(line.text for line in classified if line.rule is not None))
    return tokens(recognised[:500])


def for_logs(
    logs: Sequence[tuple[str, Sequence[str]]], *, exclude: str | None = None
) -> list[Match]:
    """The solved reports closest to a program's own logs (``doctor --log``: (label, normalised
    lines) pairs), read together as one text (``exclude``: a report's own thread, to measure)."""
    from tf_gpucheck.reading import logscan

    lines = logscan.rejoin([line for _, text in logs for line in text])
    if not lines:
        return []
    return similar(query_tokens(lines, logscan.classify(lines)), exclude=exclude)


def text_tokens(text: str) -> list[str]:
    from tf_gpucheck.reading import logscan, textlines

    return tokens(logscan.rejoin(textlines.normalise(text)))


# --- BM25 -------------------------------------------------------------------------------------


class Index:
    """Okapi BM25 over the reports' tokens (title and text)."""

    def __init__(
        self, reports: Sequence[SolvedReport], known: dict[str, list[str]] | None = None
    ) -> None:
        """``known``: tokens already read, by URL (:func:`shipped_tokens`)."""
        self.reports = tuple(reports)
        known = known or {}
        self.docs = [
            Counter(known[r.url] if r.url in known else text_tokens(r.title + "\n" + r.text))
            for r in self.reports
        ]
        self.lengths = [sum(doc.values()) for doc in self.docs]
        self.average = sum(self.lengths) / max(len(self.lengths), 1)
        frequency: Counter[str] = Counter()
        for doc in self.docs:
            frequency.update(doc.keys())
        total = len(self.docs)
        self.idf = {t: math.log(1 + (total - n + 0.5) / (n + 0.5)) for t, n in frequency.items()}

    def search(self, query: Iterable[str], *, exclude: str | None = None) -> list[Match]:
        """Every report that shares a token with ``query``, best first (``exclude``: a URL to
        leave out, for leave-one-out measurement)."""
        terms = Counter(t for t in query if t in self.idf)
        best = sum(self.idf[t] * (K1 + 1) for t in terms)
        if not best:
            return []
        found = []
        for report, doc, length in zip(self.reports, self.docs, self.lengths, strict=True):
            if exclude is not None and report.url == exclude:
                continue
            score = 0.0
            shared = 0
            template = False
            norm = K1 * (1 - B + B * length / self.average)
            for term in terms:
                count = doc.get(term)
                if count:
                    score += self.idf[term] * count * (K1 + 1) / (count + norm)
                    shared += 1
                    template = template or term.startswith("rule:")
            if score and (template or shared >= MIN_SHARED):
                found.append(Match(report, score / best))
        found.sort(key=lambda m: -m.score)
        return found


@functools.cache
def index() -> Index:
    return Index(load_reports(), shipped_tokens())


TOKENS_FILE = "reports/tokens.json"
"""Every report's tokens, read once when the package is built (``python scripts/similar_tokens.py``):
reading 480 reports through the rules takes most of a second, loading their tokens a few
milliseconds. Used only while its digest matches what makes the tokens (the reports, the rules,
and the code that reads them); tests/test_similar.py checks that the shipped file does."""

_TOKEN_SOURCES = ("similar.py", "reading/logscan.py", "reading/textlines.py", "reading/logrules.py")


def sources_digest() -> str:
    """A digest of everything a report's tokens depend on."""
    import hashlib
    from importlib import resources

    digest = hashlib.sha256()
    package = resources.files("tf_gpucheck")
    files = [package.joinpath(name) for name in _TOKEN_SOURCES]
    for folder in ("reports", "rules"):
        files += [
            package.joinpath("knowledge").joinpath(folder).joinpath(f"{name}.yaml")
            for name in knowledge.names(folder)
        ]
    for node in files:
        digest.update(str(node.name).encode() + b"\0" + node.read_bytes() + b"\0")
    return digest.hexdigest()


def shipped_tokens() -> dict[str, list[str]]:
    """The tokens built with the package, by URL; empty when they are missing or stale."""
    import json
    from importlib import resources

    try:
        data = json.loads(
            resources.files(knowledge.__name__).joinpath(TOKENS_FILE).read_text(encoding="utf-8")
        )
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("digest") != sources_digest():
        return {}
    tokens_by_url = data.get("tokens")
    return tokens_by_url if isinstance(tokens_by_url, dict) else {}


def fresh_tokens() -> dict[str, list[str]]:
    """Every report's tokens, read now (what the shipped file must hold)."""
    return {r.url: text_tokens(r.title + "\n" + r.text) for r in load_reports()}


def similar(
    query: Sequence[str],
    *,
    limit: int = 3,
    exclude: str | None = None,
    threshold: float = THRESHOLD,
) -> list[Match]:
    """The solved reports most like a text's ``query`` tokens (:func:`tokens`), at most
    ``limit``, none below ``threshold``."""
    return [m for m in index().search(query, exclude=exclude) if m.score >= threshold][:limit]


def likely_cause(matches: Sequence[Match]) -> tuple[str | None, float]:
    """The cause the matches point at (score-weighted vote; ``None`` for harmless noise) and the
    share of the weight it has."""
    weights: dict[str, float] = {}
    for match in matches:
        key = match.report.cause or "(noise)"
        weights[key] = weights.get(key, 0.0) + match.score
    if not weights:
        return None, 0.0
    cause, weight = max(weights.items(), key=lambda kv: kv[1])
    share = weight / sum(weights.values())
    return (None if cause == "(noise)" else cause), share
