"""What pip said it could not install: the requirement and the versions it saw, from its
resolver's own lines ("Could not find a version that satisfies the requirement X (from versions:
...)", "No matching distribution found for X"; pypa/pip: src/pip/_internal/resolution/resolvelib/
factory.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tf_gpucheck.checks.diagnosis import Evidence

_PIP_WANTED = re.compile(
    r"(?:satisfies the requirement|distribution found for) (?P<name>[A-Za-z0-9_.\-]+)"
    r"(?:\[[^\]]*\])?(?P<spec>[^\s(;\"'`]*)"
    # its marker, as pip prints a requirement from an extra: '; extra == "and-cuda"'
    r"(?:;[^()]*)?"
    # pip names where a requirement came from first: "(from -r requirements.txt (line 1))"
    r"(?:\s*\((?!from versions)[^()]*(?:\([^()]*\)[^()]*)*\))*"
    r"(?:\s*\(from versions: (?P<versions>[^)]*)\))?"
)


def pip_said(evidence: Sequence[Evidence]) -> tuple[str, str, list[str] | None] | None:
    """(name, version spec, the versions pip offered) from pip's resolver lines; a line that
    lists the versions pip saw ("(from versions: ...)") speaks before one that does not."""
    found: list[tuple[str, str, list[str] | None]] = []
    for item in evidence:
        match = _PIP_WANTED.search(item.line.message)
        if match:
            offered = match.group("versions")
            versions = (
                [v.strip() for v in offered.split(",") if v.strip() and v.strip() != "none"]
                if offered is not None
                else None
            )
            found.append((match.group("name").lower(), match.group("spec"), versions))
    return next(
        (f for f in found if f[2] is not None),
        next((f for f in found if f[1]), found[0] if found else None),
    )


def final_release(versions: Sequence[str]) -> str | None:
    """The newest final release of ``versions`` (pip's offer), pre-releases and what does not parse
    left out."""
    from packaging.version import InvalidVersion, Version

    finals = []
    for text in versions:
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if not version.is_prerelease:
            finals.append(version)
    return str(max(finals)) if finals else None
