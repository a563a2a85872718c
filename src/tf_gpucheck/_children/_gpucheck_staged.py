"""A child's report, rewritten whole after every stage: when the framework it imports crashes or
hangs half-way, the parent (``tf_gpucheck._process``'s staged reader) still reads what was learnt
before.

Imported by tf_probe and framework_probe from their own folder, which each puts last on
``sys.path`` (``-I`` and ``PYTHONSAFEPATH`` leave a script's folder out; last, so that it shadows
nothing of the target's). Standard library only; the syntax Python 2.7 and 3.5+ share.
"""

import json
import os

try:  # only for the type comments; the typing module exists from Python 3.5
    from typing import Any, Dict, Optional
except ImportError:  # pragma: no cover - Python 2.7 without the typing backport
    Any = Dict = Optional = None  # type: ignore[assignment,misc]


def save(report, path, stage):
    # type: (Dict[str, Any], Optional[str], str) -> None
    """Record ``stage`` in ``report`` and write it to ``path`` (``None``: nowhere) in one step:
    written beside it, then renamed over it, so the parent never reads half a file."""
    report["stage"] = stage
    if path is None:
        return
    tmp = path + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(report, handle, default=str)
    getattr(os, "replace", os.rename)(
        tmp, path
    )  # os.replace: Python 3.3+ (rename replaces on POSIX)
