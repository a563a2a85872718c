"""The target's installer, asked in the user's own setting: which one, what it refuses before it
resolves anything, and what its own check says is unmet.

Facts only, all observed by running the installer the way a printed fix would run it (the
target's interpreter, the user's variables, config files and folder):

- ``pip`` (or uv) and its version; the ``pip`` the user's ``PATH`` finds, and where it says it
  installs (``pip --version``, run in the user's folder: a pyenv shim or a copied venv's script
  may run another Python): a fix that says plain ``pip`` works only when that is the target's;
- its **policy**: an install of a name that exists nowhere, with ``--dry-run --no-index`` (uv:
  ``--offline``), so nothing can be installed and nothing is downloaded. Everything the installer
  decides before resolving (PEP 668's ``EXTERNALLY-MANAGED``, ``require-virtualenv``, ``user``
  and ``target`` settings, a pip too old to run) answers first; "no matching distribution" for
  that name means it would go on to resolve. Under a second, offline;
- its **check** (``pip check``, ``uv pip check``): every requirement an installed distribution
  declares and the environment does not meet, as the installer states it;
- its **index setting** (pip: ``pip config debug``, every variable and file it reads, in its own
  order; uv: ``--show-settings``, its own resolved settings): a ``no-index`` (uv: ``offline``)
  there makes every install from the package index fail ("from versions: none"), however right
  the requirement.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

from tf_gpucheck._process import run_child
from tf_gpucheck.policyask import PROBE_REQUIREMENT, PolicyHeadStart
from tf_gpucheck.policyask import ask_policy as _ask_policy
from tf_gpucheck.policyask import folder as _folder
from tf_gpucheck.policyask import policy_argv as _policy_argv
from tf_gpucheck.probes.interpreter import InterpreterFacts, RawDistribution
from tf_gpucheck.probes.packages import holding
from tf_gpucheck.snapshot import (
    PIP_TRUE,
    Declared,
    InstallerInfo,
    InstallerSetting,
    PolicyAnswer,
    UnmetRequirement,
)


def probe_installer(
    python: str,
    facts: InterpreterFacts,
    environ: Mapping[str, str],
    cwd: str | None,
    *,
    user: bool = False,
    timeout_s: float = 30.0,
    head_start: PolicyHeadStart | None = None,
) -> InstallerInfo:
    """Ask the target's installer; ``user``: also ask about ``--user`` (the target's TensorFlow
    lives in the user site, or the target is not a virtual environment). ``head_start``: the
    policy ask already under way."""
    if facts.error:
        return InstallerInfo(tool=None, version=None, error=f"not asked: {facts.error}")
    path_pip = shutil.which("pip", path=environ.get("PATH"))
    tool = facts.installer
    uv = shutil.which("uv", path=environ.get("PATH")) if tool == "uv" else None
    if tool == "uv" and uv is None:
        return InstallerInfo(
            tool="uv",
            version=None,
            path_pip=path_pip,
            error="this environment was made by uv without pip, and uv is not on PATH",
        )
    if tool is None:
        return InstallerInfo(
            tool=None,
            version=None,
            path_pip=path_pip,
            error="no pip in this environment (python -m ensurepip adds it)",
        )
    version = facts.pip_version if tool == "pip" else _uv_version(uv or "uv", environ)
    asks: list[tuple[str, ...]] = [()]
    if user and tool == "pip":
        asks.append(("--user",))

    def policy_of(options: tuple[str, ...], environ: Mapping[str, str]) -> PolicyAnswer:
        argv = _policy_argv(tool, python, uv, version, options)
        early = head_start.answer(argv, environ, cwd) if head_start is not None else None
        if early is not None:
            return early
        return _ask_policy(argv, options, environ, cwd, timeout_s)

    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="gpucheck-installer") as pool:
        answers = [pool.submit(policy_of, options, environ) for options in asks]
        if computable(facts):
            checked = pool.submit(metadata_check, facts)  # computed from what the probe read
        else:  # no markers said, or a name with two records in one folder: its installer says
            checked = pool.submit(_check, tool, python, uv, facts, environ, cwd, timeout_s)
        located = pool.submit(pip_location, path_pip, environ, cwd) if path_pip else None
        # a pip on PYTHONPATH answers for the environment's own, which may crash on this Python
        # (pip < 23.1 on Python 3.12+): a fix that unsets PYTHONPATH runs the environment's own
        own = (
            pool.submit(
                _policy,
                tool,
                python,
                uv,
                version,
                (),
                {k: v for k, v in environ.items() if k != "PYTHONPATH"},
                cwd,
                timeout_s,
            )
            if tool == "pip" and environ.get("PYTHONPATH")
            else None
        )
        index = (
            pool.submit(no_index_setting, python, environ, cwd, timeout_s)
            if tool == "pip"
            else pool.submit(uv_offline_setting, uv or "uv", python, environ, cwd, timeout_s)
        )
        answer = index.result()
        no_index, find_links, settings = answer if isinstance(answer, tuple) else (answer, (), None)
        lift = InstallerInfo(tool, version, settings=settings).location_lift()
        if lift:
            # every printed install sets pip's `target`/`prefix`/`root` aside, and pip skips
            # PEP 668's check only for those: ask again as that install will run
            environ = {**environ, **dict(lift)}
            answers = [pool.submit(policy_of, options, environ) for options in asks]
        policy = tuple(a.result() for a in answers)
        if tool == "pip" and policy and policy[0].accepts is False:
            # a refusal pip's own options can lift without changing anyone's settings for good:
            # a `user` setting a venv refuses ("Can not perform a '--user' install")
            policy += (_policy(tool, python, uv, version, ("--no-user",), environ, cwd, timeout_s),)
        check, check_by, check_error = checked.result()
        check = with_others(check, facts)
        path_pip_location = located.result() if located else None
        own_answer = own.result() if own is not None else None
    return InstallerInfo(
        tool=tool,
        version=version,
        path_pip=path_pip,
        path_pip_location=path_pip_location,
        policy=policy,
        check=check,
        check_by=check_by,
        check_error=check_error,
        no_index=no_index,
        find_links=find_links,
        find_links_projects=wheelhouse_projects(find_links, cwd) if find_links else None,
        settings=settings,
        own_crash=(own_answer.line or "it crashed")
        if own_answer is not None and own_answer.crashed
        else None,
    )


_ARCHIVES = (".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz", ".tar", ".tbz", ".tar.xz", ".txz")
"""What pip takes from a find-links folder (its SUPPORTED_EXTENSIONS: wheels and archives)."""


def wheelhouse_projects(find_links: tuple[str, ...], cwd: str | None) -> tuple[str, ...] | None:
    """The projects (PEP 503 names) with a file in the ``find-links`` folders: a wheel's name
    from its file name (PEP 427), an sdist's from the part before its version (PEP 625), as
    pip's link evaluation reads them. A relative folder is the user's folder's, as pip takes it.
    ``None`` where one entry is not a local folder (a URL or a page: not fetched here) or a file
    of an archive kind has a name that does not parse (what pip makes of it is not known)."""
    from packaging.utils import (
        InvalidSdistFilename,
        InvalidWheelFilename,
        parse_sdist_filename,
        parse_wheel_filename,
    )

    names: set[str] = set()
    for entry in find_links:
        folder = entry[len("file://") :] if entry.startswith("file://") else entry
        if "://" in folder:
            return None
        folder = os.path.join(cwd or os.getcwd(), os.path.expanduser(folder))
        try:
            files = os.listdir(folder)
        except OSError:  # missing (pip skips it with a warning) or a file (an HTML page)
            if os.path.exists(folder):
                return None
            continue
        for name in files:
            lower = name.lower()
            if not lower.endswith(_ARCHIVES):
                continue
            try:
                if lower.endswith(".whl"):
                    names.add(str(parse_wheel_filename(name)[0]))
                else:
                    names.add(str(parse_sdist_filename(name)[0]))
            except (InvalidWheelFilename, InvalidSdistFilename):
                return None
    return tuple(sorted(names))


# pip's configuration.py: files are read global, user, site, then PIP_CONFIG_FILE ("env"),
# each overriding the one before, and PIP_* variables ("env_var") last; within them, an
# option's `[install]` section overrides `[global]` (cli/parser.py)
_CONFIG_ORDER = ("global", "user", "site", "env")
_TRUE = PIP_TRUE


def _settings(
    argv: list[str], environ: Mapping[str, str], cwd: str | None, timeout_s: float
) -> str:
    """What an installer prints of its own settings, asked in the user's setting ("": it could
    not say)."""
    try:
        result = run_child(
            argv, timeout_s=timeout_s, env=dict(environ), cwd=_folder(cwd), background=True
        )
    except OSError:
        return ""
    return result.stdout if result.returncode == 0 and not result.timed_out else ""


def no_index_setting(
    python: str, environ: Mapping[str, str], cwd: str | None, timeout_s: float = 30.0
) -> tuple[str | None, tuple[str, ...], tuple[InstallerSetting, ...] | None]:
    """Where the target's pip is set to ``no-index`` (``PIP_NO_INDEX=1``, ``no-index = true in
    FILE``; ``None``: it is not), the ``find-links`` it then looks in, and every setting it reads
    for ``install`` (:func:`config_settings`), from ``pip config debug`` run in the user's
    setting (a pip older than 20 has no ``config debug``: then only the variables, and no
    settings)."""
    from tf_gpucheck import _cache
    from tf_gpucheck.installer.proofcache import SETTINGS, config_files

    material = [  # what decides its answer: pip, its variables, every file it reads
        _cache.file_identity(python),
        sorted((k, v) for k, v in environ.items() if k.startswith(SETTINGS)),
        [(f, _cache.file_digest(f)) for f in config_files(environ, python)],
        _cache.file_identity(os.path.join(os.path.dirname(os.path.dirname(python)), "pyvenv.cfg")),
    ]
    text = _cache.remembered(
        "pip-config-debug",
        material,
        lambda: _settings([python, "-m", "pip", "config", "debug"], environ, cwd, timeout_s),
    )
    if not text:
        variable = environ.get("PIP_NO_INDEX")
        on = variable is not None and variable.strip().lower() in _TRUE
        links = tuple((environ.get("PIP_FIND_LINKS") or "").split())
        return (f"PIP_NO_INDEX={variable}" if on else None), links, None
    return read_config_debug(text), read_find_links(text), config_settings(text)


def uv_offline_setting(
    uv: str, python: str, environ: Mapping[str, str], cwd: str | None, timeout_s: float = 30.0
) -> str | None:
    """Where uv is set not to reach the package index (``UV_OFFLINE=1``, ``offline`` or
    ``no-index`` in its configuration), from uv's own resolved settings (``uv pip install
    --show-settings``, which prints them and installs nothing), run in the user's setting;
    ``None``: it is not, or uv could not say (then only the variable)."""
    variable = environ.get("UV_OFFLINE")
    set_by_variable = variable is not None and variable.strip().lower() in _TRUE
    text = _settings(
        [uv, "pip", "install", "--show-settings", "--python", python, PROBE_REQUIREMENT],
        environ,
        cwd,
        timeout_s,
    )
    if not text:
        return f"UV_OFFLINE={variable}" if set_by_variable else None
    if re.search(r"\bconnectivity: Offline\b", text):
        return f"UV_OFFLINE={variable}" if set_by_variable else "offline = true in uv's settings"
    if re.search(r"\bno_index: true\b", text):
        return "no-index = true in uv's settings"
    return None


def read_config_debug(text: str) -> str | None:
    """``no-index`` as pip would take it for ``install``, from ``pip config debug``'s listing:
    ``PIP_NO_INDEX=1`` or ``no-index = true in FILE``; ``None``: off."""
    found = _effective(text, "no-index")
    if found is None:
        return None
    value, source = found
    if value.lower() not in _TRUE:
        return None
    return f"{source}={value}" if source.startswith("PIP_") else f"no-index = {value} in {source}"


def read_find_links(text: str) -> tuple[str, ...]:
    """The ``find-links`` pip would look in for ``install`` (space-separated, as pip splits it)."""
    found = _effective(text, "find-links")
    return tuple(found[0].split()) if found else ()


def _effective(text: str, key: str) -> tuple[str, str] | None:
    """(value, where) of one option for ``install``: its variable over every file."""
    found = [s for s in config_settings(text) if s.key == key]
    setting = next((s for s in found if s.variable), found[0] if found else None)
    return (setting.value, setting.source) if setting else None


_OPTION_LINE = re.compile(r"^ {4}(?P<key>[A-Za-z0-9_-]+\.[A-Za-z0-9_.-]+):(?: (?P<value>.*))?$")
"""``    global.index-url: https://...`` (pip's ``config debug``: ``section.key: value``)."""


def config_settings(text: str) -> tuple[InstallerSetting, ...]:
    """Every option pip reads for ``install``, from ``pip config debug``'s listing (pip's
    commands/configuration.py: ``env_var:`` then ``  PIP_X='v'``; each file variant, then
    ``  FILE, exists: True`` and ``    section.key: value``): for each option the files' value (a
    later file over an earlier one, ``[install]`` over ``[global]``; a list printed one item a
    line joined by spaces, as pip splits it) and, apart, its ``PIP_*`` variable, which pip
    reads after every file. pip skips an empty variable, and ``PIP_CONFIG_FILE`` names a file (listed
    as the ``env`` variant), not an option."""
    by_variant: dict[str, list[list[str]]] = {}
    variables: dict[str, str] = {}
    variant, source = "", ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not line[0].isspace():
            variant, source = stripped.rstrip(":"), ""
            continue
        if variant == "env_var":
            name, _, value = stripped.partition("=")
            value = value.strip().strip("'\"")
            if name.startswith("PIP_") and name != "PIP_CONFIG_FILE" and value:
                variables[name[4:].lower().replace("_", "-")] = value
            continue
        if line.startswith("    ") and source:
            entries = by_variant.setdefault(variant, [])
            listed = _OPTION_LINE.match(line)
            if listed:
                key, value = listed.group("key"), listed.group("value") or ""
                entries.append([key.replace("_", "-"), value.strip(), source])
            elif entries:  # a value's next line: pip prints a list one item a line
                entries[-1][1] = f"{entries[-1][1]} {stripped}".strip()
        elif line.startswith("  ") and ", exists: " in stripped:
            source = stripped.rsplit(", exists: ", 1)[0]
    merged: dict[str, tuple[str, str]] = {}
    for name in _CONFIG_ORDER:
        for option, value, where in by_variant.get(name, []):
            merged[option] = (value, where)
    files: dict[str, InstallerSetting] = {}
    for section in ("global", "install"):  # [install] over [global]
        for option, (value, where) in merged.items():
            head, _, key = option.partition(".")
            if head == section and key:
                files[key] = InstallerSetting(key, value, where)
    settings = list(files.values())
    for key, value in variables.items():
        settings.append(InstallerSetting(key, value, "PIP_" + key.upper().replace("-", "_")))
    return tuple(settings)


_PIP_FROM = re.compile(r"^pip \S+ from (?P<where>.+?) \(python [^)]*\)\s*$", re.MULTILINE)


def pip_location(pip: str, environ: Mapping[str, str], cwd: str | None) -> str | None:
    """Where the ``pip`` command installs from, as it says itself (``pip --version``: "pip 25.2
    from /venv/lib/python3.11/site-packages/pip (python 3.11)"): the folder holding ``pip``."""
    from tf_gpucheck import _cache

    def ask() -> str | None:
        try:
            result = run_child(
                [pip, "--version"],
                timeout_s=20,
                env=dict(environ),
                cwd=_folder(cwd),
                background=True,
            )
        except OSError:
            return None
        return result.stdout if result.returncode == 0 else None

    # what decides it: the script, the interpreter its first line names, the variables that
    # move imports, the folder it runs in
    try:
        with open(pip, "rb") as handle:
            shebang = handle.readline().decode("utf-8", "replace").strip()
    except OSError:
        shebang = ""
    interpreter = shebang[2:].split()[0] if shebang.startswith("#!") and shebang[2:].split() else ""
    material = [
        _cache.file_identity(pip),
        shebang,
        _cache.file_identity(interpreter) if interpreter else "",
        sorted(
            (k, v)
            for k, v in environ.items()
            if k in ("PATH", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
            or k.startswith(("PYENV", "CONDA"))  # a pyenv shim or conda wrapper picks by these
        ),
        cwd,
        _cache.file_identity(os.path.join(cwd or ".", ".python-version")),
    ]
    match = _PIP_FROM.search(_cache.remembered("pip-version", material, ask) or "")
    return os.path.dirname(match.group("where").rstrip("/\\")) if match else None


def _uv_version(uv: str, environ: Mapping[str, str]) -> str | None:
    try:
        result = run_child([uv, "--version"], timeout_s=10, env=dict(environ), background=True)
    except OSError:
        return None
    match = re.search(r"uv (\S+)", result.stdout)
    return match.group(1) if match else None


def _policy(
    tool: str,
    python: str,
    uv: str | None,
    version: str | None,
    options: tuple[str, ...],
    environ: Mapping[str, str],
    cwd: str | None,
    timeout_s: float,
) -> PolicyAnswer:
    argv = _policy_argv(tool, python, uv, version, options)
    return _ask_policy(argv, options, environ, cwd, timeout_s)


CHECK_BY = "pip check's rules over the installed metadata"


def computable(facts: InterpreterFacts) -> bool:
    """Whether ``pip check``'s verdict can be computed from what the probe read: the target said
    its markers, and no name has two records in one folder (which of them an installer reads is
    its own choice: pip's pkg_resources backend takes the highest version, its importlib one the
    folder's order)."""
    return facts.markers is not None and not any(d.twins for d in facts.distributions)


def metadata_check(
    facts: InterpreterFacts,
) -> tuple[tuple[UnmetRequirement, ...] | None, str | None, str | None]:
    """``pip check`` without starting pip: every distribution the target's ``sys.path`` shows
    (the first of a name, as pip's ``_DistributionFinder``), each requirement it declares with
    its marker evaluated for the target and no extra (pip's ``iter_dependencies``), missing or
    not met by the installed version (``check_package_set``: prereleases allowed), each worded
    as pip words it (``commands/check.py``). Not covered: pip's "is not supported on this
    platform" for a wheel built for another machine."""
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    markers = facts.markers or {}
    known = {d.name: d for d in facts.distributions}
    versions = {d.name: d.version for d in facts.distributions}
    unreadable = [d.name for d in facts.distributions if d.requires is None]
    if unreadable and len(unreadable) == len(facts.distributions):
        return None, None, "the distributions' requirements were not read"
    unmet: list[UnmetRequirement] = []
    for dist in sorted(facts.distributions, key=lambda d: d.name):
        missing: list[tuple[str, str]] = []
        conflicting: list[tuple[str, str, str]] = []
        for requirement in holding(dist, markers):
            name = str(canonicalize_name(requirement.name))
            if name not in versions:
                missing.append((name, str(requirement)))
                continue
            try:
                met = requirement.specifier.contains(Version(versions[name]), prereleases=True)
            except InvalidVersion:
                met = requirement.specifier.contains(versions[name], prereleases=True)
            if not met:
                conflicting.append((name, versions[name], str(requirement)))
        for name, _text in sorted(set(missing), key=str):
            unmet.append(
                _unmet(
                    f"{dist.name} {dist.version} requires {name}, which is not installed.", known
                )
            )
        for name, have, text in sorted(set(conflicting), key=str):
            unmet.append(
                _unmet(
                    f"{dist.name} {dist.version} has requirement {text}, but you have {name} {have}.",
                    known,
                )
            )
    return tuple(unmet), CHECK_BY, None


def with_others(
    check: tuple[UnmetRequirement, ...] | None, facts: InterpreterFacts
) -> tuple[UnmetRequirement, ...] | None:
    """Each unmet line with what every other installed distribution declares on its package
    (marker evaluated for the target, no extra, as pip's ``iter_dependencies``): whether the
    version the line asks for breaks another's requirement. Not read where no distribution's
    requirements were read."""
    import dataclasses

    from packaging.utils import canonicalize_name

    if not check or all(d.requires is None for d in facts.distributions):
        return check
    markers = facts.markers or {}
    on: dict[str, list[Declared]] = {}
    for dist in facts.distributions:
        for requirement in holding(dist, markers):
            requirement.marker = None
            on.setdefault(str(canonicalize_name(requirement.name)), []).append(
                Declared(dist.name, dist.version, str(requirement))
            )
    return tuple(
        dataclasses.replace(u, others=tuple(d for d in on.get(u.name, ()) if d.of != u.of))
        for u in check
    )


def _unmet(line: str, known: Mapping[str, RawDistribution]) -> UnmetRequirement:
    found = read_check_line(line, known)
    assert found is not None, line  # worded by the patterns read_check_line reads
    return found


def _check(
    tool: str,
    python: str,
    uv: str | None,
    facts: InterpreterFacts,
    environ: Mapping[str, str],
    cwd: str | None,
    timeout_s: float,
) -> tuple[tuple[UnmetRequirement, ...] | None, str | None, str | None]:
    """The installer's own check: each unmet requirement, as it states it; or, where it did not
    answer, why (its check crashed, ran past its time)."""
    if tool == "uv":
        argv = [uv or "uv", "pip", "check", "--python", python]
        by = "uv pip check"
    else:
        argv = [python, "-m", "pip", "check"]
        by = "pip check"
    try:
        result = run_child(
            argv, timeout_s=timeout_s, env=dict(environ), cwd=_folder(cwd), background=True
        )
    except OSError as exc:
        return None, None, f"{by} could not start: {exc}"
    if result.timed_out:
        return None, None, f"{by} did not answer in {timeout_s:.0f} s"
    known = {d.name: d for d in facts.distributions}
    lines = [line.strip() for line in (result.stdout + "\n" + result.stderr).splitlines()]
    unmet = tuple(
        item for item in (read_check_line(line, known) for line in lines) if item is not None
    )
    if result.returncode == 0 or (result.returncode == 1 and unmet):
        return unmet, by, None
    # an exit without one line of the check's own: the installer crashed (a traceback ends in
    # exit code 1 too), it did not check
    last = next((line for line in reversed(lines) if line), "no output")
    return None, None, f"{by} crashed on this Python: {last[:200]}"


_PIP_CONFLICT = re.compile(
    r"^(?P<of>\S+) (?P<of_version>\S+) has requirement (?P<requirement>.+), but you have "
    r"(?P<name>\S+) (?P<have>\S+?)\.?$"
)
_PIP_MISSING = re.compile(
    r"^(?P<of>\S+) (?P<of_version>\S+) requires (?P<name>\S+), which is not installed\.?$"
)
_UV_CONFLICT = re.compile(
    r"^The package `(?P<of>[^`]+)` requires `(?P<requirement>[^`]+)`, but `(?P<have>[^`]+)` is "
    r"installed"
)
_UV_MISSING = re.compile(
    r"^The package `(?P<of>[^`]+)` requires `(?P<requirement>[^`]+)`, but it's not installed"
)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*")


def read_check_line(line: str, known: Mapping[str, RawDistribution]) -> UnmetRequirement | None:
    """One line of ``pip check`` (the format strings of pip's commands/check.py) or ``uv pip
    check``, with what the metadata says about who asked for each side."""
    from packaging.utils import canonicalize_name

    fields: dict[str, str | None] = {}
    for pattern in (_PIP_CONFLICT, _PIP_MISSING, _UV_CONFLICT, _UV_MISSING):
        match = pattern.match(line)
        if match:
            fields = dict(match.groupdict())
            break
    else:
        return None
    requirement = fields.get("requirement")
    name = fields.get("name")
    if name is None and requirement:
        found = _NAME.match(requirement)
        name = found.group(0) if found else requirement
    of = canonicalize_name(fields.get("of") or "")
    wanted = canonicalize_name(name or "")
    of_dist, dist = known.get(of), known.get(wanted)
    return UnmetRequirement(
        line=line,
        of=of,
        of_version=fields.get("of_version") or (of_dist.version if of_dist else None),
        name=wanted,
        requirement=requirement,
        have=fields.get("have"),
        of_requested=of_dist.requested if of_dist else None,
        name_requested=dist.requested if dist else None,
        of_installed_at=of_dist.installed_at if of_dist else None,
        name_installed_at=dist.installed_at if dist else None,
        of_location=of_dist.location if of_dist else None,
        name_location=dist.location if dist else None,
    )
