"""Node lists in the compact form cluster operators read and SLURM writes: ``gpu[001-012,017]``."""

from __future__ import annotations

import re
from collections.abc import Iterable

_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def natural_key(name: str) -> tuple[object, ...]:
    """Sort ``gpu2`` before ``gpu10``."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def compact(names: Iterable[str]) -> str:
    """``["gpu001", "gpu002", "gpu003", "gpu017", "login"]`` -> ``"gpu[001-003,017],login"``.

    Names ending in digits are grouped by what precedes the digits and by the digits' width when
    they are zero-padded (``gpu[001-003]``; ``node[1-3,10]`` when they are not), and consecutive
    numbers become ranges; names without a trailing number are listed as they are. Every name
    appears once."""
    plain: list[str] = []
    groups: dict[tuple[str, int], set[int]] = {}
    for name in dict.fromkeys(names):
        match = _NUMBERED.match(name)
        if match is None:
            plain.append(name)
            continue
        prefix, digits = match.groups()
        width = len(digits) if digits.startswith("0") and len(digits) > 1 else 0
        groups.setdefault((prefix, width), set()).add(int(digits))
    # An unpadded number can still have a padded width's length (gpu100 beside gpu001-gpu099).
    for prefix, width in list(groups):
        if width and (prefix, 0) in groups:
            fits = {n for n in groups[(prefix, 0)] if len(str(n)) == width}
            groups[(prefix, width)] |= fits
            groups[(prefix, 0)] -= fits
            if not groups[(prefix, 0)]:
                del groups[(prefix, 0)]
    parts: list[tuple[tuple[object, ...], str]] = [(natural_key(n), n) for n in plain]
    for (prefix, width), numbers in groups.items():
        ordered = sorted(numbers)
        text = _ranges(ordered, width)
        first = f"{ordered[0]:0{width}d}" if width else str(ordered[0])
        if len(ordered) == 1:
            parts.append((natural_key(prefix + first), prefix + first))
        else:
            parts.append((natural_key(prefix + first), f"{prefix}[{text}]"))
    return ",".join(text for _key, text in sorted(parts))


def _ranges(numbers: list[int], width: int) -> str:
    def show(n: int) -> str:
        return f"{n:0{width}d}" if width else str(n)

    out: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(show(start) if start == prev else f"{show(start)}-{show(prev)}")
        if n is not None:
            start = prev = n
    return ",".join(out)
