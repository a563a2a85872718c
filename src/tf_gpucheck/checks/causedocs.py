"""Every cause code documented, from ``knowledge/causes.yaml``: what it means, how to confirm it
by hand, the fix per platform, the sources, and (from the log rules) the messages that point to
it. ``gpucheck explain --cause CODE`` prints one; the README's cause table is made from them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from tf_gpucheck import knowledge
from tf_gpucheck.errors import GpucheckError

PLATFORMS = ("any", *knowledge.PLACES, "container", "podman")


@dataclass(frozen=True)
class CauseDoc:
    code: str
    title: str
    meaning: str
    confirm: tuple[str, ...]
    """Commands or steps, one line each, that confirm it by hand."""
    fix: tuple[tuple[str, str], ...]
    """(platform, fix) where the fix differs by platform; ``any`` applies everywhere."""
    sources: tuple[str, ...]


def _bad(what: str) -> GpucheckError:
    return knowledge.invalid("causes.yaml", what)


@functools.cache
def load() -> dict[str, CauseDoc]:
    data: Any = knowledge.read("causes.yaml")
    if not isinstance(data, dict) or not isinstance(data.get("causes"), list):
        raise _bad("expected a list under 'causes'")
    docs: dict[str, CauseDoc] = {}
    fields = {"code", "title", "meaning", "confirm", "fix", "sources"}
    for entry in data["causes"]:
        if not isinstance(entry, dict) or set(entry) != fields:
            raise _bad(f"an entry must have exactly the fields {sorted(fields)}: {entry!r}")
        fix = entry["fix"] or {}
        unknown = set(fix) - set(PLATFORMS)
        if unknown:
            raise _bad(f"{entry['code']}: unknown platforms {sorted(unknown)}")
        docs[str(entry["code"])] = CauseDoc(
            code=str(entry["code"]),
            title=str(entry["title"]),
            meaning=" ".join(str(entry["meaning"]).split()),
            confirm=tuple(str(c) for c in entry["confirm"] or ()),
            fix=tuple((str(k), str(v)) for k, v in fix.items()),
            sources=tuple(str(s) for s in entry["sources"] or ()),
        )
    return docs


def doc(code: str) -> CauseDoc:
    """The documentation of ``code``; an unknown code is bad input."""
    docs = load()
    if code not in docs:
        close = [c for c in docs if code.lower() in c or c in code.lower()]
        raise GpucheckError(
            f"--cause {code!r}: no such cause code",
            reference="cause-unknown",
            hint=f"did you mean {close[0]}? " if close else "gpucheck explain --list shows them",
        )
    return docs[code]


def fix_where(code: str, platforms: tuple[str, ...]) -> str | None:
    """The documented fix of ``code`` for the first of ``platforms`` it has one for, else its
    ``any`` one: the cause's words live in causes.yaml alone (the remedies read them here)."""
    fixes = dict(doc(code).fix)
    for platform in (*platforms, "any"):
        if platform in fixes:
            return fixes[platform]
    return None


def messages(code: str, limit: int = 3) -> list[tuple[str, str]]:
    """(rule id, a real example line) of the log rules that point to ``code``."""
    from tf_gpucheck.reading.logrules import load as rules

    found = []
    for rule in rules():
        if rule.cause == code and rule.examples:
            found.append((rule.id, rule.examples[0].line.strip()))
    return found[:limit]
