"""The snapshot's facts about the target's installer (``Snapshot.installer``): which one, what it
refuses before resolving, what its check says is unmet, and the settings it reads (see
:mod:`tf_gpucheck.probes.installer`). Part of the snapshot's contract (:mod:`tf_gpucheck.snapshot`
names them too)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "LOCATION_KEYS",
    "PIP_TRUE",
    "Declared",
    "InstallerInfo",
    "InstallerSetting",
    "PolicyAnswer",
    "UnmetRequirement",
]


@dataclass(frozen=True)
class PolicyAnswer:
    """The installer's answer, before resolving anything, to an install with ``options``."""

    options: tuple[str, ...]
    """``()`` for a plain install, ``("--user",)``."""
    accepts: bool | None
    """``True``: it would go on to resolve; ``False``: it refuses; ``None``: not asked."""
    line: str | None = None
    """Its own line for a refusal (``error: externally-managed-environment``), or why it was
    not asked."""
    crashed: bool = False
    """The installer crashed (a Python traceback) instead of answering: it is broken, which is
    not a refusal (``accepts`` is ``None``; ``line`` is the traceback's last line; schema 5)."""


@dataclass(frozen=True)
class Declared:
    """One requirement an installed distribution declares (Requires-Dist), as read."""

    of: str
    of_version: str
    requirement: str
    """Without its marker (``ml-dtypes>=0.5.0``)."""


@dataclass(frozen=True)
class UnmetRequirement:
    """One line of the installer's own check, from the declaring package's side: ``of``
    declares ``requirement`` on ``name``, and the environment has ``have`` (``None``: not
    installed)."""

    line: str
    """Verbatim: "tf-keras 2.17.0 has requirement tensorflow<2.18,>=2.17, but you have
    tensorflow 2.18.0." (pip), "The package `a` requires `b<2`, but `2.5` is installed" (uv)."""
    of: str
    of_version: str | None
    name: str
    requirement: str | None
    """As the installer states it ("tensorflow<2.18,>=2.17"); pip names only the package of a
    missing one."""
    have: str | None
    of_requested: bool | None = None
    """The user asked for ``of`` by name (its REQUESTED file), rather than as a dependency."""
    name_requested: bool | None = None
    of_installed_at: float | None = None
    name_installed_at: float | None = None
    others: tuple[Declared, ...] | None = None
    """What every other installed distribution declares on ``name`` (its marker held for the
    target), read from their metadata: whether meeting ``requirement`` breaks one of them
    (``jax 0.6.2`` declares ``ml-dtypes>=0.5.0``); ``()``: none declares on it; ``None``: not
    read (an older snapshot, or the metadata was not read)."""
    of_location: str | None = None
    name_location: str | None = None
    """Where each side's metadata lies (``RawDistribution.location``): ``site``, ``user_site``,
    ``system_site``, ``pythonpath`` (a folder PYTHONPATH lends), ``other``; ``None``: not read."""


PIP_TRUE = frozenset({"y", "yes", "t", "true", "on", "1"})
"""pip's strtobool (utils/misc.py): what turns a boolean option on."""

LOCATION_KEYS = ("target", "prefix", "root")
"""pip options that put an install somewhere other than the interpreter's own environment (pip's
``--target``, ``--prefix``, ``--root``; its install command takes each from a config file or a
``PIP_*`` variable as from the command line)."""


@dataclass(frozen=True)
class InstallerSetting:
    """One pip option as ``install`` reads it: ``target = /x in /home/u/.config/pip/pip.conf``
    or ``PIP_TARGET=/x``."""

    key: str
    """The option's long name: ``target``, ``index-url``."""
    value: str
    source: str
    """The config file, or the variable (``PIP_TARGET``)."""

    @property
    def variable(self) -> bool:
        return self.source.startswith("PIP_")


@dataclass(frozen=True)
class InstallerInfo:
    """The target's installer, asked in the user's setting (see :mod:`tf_gpucheck.probes.installer`)."""

    tool: str | None
    """``pip``, ``uv`` (an environment uv made without pip), ``None``: none usable."""
    version: str | None
    path_pip: str | None = None
    """The ``pip`` the user's PATH finds."""
    path_pip_location: str | None = None
    """The site-packages that ``pip`` runs from, as ``pip --version`` says (in the user's folder,
    with their variables): the environment it installs into."""
    policy: tuple[PolicyAnswer, ...] = ()
    check: tuple[UnmetRequirement, ...] | None = None
    """The installer's own check (``pip check``): every unmet requirement; ``()``: none;
    ``None``: not run."""
    check_by: str | None = None
    check_error: str | None = None
    """Why there is no check (``check`` ``None``): the installer's check crashed, ran past its
    time, or the requirements were not read (schema 5)."""
    error: str | None = None
    """Why it was not asked."""
    no_index: str | None = None
    """Where the target's installer is set not to reach any package index (pip: ``PIP_NO_INDEX=1``
    or ``no-index = true in FILE``, as ``pip config debug`` lists its settings; uv:
    ``UV_OFFLINE=1``, ``offline`` or ``no-index`` in its settings); ``None``: not set, or not
    asked."""
    find_links: tuple[str, ...] = ()
    """Where pip looks for packages besides an index (its ``find-links`` setting, as ``pip
    config debug`` lists it): with ``no-index``, the only place it looks."""
    find_links_projects: tuple[str, ...] | None = None
    """The projects (PEP 503 names) with a wheel or sdist in those ``find-links`` folders, read
    from the file names as pip reads them; ``None``: not read (none set, or one is not a local
    folder, or holds an archive whose name does not parse)."""
    settings: tuple[InstallerSetting, ...] | None = None
    """pip's settings for ``install`` as ``pip config debug`` lists them in the user's setting:
    for each option, the value its config files give it (a later file over an earlier one,
    ``[install]`` over ``[global]``) and, apart, the ``PIP_*`` variable that overrides it;
    ``None``: not asked (uv, a pip without ``config debug``)."""

    own_crash: str | None = None
    """Where the user's PYTHONPATH is set: the traceback's last line of the installer this
    interpreter runs without it (the environment's own pip, which a fix that unsets PYTHONPATH
    runs; another folder's pip on PYTHONPATH can stand in for it), else ``None`` (schema 5)."""

    def crash(self) -> str | None:
        """The installer's last traceback line where it crashed instead of answering."""
        return next((a.line or "it crashed" for a in self.policy if a.crashed), None)

    def user_setting(self) -> InstallerSetting | None:
        """pip's ``user`` option where it is on for ``install`` (``PIP_USER=1``, ``user = true``
        in a config file: installs go to the user site); ``None``: off, or not asked. A variable
        overrides every file."""
        found = [s for s in self.settings or () if s.key == "user"]
        setting = next((s for s in found if s.variable), found[0] if found else None)
        if setting is None or setting.value.strip().lower() not in PIP_TRUE:
            return None
        return setting

    def placed_elsewhere(self) -> tuple[InstallerSetting, ...]:
        """The settings that put pip's installs somewhere other than the environment."""
        return tuple(s for s in self.settings or () if s.key in LOCATION_KEYS)

    def location_lift(self) -> tuple[tuple[str, str], ...]:
        """The variables that set :meth:`placed_elsewhere` aside for one install, the user's
        other settings kept: a variable of theirs emptied (pip skips an empty variable); for a
        config file's, ``PIP_CONFIG_FILE=/dev/null`` (pip then reads no config file) and every
        other setting the files hold as its ``PIP_*`` variable (one the user sets stays
        theirs). ``()``: nothing to set aside."""
        placed = self.placed_elsewhere()
        if not placed:
            return ()
        settings = self.settings or ()
        variables = {s.key for s in settings if s.variable}
        lift: list[tuple[str, str]] = []
        if any(not s.variable for s in placed):
            lift.append(("PIP_CONFIG_FILE", "/dev/null"))
            lift += [
                ("PIP_" + s.key.upper().replace("-", "_"), s.value)
                for s in settings
                if not s.variable and s.key not in LOCATION_KEYS and s.key not in variables
            ]
        lift += [(s.source, "") for s in placed if s.variable]
        return tuple(lift)
