"""A :class:`~tf_gpucheck.installer.intent.Fix` written as the line a person pastes, for the
target: its interpreter, the installer it really has (pip, ``uv pip --python``, ``--user``,
``%pip`` in a kernel) and that installer's observed settings (no index, an install location set
elsewhere). Each decision is taken on the steps themselves; nothing is read back from text.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field, replace

from tf_gpucheck.installer.intent import (
    HOST_STEPS,
    NOT_ASKED,
    Fix,
    Install,
    RestorePip,
    Step,
    Uninstall,
    Variable,
    line,
    not_asked,
    plain_words,
    step_args,
    step_values,
)
from tf_gpucheck.installer.operations import Operation
from tf_gpucheck.snapshot import Snapshot

FRESH_ENVIRONMENT = "~/.venvs/tensorflow"
"""Where a fresh environment goes when the installer refuses the target."""
NO_INDEX_OFF = "PIP_NO_INDEX=0"
OFFLINE_OFF = "UV_OFFLINE=0"
NO_INDEX_SAID = "is set not to use the package index"
LOCATION_SAID = "your pip is set to install elsewhere"


@dataclass(frozen=True)
class Part:
    """One command of the line: its words (after the variables set before it), what it does and
    with which runner (``pip``: the user's ``pip``; ``python``: ``P -m pip`` of the target;
    ``base``: the venv's base interpreter; ``uv``; ``magic``: ``%pip``; ``ensurepip``: the
    target's own ensurepip first; ``other``)."""

    words: str
    verb: str | None
    runner: str
    requirements: tuple[str, ...] = ()
    environ: tuple[tuple[str, str], ...] = ()
    args: tuple[str, ...] = ()
    """What follows the verb, one argument each (unquoted), as the installer takes them."""
    python: str | None = None
    """The interpreter that runs it (``P -m pip``), where one is named by its path."""

    def text(self) -> str:
        set_before = [f"{n}={shlex.quote(v) if v else ''}" for n, v in self.environ]
        return " ".join([*set_before, self.words])


@dataclass
class _Line:
    parts: list[Part]
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        return line([p.text() for p in self.parts], self.notes)


def write(fix: Fix, snapshot: Snapshot, *, user: bool | None = None) -> str:
    """``fix`` written for the target's installer and its settings. ``user=False`` writes it
    without ``--user`` whatever the facts say (the alternative asked where ``--user`` is
    refused)."""
    return written(fix, snapshot, user=user).line


@dataclass(frozen=True)
class Written:
    """A fix written for the target: the line a person pastes and the package operations it runs
    (what the proof asks the installer and ``gpucheck fix`` runs), from the same parts;
    ``why_not`` where a part is not package work in the target (then no operations)."""

    line: str
    operations: tuple[Operation, ...]
    why_not: str = ""
    note: str = ""
    """What the line says after its ``#``."""


def written(fix: Fix, snapshot: Snapshot, *, user: bool | None = None) -> Written:
    """:func:`write`, with the operations of the line."""
    line_ = _with_location(_with_index(_for_target(fix, snapshot, user), snapshot), snapshot)
    made = _operations(line_)
    unasked = not_asked(fix)
    return replace(made, operations=(), why_not=unasked) if unasked else made


def _operations(line_: _Line) -> Written:
    from typing import Literal, cast

    text = line_.text()
    note = "; ".join(n for n in line_.notes if n)
    operations: list[Operation] = []
    if any(part.runner == "ensurepip" for part in line_.parts):
        return Written(text, (), NOT_ASKED[RestorePip], note)  # no pip to ask until it has run
    for part in line_.parts:
        if part.verb not in ("install", "uninstall") or part.runner in ("magic", "other", "fresh"):
            return Written(text, (), "not a package operation in this environment", note)
        verb = cast(Literal["install", "uninstall"], part.verb)
        runner: Literal["pip", "uv"] = "uv" if part.runner == "uv" else "pip"
        python = part.python if part.python and os.path.isabs(part.python) else None
        operations.append(
            Operation(verb, runner, part.args, part.requirements, part.environ, python=python)
        )
    return Written(text, tuple(operations), "", note)


def _plain(fix: Fix, *, windows: bool = False) -> _Line:
    return _Line(
        [Part(plain_words(s, windows=windows), s.verb, "pip", _requirements(s)) for s in fix.steps],
        [fix.note] if fix.note else [],
    )


def _requirements(step: Step) -> tuple[str, ...]:
    if isinstance(step, HOST_STEPS):
        return ()
    return step.requirements if isinstance(step, Install) else step.names


def _for_target(fix: Fix, snapshot: Snapshot, user_wanted: bool | None) -> _Line:
    """The runner of every step, from what was observed in the user's setting:

    - in a notebook kernel that is the target: ``%pip`` (IPython runs the kernel's own pip);
    - an environment uv made without pip: ``uv pip ... --python P`` when uv is on the user's
      PATH, else the target's own ``ensurepip`` first;
    - plain ``pip`` only where the ``pip`` on the user's PATH says it installs into the target
      (``pip --version``); otherwise the target interpreter's own ``P -m pip``;
    - ``--user`` where TensorFlow lives in the user site (its CUDA wheels must be found next to
      it, through its RUNPATH ``$ORIGIN/../nvidia/...``), unless the installer refuses it;
    - an installer that refuses to install into the target at all (PEP 668, require-virtualenv):
      a fresh virtual environment made with the target's interpreter, with the refusal said."""
    from tf_gpucheck.installer.commands import main_distributions
    from tf_gpucheck.target import shell_quote

    target = snapshot.target
    windows = snapshot.system.os == "Windows"
    if not any(isinstance(s, Install | Uninstall) for s in fix.steps):
        return _plain(fix, windows=windows)
    if target.error and not snapshot.system.python_version:
        return _plain(fix, windows=windows)  # it did not answer as a Python: no command may name it
    python = shell_quote(target.python_executable, windows=windows)
    installer = snapshot.installer
    user = any(d.location == "user_site" for d in main_distributions(snapshot))
    kernel = snapshot.kernel
    in_kernel = kernel is not None and kernel.python == target.python_executable
    steps = list(fix.steps)
    outside: dict[int, Part] = {}
    said: list[str] = []
    if user and target.kind == "venv":
        # site.py puts a venv's own site-packages ahead of the user site ("ensures venv takes
        # precedence over user-site"): pip refuses --user there when it would lose ("Will not
        # install to the user site because it will lack sys.path precedence"), so install into
        # the venv; and a venv's pip leaves the user site alone ("Not uninstalling ... outside
        # environment"): its base interpreter removes what is there
        user = False
        if not in_kernel:  # a notebook cell runs %pip, not a shell command line
            steps, outside, said = _uninstall_outside(steps, snapshot)
    if user and refused(snapshot, ("--user",)) is not None:
        user = False
    if user_wanted is False:
        user = False
    notes = [*([fix.note] if fix.note else []), *said]

    def parts(runner: str, head: str, flag: str = "", tail: str = "") -> list[Part]:
        made = []
        for index, step in enumerate(steps):
            if index in outside:
                made.append(outside[index])
                continue
            if isinstance(step, HOST_STEPS):
                made.append(Part(plain_words(step, windows=windows), None, "other"))
                continue
            args = step_args(step)
            if runner == "uv" and isinstance(step, Uninstall):
                args = args[1:]  # uv's uninstall asks nothing: pip's -y has no place there
            flags = [flag] if flag and isinstance(step, Install) else []
            words = [head, step.verb, *flags, *([tail] if tail else []), *args]
            taken = [*flags, *(["--python", target.python_executable] if tail else [])]
            made.append(
                Part(
                    " ".join(words),
                    step.verb,
                    runner,
                    _requirements(step),
                    args=(*taken, *step_values(step, uv=runner == "uv")),
                    python=target.python_executable if runner == "python" else None,
                )
            )
        return made

    if in_kernel:
        # in a notebook, %pip runs pip with the kernel's own interpreter (IPython's magic)
        return _Line(parts("magic", "%pip", "--user" if user else ""), notes)
    refusal = refused(snapshot, ())
    no_user = refusal is not None and accepted(snapshot, ("--no-user",))
    if no_user:
        refusal, user = None, False
    # a venv's installs go into the venv (above); pip's own `user` setting would send them to
    # the user site, where it refuses a package the venv also has ("Will not install to the
    # user site because it will lack sys.path precedence to protobuf in ...")
    into_venv = (
        target.kind == "venv" and installer is not None and installer.user_setting() is not None
    )
    if refusal is not None and fix.installs and target.python_executable:
        return _fresh(fix, snapshot, refusal)
    if target.installer == "uv" and target.python_executable:
        if installer is None or (installer.tool == "uv" and installer.error is None):
            return _Line(parts("uv", "uv pip", tail=f"--python {python}"), notes)
        # uv is not on the user's PATH: give the environment its own pip first
        ensure = Part(
            plain_words(RestorePip(target.python_executable, upgrade=False)), None, "ensurepip"
        )
        return _Line([ensure, *parts("python", f"{python} -m pip")], notes)
    crashed = installer is not None and (
        installer.crash() is not None
        or (installer.own_crash is not None and _unsets_pythonpath(fix))
    )
    if (
        installer is not None
        and (installer.tool is None or crashed)
        and (target.installer is None or crashed)
        and not target.error
        and target.python_executable
    ):
        # no pip in the environment (python -m venv --without-pip, a stripped image), or a pip
        # that crashes on this Python: its own ensurepip (--upgrade: over the broken one) before
        # its first pip
        restore = RestorePip(target.python_executable, upgrade=crashed)
        ensure = Part(plain_words(restore, windows=windows), None, "ensurepip")
        made = parts("python", f"{python} -m pip")
        first = next((i for i, p in enumerate(made) if p.runner == "python"), None)
        if first is None:
            return _Line(made, notes)
        return _Line([*made[:first], ensure, *made[first:]], notes)
    pip = "pip" if _path_pip_is_target(snapshot) else f"{python} -m pip"
    if not target.python_executable:
        pip = "pip"
    flag = "--no-user" if no_user or into_venv else "--user" if user else ""
    # pip's settings say --user: --no-user, not for this install
    return _Line(parts("pip" if pip == "pip" else "python", pip, flag), notes)


def _unsets_pythonpath(fix: Fix) -> bool:
    """The fix runs the installer without ``PYTHONPATH`` (its pip then is the environment's own,
    seen crashing without it)."""
    return any(
        isinstance(s, Variable) and s.name == "PYTHONPATH" and s.value is None for s in fix.steps
    )


def _uninstall_outside(
    steps: list[Step], snapshot: Snapshot
) -> tuple[list[Step], dict[int, Part], list[str]]:
    """Each uninstall with the names a venv's pip would not touch (those in the user site) run
    by the base interpreter the venv names, where that one has pip (``--break-system-packages``
    where its standard library is marked externally managed, PEP 668): that part, at the step's
    index (the rest of the step after it), and what is said of it. Unchanged where the base
    interpreter or its pip was not observed. Where pip is set to require a virtual environment
    (seen in the user's setting: a variable or a config file, which the base interpreter's pip
    reads too and refuses with "Could not find an activated virtualenv (required)"), that part
    runs with ``PIP_REQUIRE_VIRTUALENV=0``, said on the line: the variable pip reads after every
    file, for that one command."""
    from packaging.utils import canonicalize_name

    from tf_gpucheck.target import shell_quote

    target = snapshot.target
    if not target.base_executable or target.base_pip is not True:
        return steps, {}, []
    packages = snapshot.packages
    located = {
        canonicalize_name(d.name): d.location
        for d in (*packages.tensorflow, *packages.nvidia, *(packages.other_frameworks or ()))
    }
    base = shell_quote(target.base_executable, windows=snapshot.system.os == "Windows")
    flag = " --break-system-packages" if target.base_externally_managed else ""
    required = _setting_on(snapshot, "require-virtualenv")
    lift = (("PIP_REQUIRE_VIRTUALENV", "0"),) if required else ()
    out: list[Step] = []
    parts: dict[int, Part] = {}
    for step in steps:
        if not isinstance(step, Uninstall):
            out.append(step)
            continue
        away = tuple(n for n in step.names if located.get(canonicalize_name(n)) == "user_site")
        if not away:
            out.append(step)
            continue
        words = f"{base} -m pip uninstall{flag} -y {' '.join(away)}"
        parts[len(out)] = Part(
            words,
            "uninstall",
            "base",
            away,
            lift,
            args=(*(["--break-system-packages"] if flag else []), "-y", *away),
            python=target.base_executable,
        )
        out.append(step)  # a place held for the part
        inside = tuple(n for n in step.names if n not in away)
        if inside:
            out.append(Uninstall(inside))
    said = [
        f"your pip requires a virtual environment ({required}): PIP_REQUIRE_VIRTUALENV=0 lifts "
        "that for the uninstall from the user site alone"
    ]
    return out, parts, said if parts and required else []


def _setting_on(snapshot: Snapshot, key: str) -> str | None:
    """Where the pip boolean setting ``key`` is on, as observed (``PIP_USER=1``, ``user = true
    in FILE``; a variable outranks the files, as pip reads it), else ``None``."""
    from tf_gpucheck.installerfacts import PIP_TRUE

    installer = snapshot.installer
    found = [s for s in (installer.settings if installer else None) or () if s.key == key]
    setting = next((s for s in found if s.variable), found[0] if found else None)
    if setting is None or setting.value.strip().lower() not in PIP_TRUE:
        return None
    if setting.variable:
        return f"{setting.source}={setting.value}"
    return f"{key} = {setting.value} in {setting.source}"


def _with_index(written: _Line, snapshot: Snapshot) -> _Line:
    """Each install run with the variable that lifts the installer's observed "no index"
    setting for that install alone (pip: ``PIP_NO_INDEX=0``, read after every config file; uv:
    ``UV_OFFLINE=0``), where it is set, with where it is set said on the line. A setting no
    variable lifts (uv's ``no-index``) is said, not lifted; so is pip's ``no-index`` beside a
    ``find-links`` of the user's own (a wheelhouse comes first: how to lift it is said)."""
    installer = snapshot.installer
    setting = installer.no_index if installer is not None else None
    installs = [p for p in written.parts if p.verb == "install"]
    if not setting or installer is None or not installs:
        return written
    uv = installer.tool == "uv"
    name = "uv" if uv else "pip"
    wheelhouse = not uv and bool(installer.find_links)
    # what the install names that the user's wheelhouse (read by its file names) holds nothing of
    missing = _not_in_wheelhouse(installs, installer.find_links_projects) if wheelhouse else []
    parts = written.parts
    if snapshot.system.os == "Windows":
        how = f"set {'UV_OFFLINE' if uv else 'PIP_NO_INDEX'}=0 in this shell first"
    elif any(p.runner == "magic" for p in parts):
        how = "run %env PIP_NO_INDEX=0 in the notebook first"
    elif uv and "offline" not in setting.lower():
        how = "no variable lifts it: take it out of uv's settings for this install"
    elif wheelhouse and not missing:
        # a wheelhouse of the user's own (an offline machine, pinned wheels): theirs first
        where = " ".join(installer.find_links)
        how = (
            f"it looks only in {where}; where the install is not there, "
            f"{NO_INDEX_OFF} before it lifts that for that install"
        )
    else:
        lift = OFFLINE_OFF if uv else NO_INDEX_OFF
        variable, _, value = lift.partition("=")
        lifted = [
            replace(p, environ=(*p.environ, (variable, value)))
            if p.verb == "install" and (p.runner == "uv") == uv and p.runner != "magic"
            else p
            for p in parts
        ]
        if lifted == parts:
            return written
        parts = lifted
        how = f"{lift} before an install lifts it for that install only"
        if missing:
            # pip would refuse it there ("Could not find a version that satisfies the requirement")
            how = f"{' '.join(installer.find_links)} holds no {', '.join(missing)}; {how}"
    return _Line(parts, [*written.notes, f"your {name} {NO_INDEX_SAID} ({setting}): {how}"])


def _with_location(written: _Line, snapshot: Snapshot) -> _Line:
    """Each pip install with the variables that set aside the target's observed
    ``target``/``prefix``/``root`` settings for that install alone, said on the line: a variable
    of the user's is emptied (pip skips an empty variable); a config file's setting needs
    ``PIP_CONFIG_FILE=/dev/null`` (pip then reads no config file), with every other setting those
    files hold passed as its ``PIP_*`` variable, so the install is the user's own but for where
    it goes. Said, not lifted, where no variable can be set on the line (Windows, ``%pip``); uv's
    settings are not read."""
    installer = snapshot.installer
    if installer is None or installer.tool != "pip" or not installer.settings:
        return written
    placed = installer.placed_elsewhere()
    installs = [p.verb == "install" and p.runner != "uv" for p in written.parts]
    if not placed or not any(installs):
        return written
    said = "; ".join(
        f"{s.source}={s.value}" if s.variable else f"{s.key} = {s.value} in {s.source}"
        for s in placed
    )
    parts = written.parts
    if snapshot.system.os == "Windows" or any(p.runner == "magic" for p in parts):
        why = f"{LOCATION_SAID} ({said}): set that aside for this install"
    else:
        lift = installer.location_lift()
        parts = [
            replace(p, environ=(*_unset(p, lift), *p.environ)) if i else p
            for p, i in zip(parts, installs, strict=True)
        ]
        why = (
            f"{LOCATION_SAID} ({said}): the variables before it set that aside for this "
            "install, your other settings kept"
        )
    return _Line(parts, [*written.notes, why])


def _unset(part: Part, lift: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """The variables of ``lift`` that ``part`` does not set already."""
    have = {n for n, _ in part.environ}
    return tuple((n, v) for n, v in lift if n not in have)


def _not_in_wheelhouse(installs: list[Part], projects: tuple[str, ...] | None) -> list[str]:
    """The projects the installs name that the ``find-links`` folders hold no file of (``[]``
    where the folders were not read: then nothing is known to be missing)."""
    if projects is None:
        return []
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    missing: list[str] = []
    for requirement in (r for p in installs for r in p.requirements):
        try:
            name = canonicalize_name(Requirement(requirement).name)
        except InvalidRequirement:
            continue
        if name not in projects and name not in missing:
            missing.append(name)
    return missing


def _path_pip_is_target(snapshot: Snapshot) -> bool:
    """Plain ``pip`` in the user's shell installs into the target: observed from ``pip
    --version`` in their setting when recorded; before that (schema < 4), only inside the
    active environment."""
    import os

    target = snapshot.target
    installer = snapshot.installer
    if installer is not None and installer.tool == "pip":
        where, prefix = installer.path_pip_location, target.prefix
        if not where or not prefix:
            return False
        real = os.path.realpath(where)
        root = os.path.realpath(prefix).rstrip(os.sep) + os.sep
        return real.startswith(root) and target.chosen_by != "python_flag"
    return target.chosen_by not in ("python_flag", "gpucheck")


def accepted(snapshot: Snapshot, options: tuple[str, ...]) -> bool:
    """The installer was asked about an install with ``options`` and would go on to resolve."""
    installer = snapshot.installer
    return installer is not None and any(
        a.options == options and a.accepts is True for a in installer.policy
    )


def refused(snapshot: Snapshot, options: tuple[str, ...]) -> str | None:
    """The installer's own line when it refuses an install with ``options`` into the target
    (asked before resolving anything), else ``None``."""
    installer = snapshot.installer
    if installer is None:
        return None
    for answer in installer.policy:
        if answer.options == options and answer.accepts is False:
            return answer.line or "the installer refuses"
    return None


def fresh_environment(fix: Fix | None, snapshot: Snapshot, refusal: str) -> str:
    """The fix as a new virtual environment of the target's own Python: the installer refuses
    the target itself. It holds the TensorFlow this machine can run and what the fix installs
    (its uninstalls are left out: the fresh environment does not have the old one's packages,
    and an installer that refuses the install refuses the uninstall too, PEP 668). The new
    environment's pip reads the same variables and user configuration: its install gets the same
    lifts as any other."""
    return _with_location(_with_index(_fresh(fix, snapshot, refusal), snapshot), snapshot).text()


def _fresh(fix: Fix | None, snapshot: Snapshot, refusal: str) -> _Line:
    from tf_gpucheck.target import shell_quote

    target = snapshot.target
    python = shell_quote(target.python_executable, windows=snapshot.system.os == "Windows")
    requirements = list(fix.requirements if fix is not None else ())
    if not any(_is_tensorflow(r) for r in requirements):
        requirements = [_tensorflow_requirement(snapshot), *requirements]
    new = f"{FRESH_ENVIRONMENT}/bin/python"
    make = Part(f"{python} -m venv {FRESH_ENVIRONMENT}", None, "other")
    wanted = " ".join(f'"{r}"' for r in requirements)
    # pip refuses a user-site install inside a virtual environment ("Can not perform a '--user'
    # install. User site-packages are not visible in this virtualenv."): --no-user, for it alone
    user_on = _setting_on(snapshot, "user")
    flag = "--no-user " if user_on else ""
    install = Part(f"{new} -m pip install {flag}{wanted}", "install", "fresh", tuple(requirements))
    why = f"the installer refuses {target.python_executable}: {refusal}"
    if target.makes_venvs is False:
        said = (
            f"{why}; this Python has no ensurepip: install its venv package first "
            "(Debian/Ubuntu: python3-venv)"
        )
    else:
        said = f"{why}; then run your code with {new}"
    if user_on:
        said += f"; --no-user: your pip installs into the user site ({user_on}), not there"
    return _Line([make, install], [said])


def _is_tensorflow(requirement: str) -> bool:
    import re

    name = re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower()
    return name in ("tensorflow", "tensorflow-gpu", "tf-nightly") or name.startswith("tensorflow-")


def _tensorflow_requirement(snapshot: Snapshot) -> str:
    """The TensorFlow to put in a fresh environment: the release installed now when there is
    one, else the recommendation's."""
    from tf_gpucheck.installer.commands import CPU_ONLY_DISTRIBUTIONS, main_distributions

    main = main_distributions(snapshot)
    if main and main[0].name not in CPU_ONLY_DISTRIBUTIONS:
        extra = (
            "[and-cuda]" if snapshot.system.os == "Linux" and main[0].name == "tensorflow" else ""
        )
        return f"{main[0].name}{extra}=={main[0].version}"
    return "tensorflow[and-cuda]" if snapshot.system.os == "Linux" else "tensorflow"
