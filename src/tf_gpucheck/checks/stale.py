"""Which side of an unmet requirement to change, and the install that changes it.

Package A declares a requirement on package B, and the installed B does not meet it (as the
installer's own check states it). The fix acts on the **stale side**:

- B is missing, or older than A allows: B is stale, install what A asks for;
- B is newer than A allows: where A is TensorFlow, the smallest change is B back in A's range
  (one distribution; TensorFlow and Keras stay), unless another installed distribution declares
  a B that range excludes, or going back crosses a major release of B (Keras 3 to 2) that a
  newer TensorFlow does not: then a newer TensorFlow that accepts the installed B (from
  compat_matrix.yaml, the wheels' own METADATA, filtered by what this machine runs). The other
  is named, and is the fallback when the resolver refuses the first. Where A is another
  package, a newer A that accepts B is tried first; changing B is the fallback.
- Either way, where A was installed after B (the metadata folders' times), A is the user's
  latest choice and B is what changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tf_gpucheck.checks import releases
from tf_gpucheck.installer import intent
from tf_gpucheck.installer.intent import Fix
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import Declared, Snapshot, UnmetRequirement

TENSORFLOW_NAMES = frozenset(
    {"tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "intel-tensorflow"}
)


@dataclass(frozen=True)
class Remedy:
    fix: Fix
    """The first install to try (written for the target later)."""
    fallbacks: tuple[Fix, ...] = ()
    """What to print instead, in order, when the installer refuses the one before."""
    changes: str = ""
    """Which side it changes, in words: "upgrade tf-keras (tensorflow 2.18.0 stays)"."""
    kept: str = ""
    """Where it moves TensorFlow to keep a package: that part alone ("ml-dtypes 0.7.0 stays:
    jax 0.7.0 declares ml_dtypes>=0.5.0"), said once TensorFlow already moves for another."""
    install: tuple[str, ...] = ()
    """The requirements of ``fix`` where it is one plain install of them (``()``: another kind
    of fix): what :func:`together` merges, as values."""
    gist: str = ""
    """``changes`` without the alternative it names, said where the plan is merged into one that
    moves TensorFlow (the alternative is then what happens)."""
    when_moved: tuple[str, ...] | None = None
    """What this plan installs instead where another plan merged with it moves TensorFlow: a
    range read from the installed TensorFlow no longer holds, so the package's bare name (the
    resolver takes the new release's range, or keeps what is there). ``None``: ``install``."""


def plain(
    *requirements: str,
    fallbacks: tuple[Fix, ...] = (),
    changes: str = "",
    kept: str = "",
    gist: str = "",
    when_moved: tuple[str, ...] | None = None,
) -> Remedy:
    """One install of ``requirements``, as a value and as the intent it prints."""
    return Remedy(
        install_line(requirements),
        fallbacks,
        changes,
        kept,
        tuple(requirements),
        gist,
        when_moved,
    )


def install_line(requirements: Sequence[str]) -> Fix:
    return intent.install(*requirements)


def together(plans: Sequence[Remedy]) -> Remedy:
    """The first plan, with the requirements of every other plain install added to its one
    install: the installer's check lists each unmet requirement, and a fix of one alone leaves
    the next (seen: protobuf upgraded, ml-dtypes still missing). Where two name the same
    package, a range beats a bare name (a holder taken back beside the range it must meet). The
    first fallbacks merge the same way where each is one plain install. Where one plan moves
    TensorFlow, the others give their ``when_moved`` (a bare name for a range read from the
    installed release). A first plan of another
    kind (an uninstall, an upgrade without a version) stays alone. The caller passes the plans of
    one declaring package's requirements."""
    first = plans[0]
    if not first.install:
        return first
    # where one plan moves TensorFlow, TensorFlow moves: the others' ranges read from the
    # installed TensorFlow give way to the new release's (seen: numpy<2 from 2.17.1 beside a
    # move to 2.20 that keeps ml-dtypes 0.7.0, which needs NumPy 2)
    moving = any(p.kept and p.install for p in plans)

    def gives_way(plan: Remedy) -> bool:
        return moving and not plan.kept and plan.when_moved is not None

    def part(plan: Remedy) -> tuple[str, ...]:
        return plan.when_moved if gives_way(plan) and plan.when_moved else plan.install

    wanted = list(part(first))
    merged = [first]
    for plan in plans[1:]:
        grown = _merged(wanted, part(plan))
        if grown is None or grown == wanted:
            continue
        wanted = grown
        merged.append(plan)
    if len(merged) == 1:
        return first
    mover = next((p for p in merged if p.kept), None)
    changes = []
    for plan in merged:
        if gives_way(plan):  # its range was the installed release's
            changes.append(f"{', '.join(part(plan))} as the new release declares it")
        elif mover is None or plan is mover:
            changes.append(plan.changes)
        else:  # TensorFlow moves once: the others' reason to keep, or their package's change
            changes.append(plan.kept or plan.gist or plan.changes)
    return plain(
        *wanted,
        fallbacks=_merged_fallbacks(merged),
        changes="; ".join(c for c in changes if c),
        kept=mover.kept if mover else "",
    )


def _merged(wanted: Sequence[str], added: Sequence[str]) -> list[str] | None:
    """``wanted`` with ``added``: a new name appended, a bare name replaced by a range of the
    same name. ``None``: ``added`` holds something that is not a requirement."""
    out = list(wanted)
    at = {_name(r): i for i, r in enumerate(out)}
    for requirement in added:
        name = _name(requirement)
        if name is None:
            return None
        if name not in at:
            at[name] = len(out)
            out.append(requirement)
        elif _bare(out[at[name]]) and not _bare(requirement):
            out[at[name]] = requirement
    return out


def _bare(requirement: str) -> bool:
    parsed = releases.parsed(requirement)
    return parsed is not None and not parsed.specifier and not parsed.url


def _merged_fallbacks(plans: Sequence[Remedy]) -> tuple[Fix, ...]:
    """The first plan's fallbacks, the first of them merged with the others' first where each is
    one plain install and all or none of them move TensorFlow (one way, the same way)."""
    first = plans[0].fallbacks
    heads = [p.fallbacks[0] for p in plans if p.fallbacks]
    if not first or len(heads) != len(plans):
        return first
    steps = [
        step
        for h in heads
        if len(h.steps) == 1 and not h.note
        for step in h.steps
        if isinstance(step, intent.Install) and not step.options
    ]
    if len(steps) != len(heads):
        return first
    moving = {any(_name(r) in TENSORFLOW_NAMES for r in s.requirements) for s in steps}
    if len(moving) != 1:
        return first
    wanted: list[str] | None = list(steps[0].requirements)
    for step in steps[1:]:
        wanted = _merged(wanted or [], step.requirements)
        if wanted is None:
            return first
    return (install_line(wanted or []), *first[1:])


def _name(requirement: str) -> str | None:
    parsed = releases.parsed(requirement)
    return canonicalize_name(parsed.name) if parsed else None


def direction(requirement: str | None, have: str | None) -> str:
    """``missing``, ``too_old`` (a newer B would do), ``too_new`` (only an older B would do),
    ``excluded`` (a ``!=``), or ``unknown``."""
    if have is None:
        return "missing"
    specifier = _specifier(requirement)
    if specifier is None:
        return "unknown"
    try:
        version = Version(have)
    except InvalidVersion:
        return "unknown"
    for clause in specifier:
        if clause.contains(version, prereleases=True):
            continue
        operator, bound = clause.operator, clause.version.removesuffix(".*")
        if operator in ("<", "<="):
            return "too_new"
        if operator in (">", ">="):
            return "too_old"
        if operator == "!=":
            return "excluded"
        try:
            edge = Version(bound)
        except InvalidVersion:
            return "unknown"
        if operator == "~=":
            return "too_old" if version < edge else "too_new"
        return "too_new" if version > edge else "too_old"  # == and ===
    return "unknown"


def _specifier(requirement: str | None) -> SpecifierSet | None:
    if not requirement:
        return None
    try:
        return Requirement(requirement).specifier
    except InvalidRequirement:
        try:
            return SpecifierSet(requirement)
        except InvalidSpecifier:
            return None


def _without_marker(requirement: str | None) -> str | None:
    """``numpy<2.0.0,>=1.23.5; python_version <= "3.11"`` (pip check prints the marker) as
    ``numpy<2.0.0,>=1.23.5``: the marker held, or the installer would not have named it."""
    if not requirement:
        return None
    try:
        parsed = Requirement(requirement)
    except InvalidRequirement:
        return requirement.split(";", 1)[0].strip() or None
    parsed.marker = None
    return str(parsed)


def declared(snapshot: Snapshot, of: str, name: str) -> str | None:
    """What ``of`` declares on ``name`` ("numpy<2.1.0,>=1.26.0"), from the metadata read."""
    for item in snapshot.packages.requirements or ():
        if item.of != of:
            continue
        try:
            requirement = Requirement(item.requirement)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name) == name:
            return str(requirement)
    return None


def remedy(
    unmet: UnmetRequirement, snapshot: Snapshot, matrix: Matrix, declared_as: str | None = None
) -> Remedy:
    """The install that meets ``unmet`` on its stale side, with its fallbacks. ``declared_as``:
    the name ``unmet.of`` declares, where ``unmet.name`` is the installed distribution of another
    name it is meant of (tf-keras declares ``tensorflow``; ``tensorflow-cpu`` is installed)."""
    wanted = _without_marker(unmet.requirement) or declared(snapshot, unmet.of, unmet.name)
    way = direction(wanted, unmet.have)
    satisfy = install_line([wanted]) if wanted else None
    if way == "missing":
        if wanted:
            return plain(
                wanted,
                changes=f"install {unmet.name} as {unmet.of} asks",
                when_moved=(unmet.name,) if unmet.of in TENSORFLOW_NAMES else None,
            )
        again = f"{unmet.of}=={unmet.of_version}" if unmet.of_version else unmet.name
        return plain(again, changes=f"install {unmet.name}")
    nightly = _nightly_companion(unmet)
    if nightly is not None:
        return Remedy(
            intent.then(intent.uninstall(unmet.of), intent.install(nightly)),
            changes=(
                f"replace {unmet.of} {unmet.of_version} with {nightly}, its build for "
                f"{unmet.name} {unmet.have} ({unmet.of} is numbered with TensorFlow's releases, "
                f"and a nightly has no release of that number; {unmet.name} stays)"
            ),
        )
    series = _lockstep(unmet, wanted)
    if series is not None and satisfy:
        # a companion numbered with TensorFlow: its own release of the installed TensorFlow's
        # series is one distribution changed, and TensorFlow (and its Keras) stay; where it
        # declares TensorFlow by another name, without the dependencies (they would bring that
        # name as a second TensorFlow over the installed one's files)
        asked = f"{declared_as or unmet.name}{_specifier(wanted)}"
        return Remedy(
            intent.install(series, options=("--no-deps",) if declared_as else ()),
            (satisfy,),
            changes=(
                f"move {unmet.of} to the series of {unmet.name} {unmet.have} ({unmet.of} "
                f"{unmet.of_version} follows TensorFlow's numbers: it declares {asked}; "
                f"{unmet.name} stays; or change {unmet.name} to {wanted})"
            ),
        )
    if way != "too_new" and wanted and unmet.of not in TENSORFLOW_NAMES:
        against = _against_tensorflow(unmet, wanted, snapshot, matrix)
        if against is not None:
            return against
    if way != "too_new" or not wanted or not satisfy:
        if wanted:
            return plain(
                wanted,
                changes=f"change {unmet.name} to what {unmet.of} asks{_breaks(unmet, wanted)}",
            )
        return Remedy(
            intent.install(unmet.name, options=("--upgrade",)),
            changes=f"change {unmet.name} to what {unmet.of} asks",
        )
    keep = f"{unmet.name}=={unmet.have}"
    if _declaring_side_chosen_last(unmet):
        return plain(
            wanted,
            changes=f"change {unmet.name}: {unmet.of} {unmet.of_version} was installed after it",
        )
    if unmet.of in TENSORFLOW_NAMES:
        return _tensorflow_or_back(unmet, wanted, keep, snapshot, matrix)
    if unmet.of_version:
        return plain(
            f"{unmet.of}>{unmet.of_version}",
            keep,
            fallbacks=(satisfy,),
            changes=f"upgrade {unmet.of} ({unmet.name} {unmet.have} stays)",
        )
    return Remedy(
        intent.install(unmet.of, keep, options=("--upgrade",)),
        (satisfy,),
        changes=f"upgrade {unmet.of} ({unmet.name} {unmet.have} stays)",
    )


NIGHTLY_COMPANIONS = {"tf-keras": "tf-keras-nightly"}
"""A companion numbered with TensorFlow, and its build for tf-nightly: "tf-nightly is not
compatible with tf-keras and needs to be used with tf-keras-nightly instead" (tensorflow/tensorboard
commit cf175ea, "CI: Unpin tf-nightly and stay on Keras 2", #6684); tf-keras-nightly
2.23.0.dev2026102618 declares ``tf-nightly~=2.23.0.dev`` (its METADATA)."""


def _nightly_companion(unmet: UnmetRequirement) -> str | None:
    """``tf-keras-nightly>=2.23.0.dev,<2.24`` where a companion numbered with TensorFlow
    (tf-keras 2.15.1) declares TensorFlow and the installed one is a nightly (2.23.0.dev20261026):
    no release of the companion has that number (PyPI's tf-keras has none past the last stable
    TensorFlow), its nightly build of the same series does. ``None``: not so."""
    nightly = NIGHTLY_COMPANIONS.get(canonicalize_name(unmet.of))
    if nightly is None or canonicalize_name(unmet.name) not in TENSORFLOW_NAMES:
        return None
    try:
        have = Version(unmet.have or "")
    except InvalidVersion:
        return None
    if not have.is_prerelease:
        return None
    major, minor = (*have.release, 0)[:2]
    return f"{nightly}>={major}.{minor}.0.dev,<{major}.{minor + 1}"


def _lockstep(unmet: UnmetRequirement, wanted: str | None) -> str | None:
    """``tf-keras==2.17.*`` where a companion declares TensorFlow's series of its own number
    (tf-keras 2.15.1: ``tensorflow<2.16,>=2.15``) and the installed TensorFlow is of another
    series: the companion's release of that series. ``None``: not a TensorFlow it declares,
    not numbered with it, or TensorFlow's version not read."""
    if canonicalize_name(unmet.name) not in TENSORFLOW_NAMES or unmet.of in TENSORFLOW_NAMES:
        return None
    specifier = _specifier(wanted)
    if specifier is None or not unmet.of_version or not unmet.have:
        return None
    try:
        own, have = Version(unmet.of_version), Version(unmet.have)
        bounds = {(c.operator, Version(c.version)) for c in specifier}
    except InvalidVersion:  # a wildcard (``==2.15.*``) is not the two bounds of a series
        return None
    major, minor = (*own.release, 0)[:2]
    floor, roof = Version(f"{major}.{minor}"), Version(f"{major}.{minor + 1}")
    if bounds != {(">=", floor), ("<", roof)} or have.release[:2] == (major, minor):
        return None
    return f"{unmet.of}=={have.major}.{have.minor}.*"


def _breaks(unmet: UnmetRequirement, wanted: str) -> str:
    """What meeting ``wanted`` leaves unmet of another installed distribution's own requirement on
    the same package (read from its metadata): said, so the change is not taken for free."""
    mine = _specifier(wanted)
    for other in unmet.others or ():
        theirs = _specifier(other.requirement)
        if mine is not None and theirs is not None and not releases.overlap(mine, theirs):
            return (
                f" (it leaves {other.of} {other.of_version}'s {other.requirement} unmet: no "
                f"version is in both)"
            )
    return ""


def _tensorflow_or_back(
    unmet: UnmetRequirement,
    wanted: str,
    keep: str,
    snapshot: Snapshot,
    matrix: Matrix,
) -> Remedy:
    """TensorFlow declares a bound the installed package is past (NumPy 2 under TensorFlow 2.15,
    upgraded after it): the smallest change is to put that one package back in TensorFlow's
    range, leaving TensorFlow and Keras where they are. Where another installed distribution's
    own requirement on it (read from their metadata) holds it past the range (jax 0.6.2 declares
    ``numpy>=1.25``), going back takes that distribution back with it: named unpinned beside the
    range, with TensorFlow pinned where it is, the installer's resolver picks their newest
    releases that fit. That changes the package and its holders; a newer TensorFlow changes
    TensorFlow, Keras, TensorBoard and whatever else its own ranges move, often across Keras's
    major release. A newer TensorFlow that takes the installed version is the fix only where a
    holder is TensorFlow or Keras itself, or where going back would take the package across a
    major release (Keras 3 to 2) the newer TensorFlow does not; either way the other is named,
    and is what prints when the installer refuses the first."""
    satisfy = install_line([wanted])
    row = releases.newer_tensorflow(snapshot, matrix, unmet)
    moved = (releases.tensorflow_requirement(unmet.of, row, snapshot), keep) if row else ()
    upgrade = install_line(moved) if moved else None
    jump = releases.keras_jump(snapshot, row) if row else ""
    mine = _specifier(wanted)
    needs = [
        d
        for d in unmet.others or ()
        if mine is not None
        and (theirs := _specifier(d.requirement)) is not None
        and not releases.overlap(mine, theirs)
    ]
    gist = f"put {unmet.name} back in {unmet.of} {unmet.of_version}'s range"
    back = _back_with_holders(unmet, wanted, needs)
    if row is None:
        if back is not None:
            return plain(
                *back,
                changes=f"{_back_words(unmet, needs, gist)})",
                gist=gist,
                when_moved=(unmet.name,),
            )
        return plain(
            wanted,
            changes=(
                f"change {unmet.name}: no newer TensorFlow takes it here{_breaks(unmet, wanted)}"
            ),
            gist=gist,
            when_moved=(unmet.name,),
        )
    if back is not None:
        return plain(
            *back,
            fallbacks=(upgrade,) if upgrade else (),
            changes=(
                f"{_back_words(unmet, needs, gist)}; or keep them by upgrading {unmet.of} to "
                f"{row.version}{jump})"
            ),
            gist=gist,
            when_moved=(unmet.name,),
        )
    if needs:
        held = needs[0]
        kept = f"{unmet.name} {unmet.have} stays: {held.of} {held.of_version} declares {held.requirement}"
    elif _crosses_major(unmet, wanted) and not jump:
        # going back would cross a major release (Keras 3 to 2); the newer TensorFlow does not
        kept = (
            f"{unmet.name} {unmet.have} stays: {unmet.of} {unmet.of_version}'s range would take "
            "it to another major version"
        )
    else:
        return plain(
            wanted,
            fallbacks=(upgrade,) if upgrade else (),
            changes=(
                f"{gist} ({unmet.of} and Keras stay; or keep {unmet.name} {unmet.have} by "
                f"upgrading {unmet.of} to {row.version}{jump})"
            ),
            gist=gist,
            when_moved=(unmet.name,),
        )
    return plain(
        *moved,
        fallbacks=(install_line(back) if back is not None else satisfy,),
        changes=f"upgrade {unmet.of} to {row.version}{jump} ({kept})",
        kept=kept,
    )


def _back_with_holders(
    unmet: UnmetRequirement, wanted: str, needs: Sequence[Declared]
) -> tuple[str, ...] | None:
    """``wanted`` with each distribution that holds ``unmet.name`` past it named unpinned and the
    declaring TensorFlow pinned at its version: one install in which the installer's resolver
    takes the holders back to releases that accept the range. ``None``: nothing holds it, or a
    holder is TensorFlow or Keras (going back could cross their major release)."""
    holders = sorted({canonicalize_name(d.of) for d in needs})
    if not holders or set(holders) & _MAJOR_MATTERS or not unmet.of_version:
        return None
    return (wanted, *holders, f"{unmet.of}=={unmet.of_version}")


def _back_words(unmet: UnmetRequirement, needs: Sequence[Declared], gist: str) -> str:
    """ "put numpy back in tensorflow 2.12.1's range, and jax with it (jax 0.6.2 declares
    numpy>=1.25 ..." (the caller closes the parenthesis)."""
    names = ", ".join(sorted({d.of for d in needs}))
    held = "; ".join(f"{d.of} {d.of_version} declares {d.requirement}" for d in needs)
    return f"{gist}, and {names} back with it ({held}: {unmet.of} and Keras stay"


_MAJOR_MATTERS = frozenset({"keras", "tf-keras", *TENSORFLOW_NAMES})
"""Where another major release breaks the user's code (Keras 2 and 3 are two APIs)."""


def _crosses_major(unmet: UnmetRequirement, wanted: str | None) -> bool:
    """Meeting ``wanted`` takes ``unmet.name`` (Keras, TensorFlow) to another major release: no
    version of the installed major satisfies it."""
    specifier = _specifier(wanted)
    if unmet.name not in _MAJOR_MATTERS or specifier is None or not unmet.have:
        return False
    try:
        major = Version(unmet.have).major
    except InvalidVersion:
        return False
    return not any(
        specifier.contains(Version(f"{major}.{minor}.{patch}"), prereleases=True)
        for minor in range(60)
        for patch in (0, 9)
    )


def _against_tensorflow(
    unmet: UnmetRequirement, wanted: str | None, snapshot: Snapshot, matrix: Matrix
) -> Remedy | None:
    """Another package's requirement (jax 0.6.2: ``ml_dtypes>=0.5.0``) that no version shares
    with what the installed TensorFlow declares on the same package (2.15.1: ``ml-dtypes~=0.3.1``):
    meeting it breaks TensorFlow's. Where that package was installed after TensorFlow (the
    user's latest choice), TensorFlow is the stale side: the oldest newer release whose own
    requirements admit it, the package kept. ``None``: no such conflict, or no release known."""
    mine = _specifier(wanted)
    if mine is None or not snapshot.packages.tensorflow:
        return None
    tf = snapshot.packages.tensorflow[0]
    theirs = _specifier(declared(snapshot, tf.name, unmet.name))
    if theirs is None or releases.overlap(mine, theirs):
        return None
    if unmet.of_installed_at is None or tf.installed_at is None:
        return None
    if unmet.of_installed_at <= tf.installed_at:
        return None
    row = releases.admitting(snapshot, matrix, tf.version, unmet.name, mine)
    if row is None or not unmet.of_version:
        return None
    kept = (
        f"{unmet.of} {unmet.of_version} stays: its {unmet.name}{mine} and {tf.name} "
        f"{tf.version}'s {unmet.name}{theirs} share no version"
    )
    return plain(
        releases.tensorflow_requirement(tf.name, row, snapshot),
        f"{unmet.of}=={unmet.of_version}",
        fallbacks=(install_line([wanted]),) if wanted else (),
        changes=f"upgrade {tf.name} to {row.version}{releases.keras_jump(snapshot, row)} ({kept})",
        kept=kept,
    )


def _declaring_side_chosen_last(unmet: UnmetRequirement) -> bool:
    """The declaring package was installed after the one it declares on (the metadata folders'
    times): the user's latest choice was it, so the other side is what changes. Unknown times:
    not known to be, and the declaring side is upgraded first."""
    if unmet.of_installed_at is None or unmet.name_installed_at is None:
        return False
    return unmet.of_installed_at > unmet.name_installed_at
