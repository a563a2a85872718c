"""Whether a version a text states is one it needs rather than one it has ("TF 1.14 needs CUDA
10.0", "CUDA一定要9.0", "CUDA 8.0に対応した"): the words around it, by language
(``knowledge/facts.yaml`` ``needs``)."""

from __future__ import annotations

import re

from tf_gpucheck.reading import factrules

NEEDABLE = frozenset(
    {"tf_version", "python_version", "cuda_version", "cudnn_version", "driver_version"}
)
_NEED_WINDOW = 24
"""How far before a version's name a need word may stand ("TF 1.14 needs CUDA 10.0")."""


def needed(rules: factrules.FactRules, line: str, match: re.Match[str]) -> bool:
    """The words of the same clause just before the match, between its name and its version,
    or right after it (Japanese and Korean put the verb last: "CUDA 8.0に対応した") say the
    version is needed or asked for ("requiring CUDA 10", "CUDA一定要9.0"), not installed."""
    if rules.needs is None:
        return False
    before = line[max(0, match.start() - _NEED_WINDOW) : match.start()]
    between = line[match.start() : match.start("v")] if "v" in match.re.groupindex else ""
    after = line[match.end() : match.end() + _NEED_AFTER]
    before = _CLAUSE.split(before)[-1]
    # only a verb-final language's words attach right after the version ("8.0に対応した");
    # in English the words after a version are the sentence's next part ("1.14 needs CUDA")
    if _PASSIVE_NEED.match(line, match.end()):
        return True  # "CUDA 11.8 is required"
    after = _CLAUSE.split(after)[0] if _CJK.match(after) else ""
    return any(rules.needs.search(part) for part in (before, between, after))


_PASSIVE_NEED = re.compile(r"\s*(?:is |are |was )?(?:required|needed|necessary)\b", re.IGNORECASE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_NEED_AFTER = 8
"""How far after a version a need word may stand (the verb last: "8.0に対応した")."""
_CLAUSE = re.compile(r"(?<!\d)\.(?!\d)|[;!?,，。；！？]|\band\b|\bbut\b|\bhave\b|\bhas\b|\bby\b")
"""Where a clause ends: a full stop (not a decimal point), other punctuation, a conjunction, or
"have" (what follows is what is there)."""
