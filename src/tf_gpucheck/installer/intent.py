"""A fix as a value: the package steps a check asks of the target's installer, and why.

Checks build a :class:`Fix` and never format a command; :func:`tf_gpucheck.installer.writer.write`
alone turns it into the line a person pastes, for the target's installer and its settings. A
step holds requirements and options as the installer takes them (one word each), so nothing is
ever read back from printed text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_BARE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class Install:
    """Install ``requirements`` (PEP 508 strings) with the installer's ``options`` (``--upgrade``,
    ``--force-reinstall``, ``--no-deps``, ``--target DIR``: one word each, values after their
    option)."""

    requirements: tuple[str, ...]
    options: tuple[str, ...] = ()

    verb = "install"


@dataclass(frozen=True)
class Uninstall:
    """Uninstall the distributions ``names``."""

    names: tuple[str, ...]

    verb = "uninstall"


@dataclass(frozen=True)
class SetAside:
    """Move the file ``path`` aside (to ``path.disabled``) so that what it does stops and it can
    be put back: a ``.pth`` file that puts another environment's site-packages on ``sys.path``."""

    path: str

    verb = None


@dataclass(frozen=True)
class Remove:
    """Remove the folders ``paths``: the records (``*.dist-info``) of distributions in a folder
    of the user's (a ``--target`` layout), which the installer keeps there (pip's uninstall
    names only the environment's own packages)."""

    paths: tuple[str, ...]

    verb = None


@dataclass(frozen=True)
class RestorePip:
    """Put back the pip ``python`` ships (``ensurepip``; ``upgrade``: over one that does not run
    on it); there is no working installer to ask until it has run."""

    python: str
    upgrade: bool = True

    verb = None


@dataclass(frozen=True)
class FreshEnvironment:
    """Make a virtual environment at ``path`` with ``python`` (``clear``: again in place, its
    packages gone: one whose base interpreter is gone); it cannot be asked before it exists."""

    path: str
    python: str = "python3"
    clear: bool = False

    verb = None


@dataclass(frozen=True)
class CondaInstall:
    """Install conda ``specs`` (``tensorflow=2.15=cuda*``: name, version and build string, as
    conda matches them) from ``channel``: a package of a conda-managed environment, which pip
    would install beside rather than replace. Written as conda's own words, not pip's."""

    specs: tuple[str, ...]
    channel: str | None = None

    verb = "install"


@dataclass(frozen=True)
class Variable:
    """One environment variable for the commands after it and the program: set to ``value``,
    or unset where ``value`` is None; written in the target's shell's own words."""

    name: str
    value: str | None = None

    verb = None


Step = (
    Install
    | Uninstall
    | SetAside
    | Remove
    | RestorePip
    | FreshEnvironment
    | CondaInstall
    | Variable
)

HOST_STEPS = (SetAside, Remove, RestorePip, FreshEnvironment, CondaInstall, Variable)
"""Steps that are not the target installer's ``install``/``uninstall``: written as they are."""

NOT_ASKED = {
    RestorePip: "no working pip is in this environment until ensurepip puts one there: nothing to ask",
    FreshEnvironment: "a new environment cannot be asked before it exists",
}
"""Steps after which the installer cannot be asked in advance, and why (the proof says so)."""


@dataclass(frozen=True)
class Fix:
    """The steps, in order, and the note said after them (``#`` on the printed line)."""

    steps: tuple[Step, ...]
    note: str = ""

    @property
    def requirements(self) -> tuple[str, ...]:
        """Every requirement the installs name, in order."""
        return tuple(r for s in self.steps if isinstance(s, Install) for r in s.requirements)

    @property
    def installs(self) -> bool:
        return any(isinstance(s, Install) for s in self.steps)

    def noted(self, note: str) -> Fix:
        """The same steps with ``note`` (replacing the one there)."""
        return Fix(self.steps, note)

    def also(self, note: str) -> Fix:
        """The same steps with ``note`` said after the one there."""
        return Fix(self.steps, "; ".join(n for n in (self.note, note) if n))

    def to_dict(self) -> dict[str, object]:
        """The steps as data (``doctor --json``'s ``plan``): each ``{"install": [...],
        "options": [...]}``, ``{"uninstall": [...]}``, ``{"conda_install": [...], "channel": ...}``
        ``{"set_aside": path}``, ``{"remove": [...]}``, ``{"restore_pip": python}``,
        ``{"fresh_environment": path, "python": ..., "clear": ...}`` or ``{"variable": name,
        "value": ...}``, and the note."""
        steps: list[dict[str, object]] = []
        for step in self.steps:
            if isinstance(step, Install):
                steps.append({"install": list(step.requirements), "options": list(step.options)})
            elif isinstance(step, Uninstall):
                steps.append({"uninstall": list(step.names)})
            elif isinstance(step, CondaInstall):
                steps.append({"conda_install": list(step.specs), "channel": step.channel})
            elif isinstance(step, Variable):
                steps.append({"variable": step.name, "value": step.value})
            elif isinstance(step, SetAside):
                steps.append({"set_aside": step.path})
            elif isinstance(step, Remove):
                steps.append({"remove": list(step.paths)})
            elif isinstance(step, RestorePip):
                steps.append({"restore_pip": step.python})
            else:
                steps.append(
                    {"fresh_environment": step.path, "python": step.python, "clear": step.clear}
                )
        return {"steps": steps, "note": self.note}

    def text(self) -> str:
        """The intent as plain ``pip`` words, for a reader without a target (``explain``)."""
        return line([plain_words(s) for s in self.steps], [self.note] if self.note else [])


def install(*requirements: str, options: Iterable[str] = (), note: str = "") -> Fix:
    return Fix((Install(tuple(requirements), tuple(options)),), note)


def uninstall(*names: str, note: str = "") -> Fix:
    return Fix((Uninstall(tuple(names)),), note)


def then(*fixes: Fix, note: str | None = None) -> Fix:
    """The steps of ``fixes`` one after the other; their notes joined, unless ``note`` is given."""
    steps = tuple(s for f in fixes for s in f.steps)
    said = "; ".join(f.note for f in fixes if f.note) if note is None else note
    return Fix(steps, said)


def into_folder(fix: Fix, folder: str) -> Fix:
    """``fix`` with each install that names no folder of its own put into ``folder`` and
    upgraded there (``--target DIR --upgrade``: what a ``pip install --target`` layout takes)."""
    steps = tuple(
        Install(s.requirements, ("--target", folder, "--upgrade", *s.options))
        if isinstance(s, Install) and "--target" not in s.options and not _pip_itself(s)
        else s
        for s in fix.steps
    )
    return Fix(steps, fix.note)


def _pip_itself(step: Install) -> bool:
    return any(re.split(r"[\[<>=!~; ]", r, maxsplit=1)[0] == "pip" for r in step.requirements)


def quoted(requirement: str) -> str:
    """A requirement as one shell word: bare where it is a plain name, else in double quotes
    (``"numpy<2"``, ``"tensorflow[and-cuda]==2.21.*"``)."""
    return requirement if _BARE.match(requirement) else f'"{requirement}"'


def option_words(options: Iterable[str]) -> list[str]:
    from tf_gpucheck.target import shell_quote

    return [o if o.startswith("-") else shell_quote(o) for o in options]


def step_args(step: Install | Uninstall) -> list[str]:
    """What follows the verb (pip's form: ``-y`` before an uninstall's names)."""
    if isinstance(step, Install):
        return [*option_words(step.options), *(quoted(r) for r in step.requirements)]
    return ["-y", *step.names]


def step_values(step: Install | Uninstall, *, uv: bool = False) -> list[str]:
    """:func:`step_args` as the installer receives them, one argument each, unquoted."""
    if isinstance(step, Install):
        return [*step.options, *step.requirements]
    return [*([] if uv else ["-y"]), *step.names]


def plain_words(step: Step, *, windows: bool = False) -> str:
    from tf_gpucheck.target import shell_quote

    def q(path: str) -> str:
        return shell_quote(path, windows=windows)

    if isinstance(step, SetAside):
        return f"{'move' if windows else 'mv'} {q(step.path)} {q(step.path + '.disabled')}"
    if isinstance(step, Remove):
        return " ".join(["rmdir /s /q" if windows else "rm -rf", *(q(p) for p in step.paths)])
    if isinstance(step, RestorePip):
        return f"{q(step.python)} -m ensurepip{' --upgrade' if step.upgrade else ''}"
    if isinstance(step, FreshEnvironment):
        clear = " --clear" if step.clear else ""
        return f"{q(step.python)} -m venv{clear} {q(step.path)}"
    if isinstance(step, Variable):
        return variable_words(step, windows=windows)
    if isinstance(step, CondaInstall):
        channel = ["-c", step.channel] if step.channel else []
        return " ".join(["conda", "install", *channel, *(f'"{s}"' for s in step.specs)])
    return " ".join(["pip", step.verb, *step_args(step)])


def conda_install(*specs: str, channel: str | None = None, note: str = "") -> Fix:
    return Fix((CondaInstall(tuple(specs), channel),), note)


def set_aside(*paths: str, note: str = "") -> Fix:
    """Each file of ``paths`` moved aside (``P`` to ``P.disabled``)."""
    return Fix(tuple(SetAside(p) for p in paths), note)


def remove(*paths: str, note: str = "") -> Fix:
    return Fix((Remove(tuple(paths)),), note)


def restore_pip(python: str, note: str = "") -> Fix:
    return Fix((RestorePip(python),), note)


def fresh_environment(
    path: str, python: str = "python3", *, clear: bool = False, note: str = ""
) -> Fix:
    return Fix((FreshEnvironment(path, python, clear),), note)


def not_asked(fix: Fix) -> str:
    """Why the installer cannot be asked about ``fix`` before it runs ("" where it can)."""
    return next((NOT_ASKED[type(s)] for s in fix.steps if type(s) in NOT_ASKED), "")


def variable(name: str, value: str | None = None, note: str = "") -> Fix:
    """Set ``name`` to ``value`` (unset it where None) for what runs after."""
    return Fix((Variable(name, value),), note)


def variable_words(step: Variable, *, windows: bool = False) -> str:
    """A POSIX shell's ``export``/``unset``, or cmd.exe's ``set``, for the variable."""
    from tf_gpucheck.target import shell_quote

    if windows:
        return f"set {step.name}=" if step.value is None else f'set "{step.name}={step.value}"'
    if step.value is None:
        return f"unset {step.name}"
    return f"export {step.name}={shell_quote(step.value)}"


def line(parts: Iterable[str], notes: Iterable[str]) -> str:
    said = "; ".join(n for n in notes if n)
    command = " && ".join(parts)
    return f"{command}  # {said}" if said else command
