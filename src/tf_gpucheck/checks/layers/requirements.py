"""TensorFlow's declared requirements: what the installed metadata and pip check's rules say is unmet, the NumPy ABI a build was compiled for."""

from __future__ import annotations

import dataclasses
import functools

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tf_gpucheck.checks import facts, releases, stale
from tf_gpucheck.checks.findings import (
    Finding,
    Observation,
    fail,
    info,
    observation_of,
    ok,
    skip,
    warn,
)
from tf_gpucheck.checks.registry import check
from tf_gpucheck.installer import commands, intent
from tf_gpucheck.installer.intent import Fix
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import (
    RequirementInfo,
    Snapshot,
    UnmetRequirement,
)


def not_recorded(snapshot: Snapshot) -> str:
    """Why the user's import was not recorded: an interpreter that could not be queried, or an
    older snapshot."""
    if snapshot.target.error:
        return f"the interpreter could not be queried: {snapshot.target.error}"
    return "not recorded (a snapshot before schema 3)"


# --- what TensorFlow declares it needs ------------------------------------------------------

_FAMILY = {"numpy": "numpy_incompatible", "protobuf": "protobuf_incompatible"}
_FAMILY_ORDER = ("numpy_incompatible", "protobuf_incompatible", "tf_requirement_unmet")


@functools.lru_cache(maxsize=1024)
def parse_requirement(text: str) -> Requirement | None:
    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def requirement_problems(
    requirements: tuple[RequirementInfo, ...], tf_version: str | None
) -> list[tuple[str, str, Fix]]:
    """(cause, what is wrong, the install that fixes it) for every requirement not met, most
    important family first. Keras itself is the ``keras`` check's."""
    problems = []
    numpy = None
    for item in requirements:
        requirement = parse_requirement(item.requirement)
        if requirement is None:
            continue
        name = canonicalize_name(requirement.name)
        if name == "numpy" and item.installed:
            numpy = item.installed
        if name in ("keras", "tf-keras"):
            continue
        # a missing one is unmet, whichever it is: NumPy or protobuf "incompatible" is a version
        # that is there (a --no-deps install lacks them all: not a NumPy problem)
        cause = (
            _FAMILY.get(name, "tf_requirement_unmet") if item.installed else "tf_requirement_unmet"
        )
        wanted = intent.install(f"{name}{requirement.specifier}")
        if item.installed is None:
            problems.append((cause, f"{name} is not installed ({item.of} requires it)", wanted))
        elif not requirement.specifier.contains(item.installed, prereleases=True):
            problems.append(
                (
                    cause,
                    f"{name} {item.installed} does not satisfy {item.of}'s requirement "
                    f"{name}{requirement.specifier}"
                    + (
                        "" if _other_major(requirement, item.installed) else " (same major version)"
                    ),
                    wanted,
                )
            )
    if numpy and tf_version and not any(c == "numpy_incompatible" for c, _, _ in problems):
        try:
            numpy_2 = Version(numpy).major >= 2
            old_build = Version(tf_version).release[:2] < releases.NUMPY_2_FROM
        except InvalidVersion:
            numpy_2 = old_build = False
        if numpy_2 and old_build:
            problems.append(
                (
                    "numpy_incompatible",
                    f"NumPy {numpy} with TensorFlow {tf_version}, which was compiled against NumPy 1.x",
                    intent.install("numpy<2"),
                )
            )
    problems.sort(key=lambda p: _FAMILY_ORDER.index(p[0]))
    return problems


def _other_major(requirement: Requirement, installed: str) -> bool:
    """No release of the installed major version satisfies the requirement: an API break, not a
    conservative bound (TensorFlow 2.10 declares protobuf<3.20 and runs with 3.20.3)."""
    try:
        major = Version(installed).major
    except InvalidVersion:
        return True
    probes = [f"{major}.{minor}.{patch}" for minor in range(60) for patch in (0, 9)]
    return not any(requirement.specifier.contains(v, prereleases=True) for v in probes)


_WORLD = ("tensorflow", "tf-", "keras", "tensorboard", "nvidia-", "jax", "ml-dtypes", "tf-keras")
"""The distributions whose unmet requirements are TensorFlow's business (declared by them, or
on them); others (a desktop's pygobject wanting pycairo) are listed apart."""


def _in_world(name: str) -> bool:
    return name.startswith(_WORLD)


def _family(unmet: UnmetRequirement) -> str:
    if unmet.name in ("keras", "tf-keras") or (
        unmet.of in ("keras", "tf-keras") and (unmet.name in stale.TENSORFLOW_NAMES)
    ):
        return "keras_mismatch"
    if unmet.have is None:  # not installed: unmet, not a version that is incompatible
        return "tf_requirement_unmet"
    return _FAMILY.get(unmet.name, "tf_requirement_unmet")


def _hard(unmet: UnmetRequirement) -> bool:
    """Another major version of NumPy, protobuf or Keras stops the import (or tf.keras); a bound
    missed within a major version may only break a feature."""
    if unmet.name not in ("numpy", "protobuf", "keras") or unmet.have is None:
        return unmet.have is None and unmet.of in stale.TENSORFLOW_NAMES
    requirement = parse_requirement(f"{unmet.name}{_spec_of(unmet.requirement)}")
    return requirement is not None and _other_major(requirement, unmet.have)


def _stops(unmet: UnmetRequirement, snapshot: Snapshot) -> bool:
    """``_hard``, as far as it is known: another major version of NumPy or protobuf stops
    TensorFlow's import where TensorFlow declares the bound (2.7-2.17 compiled against NumPy 1),
    unless the probe saw it import and start; another package's bound on them (ml-dtypes 0.6
    declares numpy>=2.0.0, and loads under NumPy 1.26) is not known to stop it. Keras is judged
    apart: tf.keras is not what the probe imports."""
    if not _hard(unmet):
        return False
    if unmet.name not in ("numpy", "protobuf"):
        return True
    if _seen_importing(snapshot):
        return False
    return unmet.of in stale.TENSORFLOW_NAMES


def _seen_importing(snapshot: Snapshot) -> bool:
    """The probe imported TensorFlow and started it, with what is installed."""
    seen = snapshot.tensorflow
    return seen.probed and seen.error is None and seen.version is not None


def _spec_of(requirement: str | None) -> str:
    parsed = parse_requirement(requirement or "")
    return str(parsed.specifier) if parsed is not None else ""


def requirement_observation(unmet: UnmetRequirement, by: str | None) -> Observation:
    return observation_of(
        "requirement", unmet, "of", "of_version", "requirement", "name", "have", by=by
    )


@check("tf_requirements", "The packages TensorFlow and Keras declare are installed and match")
def tf_requirements(snapshot: Snapshot, matrix: Matrix) -> Finding:
    if not snapshot.packages.tensorflow:
        return skip("tf_requirements", "TensorFlow is not installed")
    installer = snapshot.installer
    if installer is not None and installer.check is not None:
        return _from_installer_check(snapshot, matrix, installer.check, installer.check_by)
    requirements = snapshot.packages.requirements
    if requirements is None:
        return skip("tf_requirements", not_recorded(snapshot))
    finding = _from_metadata(snapshot, matrix, requirements)
    why = installer.check_error if installer is not None else None
    if why:  # not run is not passed: the installer's check did not answer, and says why
        finding = dataclasses.replace(
            finding,
            summary=f"{finding.summary} (TensorFlow's and Keras's own; not checked: {why})",
        )
    return finding


def _from_installer_check(
    snapshot: Snapshot,
    matrix: Matrix,
    check_lines: tuple[UnmetRequirement, ...],
    by: str | None,
) -> Finding:
    """Judged from the installer's own check: its lines are the statement, verbatim."""
    by = by or "the installer's check"
    ours = [u for u in check_lines if _in_world(u.of) or _in_world(u.name)]
    others = [u for u in check_lines if u not in ours]
    # what the installer said, verbatim (the observations), before any line is read as meant of
    # another distribution
    observed = tuple(requirement_observation(u, by) for u in ours)
    # a TensorFlow declared by one name, installed under another: met in substance, or meant of
    # the installed distribution (never a second TensorFlow over its files)
    named = [(u, _by_another_name(u, snapshot)) for u in ours]
    substance = [u for u, meant in named if meant is u]
    ours = [meant or u for u, meant in named if meant is not u]
    declared_as = {id(meant): u.name for u, meant in named if meant is not None and meant is not u}
    extra = _numpy_abi(snapshot, matrix, ours)
    aside = (
        "\nNot TensorFlow's (left alone): " + "; ".join(u.line for u in others) if others else ""
    )
    if substance:
        aside = (
            "\n".join(f"{by}: {u.line}" for u in substance)
            + "\n"
            + _SUBSTANCE.format(names=", ".join(sorted({u.name for u in substance})))
            + aside
        )
    if not ours and extra is None and substance:
        first = substance[0]
        tf = snapshot.packages.tensorflow[0]
        return info(
            "tf_requirements",
            f"{by}: {first.line} {tf.name} {tf.version} is that TensorFlow under another name, "
            "in the range declared: nothing to install",
            aside.strip(),
            observed=observed,
        )
    if not ours and extra is None:
        return ok(
            "tf_requirements",
            f"{by}: every requirement of TensorFlow, Keras and their packages is met",
            aside.strip(),
        )
    if not ours and extra is not None:
        cause, summary, fix, fallbacks = extra
        finding = fail("tf_requirements", cause, summary, aside.strip(), fix, observed=observed)
        return finding.otherwise(fallbacks)
    order = (
        "numpy_incompatible",
        "protobuf_incompatible",
        "keras_mismatch",
        "tf_requirement_unmet",
    )
    ours.sort(key=lambda u: (order.index(_family(u)), not _hard(u)))
    lent, foreign = _lent(ours, snapshot, matrix)
    if foreign is not None and len(lent) == len(ours):
        first = ours[0]
        more = f" (and {len(ours) - 1} more)" if len(ours) > 1 else ""
        judge = fail if _stops(first, snapshot) or snapshot.tensorflow.error else warn
        return judge(
            "tf_requirements",
            _family(first),
            f"{by}: {first.line}{more}",
            "\n".join(f"{by}: {u.line}" for u in ours) + f"\n{_LENT}" + aside,
            foreign,
            observed=observed,
        )
    if foreign is not None:  # the environment's own lines are fixed; the lent ones go with it
        aside = f"\nThrough PYTHONPATH: {'; '.join(u.line for u in lent)} {_LENT}" + aside
        ours = [u for u in ours if u not in lent]
    first = ours[0]
    # what the same package declares is met in one install (another's bound may pull against it)
    plan = stale.together(
        [
            stale.remedy(u, snapshot, matrix, declared_as=declared_as.get(id(u)))
            for u in ours
            if u.of == first.of
        ]
    )
    more = f" (and {len(ours) - 1} more)" if len(ours) > 1 else ""
    details = "\n".join(f"{by}: {u.line}" for u in ours) + f"\nThe fix: {plan.changes}." + aside
    judge = fail if _stops(first, snapshot) or snapshot.tensorflow.error else warn
    finding = judge(
        "tf_requirements",
        _family(first),
        f"{by}: {first.line}{more}",
        details,
        plan.fix,
        observed=observed,
    )
    return finding.otherwise(plan.fallbacks)


_LENT = (
    "A side of each line is a distribution that PYTHONPATH lends from another environment's "
    "folder: installing into this environment does not change what that folder shows, and "
    "without it this environment's own are read. The fix is the one for that folder."
)


def _lent(
    unmet: list[UnmetRequirement], snapshot: Snapshot, matrix: Matrix
) -> tuple[list[UnmetRequirement], Fix | None]:
    """The lines with a side (the declaring distribution or the installed version) in a folder
    PYTHONPATH lends, and the fix ``user_import`` gives for that folder where it is another
    environment's (``pythonpath_foreign``); ``None`` where it is not (a ``--target`` folder of
    the user's own is where a fix installs)."""
    from tf_gpucheck.checks.layers.imports import foreign_pythonpath

    lent = [u for u in unmet if "pythonpath" in (u.of_location, u.name_location)]
    return lent, foreign_pythonpath(snapshot, matrix) if lent else None


_SUBSTANCE = (
    "A distribution that declares {names} by name cannot see it installed under another name "
    "(tensorflow-cpu, tf-nightly): the installer's check lists it as missing, but the modules "
    "are there. Installing the named one as well puts a second TensorFlow over the same files "
    "(https://github.com/gmalivenko/pytorch2keras/issues/79)."
)


def _by_another_name(unmet: UnmetRequirement, snapshot: Snapshot) -> UnmetRequirement | None:
    """A TensorFlow a distribution declares by one name (tf-keras 2.17.0: ``tensorflow<2.18,
    >=2.17``) and the installer's check finds missing, where TensorFlow is installed under
    another (``tensorflow-cpu``, ``tf-nightly``): ``unmet`` itself where that distribution's
    version is in the declared range (met in substance); else the same requirement on the
    installed distribution, which is what a fix moves. ``None``: not such a line."""
    if unmet.have is not None or canonicalize_name(unmet.name) not in stale.TENSORFLOW_NAMES:
        return None
    installed = [
        d
        for d in snapshot.packages.tensorflow
        if canonicalize_name(d.name) != canonicalize_name(unmet.name)
    ]
    if not installed:
        return None
    dist = installed[0]
    wanted = parse_requirement(
        unmet.requirement or stale.declared(snapshot, unmet.of, unmet.name) or unmet.name
    )
    if wanted is None:
        return None
    try:
        inside = wanted.specifier.contains(dist.version, prereleases=True)
    except InvalidVersion:
        return None
    if inside:
        return unmet
    return dataclasses.replace(
        unmet,
        name=canonicalize_name(dist.name),
        requirement=f"{canonicalize_name(dist.name)}{wanted.specifier}",
        have=dist.version,
        name_installed_at=dist.installed_at,
    )


def _numpy_abi(
    snapshot: Snapshot, matrix: Matrix, unmet: list[UnmetRequirement]
) -> tuple[str, str, Fix, tuple[Fix, ...]] | None:
    """NumPy 2 under a TensorFlow compiled against NumPy 1 (2.7 to 2.14 declare no upper bound,
    so no installer's check sees it): (cause, summary, fix, fallbacks)."""
    if any(u.name == "numpy" for u in unmet):
        return None
    numpy_row = next(
        (r for r in snapshot.packages.requirements or () if r.requirement.startswith("numpy")),
        None,
    )
    numpy = numpy_row.installed if numpy_row else None
    main = commands.main_distributions(snapshot)
    tf_version = facts.tf_version(snapshot)
    if not numpy or not tf_version or not main:
        return None
    try:
        numpy_2 = Version(numpy).major >= 2
        old_build = Version(tf_version).release[:2] < releases.NUMPY_2_FROM
    except InvalidVersion:
        return None
    if not (numpy_2 and old_build):
        return None
    as_unmet = UnmetRequirement(
        line="",
        of=main[0].name,
        of_version=tf_version,
        name="numpy",
        requirement="numpy<2",
        have=numpy,
        of_installed_at=main[0].installed_at,
        name_installed_at=numpy_row.installed_at if numpy_row else None,
    )
    plan = stale.remedy(as_unmet, snapshot, matrix)
    return (
        "numpy_incompatible",
        f"NumPy {numpy} with TensorFlow {tf_version}, which was compiled against NumPy 1.x "
        "(2.18 is the first compiled against NumPy 2)",
        plan.fix,
        plan.fallbacks,
    )


def _from_metadata(
    snapshot: Snapshot, matrix: Matrix, requirements: tuple[RequirementInfo, ...]
) -> Finding:
    """Without the installer's check (no pip to ask, an older snapshot): the requirements read
    from the metadata of TensorFlow and Keras, and only those."""
    problems = requirement_problems(requirements, facts.tf_version(snapshot))
    read = sorted({r.of for r in requirements})
    if not problems:
        if not requirements:
            return info(
                "tf_requirements",
                "TensorFlow's declared requirements could not be read (no metadata, no installer "
                "check)",
            )
        return ok(
            "tf_requirements",
            f"all {len(requirements)} requirements declared by {', '.join(read)} are met "
            "(read from their metadata; the installer's own check was not run)",
        )
    cause, summary, fix = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    details = "\n".join(what for _, what, _ in problems)
    hard = (
        cause in ("numpy_incompatible", "protobuf_incompatible")
        and not summary.endswith("(same major version)")
        and not _seen_importing(snapshot)
    )
    if hard or snapshot.tensorflow.error:
        return fail("tf_requirements", cause, summary + more, details, fix)
    return warn("tf_requirements", cause, summary + more, details, fix)
