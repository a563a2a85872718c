"""The package operations a written fix runs (``pip install``, ``pip uninstall``, ``uv pip
...``), as the writer made them with the printed line: what ``gpucheck fix`` runs and what the
proof asks the installer about. A printed line is never read back into operations."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from packaging.requirements import InvalidRequirement, Requirement

OUTSIDE_OPTIONS = frozenset({"-t", "--target"})
"""An install into a folder of the user's (``pip install --target DIR``, the folder a
``PYTHONPATH`` TensorFlow lives in): the installer proves it, ``gpucheck fix`` leaves it to the
user (the environment it records and restores does not hold that folder)."""


@dataclass(frozen=True)
class Operation:
    """One package operation of a step, as it runs."""

    verb: Literal["install", "uninstall"]
    runner: Literal["pip", "uv"]
    args: tuple[str, ...]
    """What follows the verb, as printed (``-y`` added for pip's uninstall)."""
    requirements: tuple[str, ...]
    """The requirements (install) or names (uninstall) it names."""
    environ: tuple[tuple[str, str], ...] = ()
    """The installer's variables set before it on the line (``PIP_NO_INDEX=0 pip install ...``)."""
    python: str | None = None
    """The interpreter ``P -m pip`` names by its full path: the command is proven and run with
    that interpreter, whichever it is (the target's own, or a venv's base interpreter, which
    uninstalls from the user site); ``None``: a bare ``pip`` or ``uv``, run for the target."""

    def environment(self, base: Mapping[str, str] | None = None) -> dict[str, str] | None:
        """The environment it runs in: ``base`` (else this process's) with its own variables;
        ``None`` (inherit) when it sets none and no ``base`` is given."""
        if not self.environ:
            return dict(base) if base is not None else None
        return {**(base if base is not None else os.environ), **dict(self.environ)}

    def argv(self, python: str, uv: str = "uv") -> list[str]:
        if self.runner == "uv":
            return [uv, "pip", self.verb, *self.args]
        return [self.python or python, "-m", "pip", self.verb, *self.args]

    def names(self) -> list[str]:
        out = []
        for requirement in self.requirements:
            try:
                out.append(Requirement(requirement).name)
            except InvalidRequirement:
                out.append(requirement)
        return out
