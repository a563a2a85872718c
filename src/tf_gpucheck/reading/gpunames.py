"""A GPU's name as people write it ("RTX 3090", "GTX750Ti", "Tesla K80") -> its compute
capability, from ``knowledge/gpus.yaml`` (NVIDIA's list of CUDA GPUs)."""

from __future__ import annotations

import functools
import re

from tf_gpucheck import knowledge
from tf_gpucheck.errors import GpucheckError


@functools.lru_cache(maxsize=1)
def table() -> tuple[tuple[re.Pattern[str], str], ...]:
    data = knowledge.read("gpus.yaml")
    try:
        return tuple(
            (re.compile(entry["pattern"], re.IGNORECASE | re.ASCII), str(entry["cc"]))
            for entry in data["gpus"]
        )
    except (KeyError, TypeError, re.error) as exc:
        raise GpucheckError(
            f"knowledge/gpus.yaml has a bad entry: {exc}",
            reference="knowledge-invalid",
            hint=knowledge.BAD_ENTRY_HINT,
        ) from exc


def capability_of(name: str) -> str | None:
    """The compute capability of the GPU ``name`` names, or ``None`` when the table has none."""
    for pattern, capability in table():
        if pattern.search(name):
            return capability
    return None
