"""Every command a user is told to run, built for the target: its interpreter, the installer it
really has (pip, ``uv pip --python``, ``--user``, ``%pip`` in a kernel) and that installer's
settings. Checks ask for a fix by intent (a ``pip install``/``pip uninstall`` of requirements);
this room writes it the way the target's installer takes it, and :mod:`.proof` proves it with
the installer itself.
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

from tf_gpucheck.matrix import TfRelease
from tf_gpucheck.snapshot import Distribution, Snapshot

PLUGIN_DISTRIBUTIONS = frozenset({"tensorflow-metal", "tensorflow-directml-plugin"})
"""Distributions that plug into another TensorFlow instead of replacing it."""
CPU_ONLY_DISTRIBUTIONS = frozenset(
    {"tensorflow-cpu", "tf-nightly-cpu", "tensorflow-cpu-aws", "intel-tensorflow"}
)


def main_distributions(snapshot: Snapshot) -> list[Distribution]:
    return [d for d in snapshot.packages.tensorflow if d.name not in PLUGIN_DISTRIBUTIONS]


def target_folder(snapshot: Snapshot) -> str | None:
    """The folder on ``PYTHONPATH`` that alone gives this Python its TensorFlow (what
    ``pip install --target DIR`` makes; the environment has none of its own): installs for that
    TensorFlow go there, where its RUNPATH (``$ORIGIN/../nvidia/...``) looks."""
    imports = snapshot.imports
    tf = next((m for m in imports.modules if m.name == "tensorflow"), None) if imports else None
    if tf is None or tf.origin is None or tf.clean_origin is not None:
        return None
    if tf.added_by != "pythonpath" or not tf.distribution or not tf.path_entry:
        return None
    if tf.entry_environment is not False:
        return None  # another environment's folder: its own installer's
    return tf.path_entry


def installed_requirement(snapshot: Snapshot) -> str:
    """ "tensorflow-cpu==2.21.0": the installed TensorFlow distribution, to reinstall exactly it
    (never a second distribution beside it)."""
    main = main_distributions(snapshot)
    if main:
        return f'"{main[0].name}=={main[0].version}"'
    version = snapshot.tensorflow.version
    return f'"tensorflow=={version}"' if version else "tensorflow"


def install_command(row: TfRelease, snapshot: Snapshot, pip_needed: str | None = None) -> str:
    """The pip command that installs this release with its CUDA libraries where pip can; first
    an upgrade of pip where the target's is older than ``pip_needed`` (the oldest pip that sees
    the release's Linux wheel: Python 3.6's own pip 18.1 finds no manylinux2010 wheel)."""
    first = ""
    have = snapshot.target.pip_version
    if pip_needed and have and snapshot.system.os == "Linux":
        try:
            if Version(have) < Version(pip_needed):
                first = f'pip install --upgrade "{_newest_pip(snapshot.system.python_version)}" && '
        except InvalidVersion:
            pass
    return first + _install_command(row, snapshot)


# The last pip release for each Python pip dropped (pip's release notes: 21.0 dropped 2.7 and 3.5,
# 22.0 dropped 3.6, 24.1 dropped 3.7, 25.1 dropped 3.8). Named explicitly: an old pip reading an
# index without Requires-Python data would otherwise pick a pip that refuses to run.
_LAST_PIP = {
    (2, 7): "pip<21",
    (3, 5): "pip<21",
    (3, 6): "pip<22",
    (3, 7): "pip<24.1",
    (3, 8): "pip<25.1",
}


def _newest_pip(python: str | None) -> str:
    try:
        minor = Version(python or "").release[:2]
    except InvalidVersion:
        return "pip"
    return _LAST_PIP.get((minor[0], minor[1]) if len(minor) > 1 else (0, 0), "pip")


def _install_command(row: TfRelease, snapshot: Snapshot) -> str:
    series = f"{row.minor[0]}.{row.minor[1]}.*"
    # TensorFlow 2.0's GPU build was the separate tensorflow-gpu package (2.1 merged them).
    name = "tensorflow-gpu" if row.minor < (2, 1) else "tensorflow"
    if row.and_cuda and snapshot.system.os == "Linux":
        return f'pip install "{name}[and-cuda]=={series}"'
    if snapshot.system.os == "Windows":
        return (
            f'pip install "{name}=={series}"  # then CUDA {row.windows_native_cuda} '
            f"and cuDNN {row.windows_native_cudnn}"
        )
    return f'pip install "{name}=={series}"  # with CUDA {row.cuda} and cuDNN {row.cudnn}'


def isolated_tool_environment(prefix: str | None) -> bool:
    """gpucheck's own environment is an isolated tool install (pipx, uv tool), not a project's."""
    text = (prefix or "").replace("\\", "/")
    return "/pipx/venvs/" in text or "/uv/tools/" in text


# a `pip install`/`pip uninstall` wherever a fix says it, but not the one in `python -m pip`
_PIP = re.compile(r"(?<!-m )(?<!uv )(?<![\w./\\%-])pip (install|uninstall)\b(?! --(?:no-)?user\b)")
"""Already written for the target (``-m pip``, ``uv pip``, ``%pip``, a ``--user`` or
``--no-user`` added): left as it is, so writing a fix twice changes nothing."""


def rerun(snapshot: Snapshot, *args: str) -> str:
    """A gpucheck command for the same target (``--python`` kept where it chose it)."""
    from tf_gpucheck.target import rerun as command

    target = snapshot.target
    return command(
        target.python_executable, target.chosen_by, *args, windows=snapshot.system.os == "Windows"
    )


def with_target_pip(command: str, snapshot: Snapshot) -> str:
    """``command`` written for the target's installer (:func:`_with_target_pip`), and, where
    that pip is set to ``no-index`` (observed in the user's setting by ``pip config debug``),
    each ``pip install`` with ``PIP_NO_INDEX=0`` before it: the variable pip reads last, so it
    lifts the setting for that one command and changes no file; and where its settings send
    installs elsewhere (``target``, ``prefix``, ``root``), the variables that set those aside for
    that install alone (:func:`with_location`)."""
    return with_location(with_index(_with_target_pip(command, snapshot), snapshot), snapshot)


NO_INDEX_OFF = "PIP_NO_INDEX=0 "
OFFLINE_OFF = "UV_OFFLINE=0 "
_NO_INDEX_SAID = "is set not to use the package index"
_ANY_INSTALL = re.compile(r"(?<![\w./\\-])pip install\b")
"""``pip install`` as any installer runs it: ``pip``, ``-m pip``, ``%pip``, ``uv pip``."""


def with_index(command: str, snapshot: Snapshot) -> str:
    """Each install part of ``command`` run with the variable that lifts the installer's
    observed "no index" setting for that install alone (pip: ``PIP_NO_INDEX=0``, read after
    every config file; uv: ``UV_OFFLINE=0``), where it is set, with where it is set said on the
    line. A setting no variable lifts (uv's ``no-index``) is said, not lifted; so is pip's
    ``no-index`` beside a ``find-links`` of the user's own (a wheelhouse comes first: how to
    lift it is said). Idempotent."""
    installer = snapshot.installer
    setting = installer.no_index if installer is not None else None
    if not setting or _NO_INDEX_SAID in command or not _ANY_INSTALL.search(command):
        return command
    from tf_gpucheck.installer.operations import split_comment

    uv = installer is not None and installer.tool == "uv"
    code, hash_, note = split_comment(command)
    parts = code.split(" && ")
    name = "uv" if uv else "pip"
    wheelhouse = not uv and installer is not None and bool(installer.find_links)
    # what the install names that the user's wheelhouse (read by its file names) holds nothing of
    missing = (
        _not_in_wheelhouse(parts, installer.find_links_projects)
        if wheelhouse and installer is not None
        else []
    )
    if snapshot.system.os == "Windows":
        how = f"set {'UV_OFFLINE' if uv else 'PIP_NO_INDEX'}=0 in this shell first"
    elif any(part.lstrip().startswith("%pip") for part in parts):
        how = "run %env PIP_NO_INDEX=0 in the notebook first"
    elif uv and "offline" not in setting.lower():
        how = "no variable lifts it: take it out of uv's settings for this install"
    elif wheelhouse and installer is not None and not missing:
        # a wheelhouse of the user's own (an offline machine, pinned wheels): theirs first
        where = " ".join(installer.find_links)
        how = (
            f"it looks only in {where}; where the install is not there, "
            f"{NO_INDEX_OFF.strip()} before it lifts that for that install"
        )
    else:
        lift = OFFLINE_OFF if uv else NO_INDEX_OFF
        parts = [
            lift + part
            if _ANY_INSTALL.search(part) and part.startswith("uv ") == uv and "%pip" not in part
            else part
            for part in parts
        ]
        if not any(part.startswith(lift) for part in parts):
            return command
        how = f"{lift.strip()} before an install lifts it for that install only"
        if missing and installer is not None:
            # pip would refuse it there ("Could not find a version that satisfies the requirement")
            how = f"{' '.join(installer.find_links)} holds no {', '.join(missing)}; {how}"
    why = f"your {name} {_NO_INDEX_SAID} ({setting}): {how}"
    note = note.strip()
    return " && ".join(parts) + "  # " + (f"{note}; {why}" if hash_ and note else why)


_LOCATION_SAID = "your pip is set to install elsewhere"


def with_location(command: str, snapshot: Snapshot) -> str:
    """Each ``pip install`` part of ``command`` with the variables that set aside the target's
    observed ``target``/``prefix``/``root`` settings for that install alone, said on the line:
    a variable of the user's is emptied (pip skips an empty variable); a config file's setting
    needs ``PIP_CONFIG_FILE=/dev/null`` (pip then reads no config file), with every other
    setting those files hold passed as its ``PIP_*`` variable, so the install is the user's own
    but for where it goes. Said, not lifted, where no variable can be set on the line (Windows,
    ``%pip``); uv's settings are not read. Idempotent."""
    installer = snapshot.installer
    if installer is None or installer.tool != "pip" or not installer.settings:
        return command
    placed = installer.placed_elsewhere()
    if not placed or _LOCATION_SAID in command or not _ANY_INSTALL.search(command):
        return command
    from tf_gpucheck.installer.operations import split_comment

    code, hash_, note = split_comment(command)
    parts = code.split(" && ")
    lift = list(installer.location_lift())
    said = "; ".join(
        f"{s.source}={s.value}" if s.variable else f"{s.key} = {s.value} in {s.source}"
        for s in placed
    )
    installs = [bool(_ANY_INSTALL.search(p)) and not p.startswith("uv ") for p in parts]
    if not any(installs):  # the install is named in a comment only
        return command
    windows = snapshot.system.os == "Windows"
    if windows or any(part.lstrip().startswith("%pip") for part in parts):
        why = f"{_LOCATION_SAID} ({said}): set that aside for this install"
    else:
        parts = [_assigned(p, lift) if i else p for p, i in zip(parts, installs, strict=True)]
        why = (
            f"{_LOCATION_SAID} ({said}): the variables before it set that aside for this "
            "install, your other settings kept"
        )
    note = note.strip()
    return " && ".join(parts) + "  # " + (f"{note}; {why}" if hash_ and note else why)


def _assigned(part: str, lift: list[tuple[str, str]]) -> str:
    """``part`` with each variable of ``lift`` set before it, but those it already sets."""
    import shlex

    words = [
        f"{name}={shlex.quote(value) if value else ''}"
        for name, value in lift
        if not re.search(rf"(?:^|\s){name}=", part)
    ]
    return " ".join([*words, part])


def _not_in_wheelhouse(parts: list[str], projects: tuple[str, ...] | None) -> list[str]:
    """The projects the install parts name that the ``find-links`` folders hold no file of
    (``[]`` where the folders were not read: then nothing is known to be missing)."""
    if projects is None:
        return []
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    from tf_gpucheck.installer.operations import read_command

    missing: list[str] = []
    for part in parts:
        operations, _, _ = read_command(part)
        for requirement in (r for o in operations if o.verb == "install" for r in o.requirements):
            try:
                name = canonicalize_name(Requirement(requirement).name)
            except InvalidRequirement:
                continue
            if name not in projects and name not in missing:
                missing.append(name)
    return missing


def _with_target_pip(command: str, snapshot: Snapshot) -> str:
    """``command`` with every ``pip install``/``pip uninstall`` run the way the target's installer
    takes it, from what was observed in the user's setting:

    - in a notebook kernel that is the target: ``%pip`` (IPython runs the kernel's own pip);
    - an environment uv made without pip: ``uv pip ... --python P`` when uv is on the user's
      PATH, else the target's own ``ensurepip`` first;
    - plain ``pip`` only where the ``pip`` on the user's PATH says it installs into the target
      (``pip --version``); otherwise the target interpreter's own ``P -m pip``;
    - ``--user`` where TensorFlow lives in the user site (its CUDA wheels must be found next to
      it, through its RUNPATH ``$ORIGIN/../nvidia/...``), unless the installer refuses it;
    - an installer that refuses to install into the target at all (PEP 668, require-virtualenv):
      a fresh virtual environment made with the target's interpreter, with the refusal said.

    Idempotent: a command already written for the target is returned as it is."""
    from tf_gpucheck.target import shell_quote

    if _FRESH in command:
        return _fresh_only(command)
    target = snapshot.target
    if target.error and not snapshot.system.python_version:
        return command  # it did not answer as a Python: no command may name it
    windows = snapshot.system.os == "Windows"
    python = shell_quote(target.python_executable, windows=windows)
    installer = snapshot.installer
    user = any(d.location == "user_site" for d in main_distributions(snapshot))
    kernel = snapshot.kernel
    in_kernel = kernel is not None and kernel.python == target.python_executable
    if user and target.kind == "venv":
        # site.py puts a venv's own site-packages ahead of the user site ("ensures venv takes
        # precedence over user-site"): pip refuses --user there when it would lose ("Will not
        # install to the user site because it will lack sys.path precedence"), so install into
        # the venv; and a venv's pip leaves the user site alone ("Not uninstalling ... outside
        # environment"): its base interpreter removes what is there
        user = False
        if not in_kernel:  # a notebook cell runs %pip, not a shell command line
            command = _uninstall_outside(command, snapshot)
    if user and refused(snapshot, ("--user",)) is not None:
        user = False
    if in_kernel:
        # in a notebook, %pip runs pip with the kernel's own interpreter (IPython's magic)
        def magic(match: re.Match[str]) -> str:
            verb = match.group(1)
            return f"%pip {verb}" + (" --user" if user and verb == "install" else "")

        return _PIP.sub(magic, command)
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
    if refusal is not None and _INSTALL.search(command) and target.python_executable:
        return fresh_environment(command, snapshot, refusal)
    if target.installer == "uv" and target.python_executable:
        if installer is None or (installer.tool == "uv" and installer.error is None):

            def uv(match: re.Match[str]) -> str:
                return f"uv pip {match.group(1)} --python {python}"

            return _PIP_DASH_Y.sub(uv, command)
        # uv is not on the user's PATH: give the environment its own pip first
        bootstrapped = _PIP.sub(lambda m: f"{python} -m pip {m.group(1)}", command)
        return f"{python} -m ensurepip && {bootstrapped}" if bootstrapped != command else command
    crashed = installer is not None and (
        installer.crash() is not None
        or (installer.own_crash is not None and "unset PYTHONPATH" in command)
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
        # the first pip of the line, an uninstall too (a part written for the target before,
        # with its own ensurepip, is joined to the rest: one, at the front)
        ensure = f"{python} -m ensurepip {'--upgrade ' if crashed else ''}&& "
        bootstrapped = _PIP.sub(
            lambda m: f"{python} -m pip {m.group(1)}", command.replace(ensure, "")
        )
        head, pip, tail = bootstrapped.partition(f"{python} -m pip ")
        return f"{head}{ensure}{pip}{tail}" if pip else command
    if _path_pip_is_target(snapshot):
        pip = "pip"
    elif target.python_executable:
        pip = f"{python} -m pip"
    else:
        pip = "pip"

    def run(match: re.Match[str]) -> str:
        verb = match.group(1)
        if verb == "install" and (no_user or into_venv):
            return f"{pip} install --no-user"  # pip's settings say --user: not for this install
        return f"{pip} {verb}" + (" --user" if user and verb == "install" else "")

    if pip == "pip" and not user and not no_user and not into_venv:
        return command
    return _PIP.sub(run, command)


_UNINSTALL = re.compile(
    r"(?<!-m )(?<!uv )(?<![\w./\\%-])pip uninstall -y"
    r"((?: [A-Za-z0-9][A-Za-z0-9._-]*(?![\w.=<>!~\[-]))+)"
)


def _uninstall_outside(command: str, snapshot: Snapshot) -> str:
    """``pip uninstall -y A B`` with the names a venv's pip would not touch (those in the user
    site) uninstalled by the base interpreter the venv names, where that one has pip
    (``--break-system-packages`` where its standard library is marked externally managed, PEP
    668). Unchanged where the base interpreter or its pip was not observed."""
    from packaging.utils import canonicalize_name

    from tf_gpucheck.target import shell_quote

    target = snapshot.target
    if not target.base_executable or target.base_pip is not True:
        return command
    packages = snapshot.packages
    located = {
        canonicalize_name(d.name): d.location
        for d in (*packages.tensorflow, *packages.nvidia, *(packages.other_frameworks or ()))
    }
    base = shell_quote(target.base_executable, windows=snapshot.system.os == "Windows")
    flag = " --break-system-packages" if target.base_externally_managed else ""

    def split(match: re.Match[str]) -> str:
        names = match.group(1).split()
        outside = [n for n in names if located.get(canonicalize_name(n)) == "user_site"]
        if not outside:
            return match.group(0)
        parts = [f"{base} -m pip uninstall{flag} -y {' '.join(outside)}"]
        inside = [n for n in names if n not in outside]
        if inside:
            parts.append(f"pip uninstall -y {' '.join(inside)}")
        return " && ".join(parts)

    return _UNINSTALL.sub(split, command)


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


FRESH_ENVIRONMENT = "~/.venvs/tensorflow"
"""Where a fresh environment goes when the installer refuses the target."""
_FRESH = " -m venv "
_INSTALL = re.compile(r"(?<![\w./\\%-])pip install\b")


_ANY_UNINSTALL = re.compile(r"(?<![\w./\\-])pip uninstall\b")


def _fresh_only(command: str) -> str:
    """A fix that makes a fresh environment, without the uninstalls written around it for the
    refused one (a fix that composes "uninstall, then install" around an install the installer
    refused): the fresh environment does not see the old one's packages, and the installer that
    refused the install refuses the uninstall too (PEP 668 covers both)."""
    from tf_gpucheck.installer.operations import split_comment

    code, hash_, note = split_comment(command)
    parts = code.split(" && ")
    kept = [p for p in parts if not _ANY_UNINSTALL.search(p)]
    if len(kept) == len(parts):
        return command
    return " && ".join(kept) + (f"  #{note}" if hash_ else "")


def fresh_environment(command: str, snapshot: Snapshot, refusal: str) -> str:
    """The fix as a new virtual environment of the target's own Python: the installer refuses
    the target itself. It holds the TensorFlow this machine can run and what the fix installs."""
    from tf_gpucheck.target import shell_quote

    target = snapshot.target
    python = shell_quote(target.python_executable, windows=snapshot.system.os == "Windows")
    wanted = _installed_by(command)
    if not any(_is_tensorflow(r) for r in wanted):
        wanted = [_tensorflow_requirement(snapshot), *wanted]
    new = f"{FRESH_ENVIRONMENT}/bin/python"
    install = f"{new} -m pip install {' '.join(wanted)}"
    why = f"the installer refuses {target.python_executable}: {refusal}"
    if target.makes_venvs is False:
        return (
            f"{python} -m venv {FRESH_ENVIRONMENT} && {install}  # {why}; this Python has no "
            "ensurepip: install its venv package first (Debian/Ubuntu: python3-venv)"
        )
    return (
        f"{python} -m venv {FRESH_ENVIRONMENT} && {install}  # {why}; then run your code with {new}"
    )


def _installed_by(command: str) -> list[str]:
    """The requirements the ``pip install`` parts of ``command`` name, as written."""
    import shlex

    code = command.split("  #", 1)[0]
    try:
        words = shlex.split(code)
    except ValueError:
        return []
    wanted: list[str] = []
    installing = False
    for index, word in enumerate(words):
        if word in ("&&", ";"):
            installing = False
        elif word == "install" and index > 0 and words[index - 1] == "pip":
            installing = True
        elif installing and not word.startswith("-"):
            wanted.append(f'"{word}"')
    return wanted


def _is_tensorflow(requirement: str) -> bool:
    name = re.split(r"[\[<>=!~; ]", requirement.strip('"'), maxsplit=1)[0].lower()
    return name in ("tensorflow", "tensorflow-gpu", "tf-nightly") or name.startswith("tensorflow-")


def _tensorflow_requirement(snapshot: Snapshot) -> str:
    """The TensorFlow to put in a fresh environment: the release installed now when there is
    one, else the recommendation's."""
    main = main_distributions(snapshot)
    if main and main[0].name not in CPU_ONLY_DISTRIBUTIONS:
        extra = (
            "[and-cuda]" if snapshot.system.os == "Linux" and main[0].name == "tensorflow" else ""
        )
        return f'"{main[0].name}{extra}=={main[0].version}"'
    return '"tensorflow[and-cuda]"' if snapshot.system.os == "Linux" else '"tensorflow"'


# uv's uninstall asks nothing: pip's -y has no place there
_PIP_DASH_Y = re.compile(r"(?<!-m )(?<!uv )(?<![\w./\\%-])pip (install|uninstall)\b(?: -y\b)?")
