"""gpucheck's knowledge, shipped as cited data beside the code that interprets it.

- ``rules/<family>.yaml``: the log rules (pattern -> meaning, kind, cause), each with its
  source and its real examples (see ``README.md`` in this folder);
- ``causes.yaml``: every cause code documented: what it means, how to confirm it by hand, the
  fix per platform, the sources;
- ``facts.yaml``: the patterns that read facts people state in prose (versions, packages, OS);
- ``reports/<family>.yaml``: real, solved public reports (the similar-reports knowledge base);
- ``wheels.yaml``: which Pythons and platforms PyPI has wheels of for the packages of
  TensorFlow's family (read from PyPI's JSON API by ``scripts/pypi_wheels.py``);
- ``pythons.yaml``: the day each CPython release came out (its release-schedule PEP) and the
  first day PyPI had a final tensorflow wheel for each CPython minor (``scripts/python_dates.py``).

Files are read once, when first needed (never by ``gpucheck --help`` or ``detect``), with
libyaml where present.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

from tf_gpucheck.errors import ExitCode, GpucheckError


def read(*parts: str) -> Any:
    """One YAML file of this package's knowledge, parsed (cached by path)."""
    return _read("/".join(parts))


PLACES = ("linux", "windows", "wsl2", "macos", "kubernetes", "slurm", "colab", "kaggle", "jupyter")
"""Where a program runs, as the knowledge files name it: a cause's fix per platform
(``causes.yaml``), a solved report's platform (``reports/``)."""

BAD_ENTRY_HINT = "reinstall tf-gpucheck, or fix the entry (knowledge/README.md gives the format)"
"""What to do about a shipped knowledge entry that does not parse."""


def invalid(path: str, what: str) -> GpucheckError:
    """A shipped knowledge file (``rules/cuda.yaml``) whose entry does not parse: a broken
    install, never the user's input."""
    return GpucheckError(
        f"knowledge/{path}: {what}", reference="knowledge-invalid", hint=BAD_ENTRY_HINT
    )


@functools.cache
def _read(path: str) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: ~10x faster
    node = resources.files(__name__).joinpath(path)
    try:
        return yaml.load(node.read_text(encoding="utf-8"), Loader=loader)
    except (OSError, yaml.YAMLError) as exc:  # a broken install, never a user's input
        raise GpucheckError(
            f"gpucheck's own knowledge file {path} cannot be read: {exc}",
            reference="knowledge-unreadable",
            hint="reinstall tf-gpucheck",
            exit_code=ExitCode.USAGE,
        ) from exc


def names(folder: str) -> list[str]:
    """The YAML files of a knowledge folder (``rules``, ``reports``), by name."""
    return sorted(
        entry.name.removesuffix(".yaml")
        for entry in resources.files(__name__).joinpath(folder).iterdir()
        if entry.name.endswith(".yaml")
    )


def read_text(path: str) -> str:
    """One file of this package's knowledge as text (the reader's model, ``reader_model.json``)."""
    return resources.files(__name__).joinpath(path).read_text(encoding="utf-8")
