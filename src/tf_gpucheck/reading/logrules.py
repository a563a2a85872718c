"""The log rules: one rule per line shape TensorFlow and its neighbours print, read from data.

The rules live in ``tf_gpucheck/knowledge/rules/<family>.yaml`` (one file per family: pip and
imports, Keras, the driver, CUDA libraries, containers, TensorFlow's runtime), each with the
pattern of its message, what the line means (``explanation``), how much it matters (``kind``),
which cause code it is evidence for (``cause``, documented in ``knowledge/causes.yaml``), where
its wording comes from (``source``) and its real examples, which the tests run. A contributor
adds a rule by adding an entry; ``knowledge/README.md`` gives the format.

Rules are tried family by family in :data:`FAMILIES` order, then in file order, and the first
match wins, so specific rules come before general ones (``libcuda.so.1`` before any other
library, cuDNN before other CUDA libraries, and so on). Patterns match the message text, never
the logging prefix or the source path, because the same message moved between files and
prefixes across releases. ``keys`` are words of which at least one occurs in every line the
pattern matches: the scanner only tries a rule on a line that contains one of its keys (a test
checks every example against this).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Literal, get_args

from tf_gpucheck import knowledge
from tf_gpucheck.errors import GpucheckError

Kind = Literal["actionable", "harmless", "no_gpu", "good", "context"]
Shown = Literal["cuda_build", "gpu_found", "gpu_device"]
"""How much a line matters.

- ``actionable``: something to fix.
- ``no_gpu``: harmless on a machine without an NVIDIA GPU or driver, actionable where one is expected.
- ``harmless``: known noise.
- ``good``: evidence that a part works.
- ``context``: states a fact (a device, a host name, a version) that is neither good nor bad.
"""

FAMILIES = ("install", "keras", "driver", "cuda", "containers", "tensorflow")
"""The rule files, in the order their rules are tried."""


@dataclass(frozen=True)
class Example:
    line: str
    origin: str
    """``run: <recording>``, ``issue: <URL>`` or ``source: <repository: file>``."""


@dataclass(frozen=True)
class Rule:
    id: str
    regex: str
    """The pattern's text; :attr:`pattern` compiles it when the rule is first tried."""
    kind: Kind
    explanation: str
    cause: str | None
    source: str
    """Where the wording comes from: repository and file (and the releases, where known)."""
    keys: tuple[str, ...]
    """Words (runs of ASCII letters, digits and _) of which at least one occurs in every line the
    pattern matches: the scanner only tries a rule on a line that contains one of its keys."""
    family: str = ""
    examples: tuple[Example, ...] = ()
    shows: tuple[Shown, ...] = ()
    """What a line of this rule proves about the run that printed it, whatever else the text
    says: ``cuda_build`` (only TensorFlow's CUDA build prints it), ``gpu_found`` (that build
    reached a GPU through the driver), ``gpu_device`` (it made a GPU device: its CUDA libraries
    loaded)."""

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        # compiled on first use: most rules are never tried on a given log (see logscan's keys)
        return re.compile(self.regex)


_FIELDS = {"id", "kind", "cause", "pattern", "keys", "explanation", "source", "examples"}
_OPTIONAL = {"shows"}


def _bad(family: str, what: str) -> GpucheckError:
    return knowledge.invalid(f"rules/{family}.yaml", what)


def _parse(family: str, data: Any) -> list[Rule]:
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
        raise _bad(family, "expected a mapping with a list under 'rules'")
    sources = data.get("sources") or {}
    rules = []
    for entry in data["rules"]:
        if not isinstance(entry, dict) or not _FIELDS <= set(entry) <= _FIELDS | _OPTIONAL:
            raise _bad(family, f"a rule must have exactly the fields {sorted(_FIELDS)}: {entry!r}")
        shows = entry.get("shows") or []
        if not isinstance(shows, list) or not set(shows) <= set(get_args(Shown)):
            raise _bad(family, f"{entry['id']}: shows must list some of {get_args(Shown)}")
        if entry["kind"] not in get_args(Kind):
            raise _bad(family, f"{entry['id']}: unknown kind {entry['kind']!r}")
        if not isinstance(entry["pattern"], str) or not entry["pattern"]:
            raise _bad(family, f"{entry['id']}: the pattern must be a non-empty string")
        rules.append(
            Rule(
                id=entry["id"],
                regex=entry["pattern"],
                kind=entry["kind"],
                explanation=entry["explanation"],
                cause=entry["cause"],
                source=str(sources.get(entry["source"], entry["source"])),
                keys=tuple(str(key) for key in entry["keys"]),
                family=family,
                examples=tuple(Example(e["line"], e["origin"]) for e in entry["examples"] or ()),
                shows=tuple(shows),
            )
        )
    return rules


@functools.cache
def load() -> tuple[Rule, ...]:
    """Every rule, in the order they are tried (read once)."""
    rules: list[Rule] = []
    for family in FAMILIES:
        rules += _parse(family, knowledge.read("rules", f"{family}.yaml"))
    return tuple(rules)
