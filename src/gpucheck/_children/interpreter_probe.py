"""Report the interpreter and its installed distributions as JSON on stdout.

Runs in the target interpreter; standard library only, Python 3.8+. Facts only: gpucheck
classifies them.
"""

from __future__ import annotations

import json
import platform
import re
import sys
from typing import Any

try:
    from importlib import metadata
except ImportError:  # pragma: no cover - Python < 3.8
    metadata = None  # type: ignore[assignment]

# shared libraries, plus the XLA tools that the nvidia-cuda-nvcc wheels ship
_LIB_FILE = re.compile(
    r"(^|/)lib[^/]*\.so(\.[0-9.]+)?$|\.dll$|/bin/ptxas(\.exe)?$|libdevice\.10\.bc$"
)


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def collect() -> dict[str, Any]:
    distributions: list[dict[str, Any]] = []
    seen: set[str] = set()
    if metadata is not None:
        for dist in metadata.distributions():
            raw_name = dist.metadata["Name"]
            if not raw_name:
                continue
            name = _normalise(raw_name)
            if name in seen:  # the first on sys.path wins, as at import time
                continue
            seen.add(name)
            entry: dict[str, Any] = {
                "name": name,
                "version": dist.version,
                "requires": None,
                "libs": None,
            }
            if name.startswith(("tensorflow", "tf-nightly", "intel-tensorflow")):
                entry["requires"] = list(dist.requires or [])
            if name.startswith("nvidia-"):
                libs: list[str] = []
                for file in dist.files or []:
                    if _LIB_FILE.search(str(file).replace("\\", "/")):
                        libs.append(str(file.locate()))
                entry["libs"] = sorted(libs)
            distributions.append(entry)
    return {
        "python_version": platform.python_version(),
        "python_executable": sys.executable,
        "distributions": sorted(distributions, key=lambda d: str(d["name"])),
    }


if __name__ == "__main__":
    json.dump(collect(), sys.stdout)
