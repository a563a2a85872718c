"""A Dockerfile read as facts, each with its line: the base image, the Python packages the RUN
lines install (pip, uv pip, conda), the variables ENV bakes in, the driver packages apt installs.

Only the final stage is judged (the image that runs); a ``FROM`` naming an earlier stage takes
that stage's facts. ``ARG`` defaults fill ``${VAR}`` in ``FROM``. Facts, no judgement.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Install:
    """One requirement a RUN line installs."""

    line: int
    tool: str
    """pip, uv, conda."""
    requirement: str
    """As written (``tensorflow[and-cuda]==2.15.*``, ``numpy>=2``)."""


@dataclass
class Stage:
    base: str
    """The image as written after substitution (``nvidia/cuda:12.2.2-cudnn8-runtime-ubuntu22.04``)."""
    base_line: int
    name: str | None = None
    installs: list[Install] = field(default_factory=list)
    env: dict[str, tuple[str, int]] = field(default_factory=dict)
    """Variable -> (value, line)."""
    apt: list[tuple[str, int]] = field(default_factory=list)
    """apt-get / apt / yum / dnf packages installed, with their line."""


def logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, instruction) with continuations joined and comments dropped."""
    out: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if current and line.lstrip().startswith("#"):
            continue  # a comment inside a continued instruction
        if not current:
            start = number
        if line.endswith("\\"):
            current.append(line[:-1])
            continue
        current.append(line)
        out.append((start, " ".join(part.strip() for part in current)))
        current = []
    if current:
        out.append((start, " ".join(part.strip() for part in current)))
    return out


_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}?")
_PIP_INSTALL = re.compile(
    r"(?:^|[;&|(]\s*|\s)(?:\S*python3?(?:\.\d+)?\s+-m\s+)?(?:pip3?|uv\s+pip)\s+install\s+(?P<args>[^;&|]*)"
)
_CONDA_INSTALL = re.compile(r"(?:conda|mamba|micromamba)\s+install\s+(?P<args>[^;&|]*)")
_APT_INSTALL = re.compile(
    r"(?:apt-get|apt|yum|dnf|microdnf)\s+(?:-\S+\s+)*install\s+(?P<args>[^;&|]*)"
)
_OPTIONS_WITH_VALUE = frozenset(
    {"-r", "-c", "-e", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
     "--target", "-t", "--prefix", "--root", "--python", "--constraint", "--requirement",
     "-n", "--name", "-p", "--channel"}
)  # fmt: skip


def _substitute(value: str, variables: dict[str, str]) -> str:
    return _VAR.sub(lambda m: variables.get(m.group(1), m.group(2) or ""), value)


def _words(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


def _requirements(args: str) -> list[str]:
    out = []
    skip = False
    for word in _words(args):
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            skip = word in _OPTIONS_WITH_VALUE
            continue
        if "/" in word and not word.startswith(("git+", "http")):
            continue  # a local path or wheel file
        out.append(word)
    return out


def parse(text: str) -> Stage | None:
    """The final stage of a Dockerfile (``None`` when it has no FROM)."""
    variables: dict[str, str] = {}
    stages: list[Stage] = []
    for number, instruction in logical_lines(text):
        keyword, _, rest = instruction.partition(" ")
        keyword = keyword.upper()
        rest = rest.strip()
        if keyword == "ARG":
            name, _, default = rest.partition("=")
            if default and name.strip():
                variables.setdefault(name.strip(), default.strip().strip("\"'"))
            continue
        if keyword == "FROM":
            words = [w for w in rest.split() if not w.startswith("--")]
            if not words:
                continue
            image = _substitute(words[0], variables)
            alias = words[2] if len(words) >= 3 and words[1].upper() == "AS" else None
            parent = next((s for s in stages if s.name and s.name == image), None)
            stage = Stage(base=image, base_line=number, name=alias)
            if parent is not None:  # FROM an earlier stage: its facts carry over
                stage.base, stage.base_line = parent.base, parent.base_line
                stage.installs = list(parent.installs)
                stage.env = dict(parent.env)
                stage.apt = list(parent.apt)
            stages.append(stage)
            continue
        if not stages:
            continue
        stage = stages[-1]
        if keyword == "ENV":
            pairs = re.findall(r'([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\'[^\']*\'|\S*)', rest)
            if not pairs and " " in rest:  # the old form: ENV KEY value
                key, _, value = rest.partition(" ")
                pairs = [(key, value)]
            for key, value in pairs:
                stage.env[key] = (_substitute(value.strip("\"'"), variables), number)
        elif keyword == "RUN":
            command = _substitute(rest, variables)
            for match in _PIP_INSTALL.finditer(command):
                tool = "uv" if "uv" in match.group(0).split("install")[0] else "pip"
                stage.installs += [Install(number, tool, r) for r in _requirements(match["args"])]
            for match in _CONDA_INSTALL.finditer(command):
                stage.installs += [
                    Install(number, "conda", r) for r in _requirements(match["args"])
                ]
            for match in _APT_INSTALL.finditer(command):
                stage.apt += [(p, number) for p in _requirements(match["args"])]
    return stages[-1] if stages else None
