"""The doctor's checks: small pure functions ``(snapshot, matrix) -> Finding``, one registry.

Checks are listed bottom-up, layer by layer (platform, Python, TensorFlow, driver, libraries,
GPUs, what TensorFlow made of them), so the first failure in this order is the first thing to
fix. A check reads the snapshot and the matrix only; it never reaches the hardware.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tf_gpucheck.checks.findings import Finding
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import Snapshot

CheckFunction = Callable[[Snapshot, Matrix], Finding]


@dataclass(frozen=True)
class Check:
    id: str
    title: str
    function: CheckFunction
    gpu: bool
    """Only matters for using a GPU: --allow-cpu turns its failure into a warning."""


REGISTRY: list[Check] = []


def check(id: str, title: str, *, gpu: bool = False) -> Callable[[CheckFunction], CheckFunction]:
    def register(function: CheckFunction) -> CheckFunction:
        REGISTRY.append(Check(id, title, function, gpu))
        return function

    return register


def check_ids() -> list[str]:
    return [c.id for c in REGISTRY]


LAYERS = (
    "platform",
    "installer",
    "imports",
    "requirements",
    "install",
    "driver",
    "libraries",
    "gpus",
    "runtime",
)
"""The modules of :mod:`tf_gpucheck.checks.layers`, bottom up: their checks run in this order, and
within a module in the order they are written."""


def _register_layers() -> None:
    import importlib

    for name in LAYERS:
        importlib.import_module(f"tf_gpucheck.checks.layers.{name}")
    rank = {f"tf_gpucheck.checks.layers.{name}": i for i, name in enumerate(LAYERS)}
    order = {id(c): i for i, c in enumerate(REGISTRY)}
    REGISTRY.sort(key=lambda c: (rank.get(c.function.__module__, len(LAYERS)), order[id(c)]))


_register_layers()
