"""Which newer TensorFlow release accepts what is installed: the matrix's rows (the wheels' own
METADATA, ``requires``), filtered by what this machine's Python, OS and driver run, and by what a
release's build takes beyond its metadata (NumPy 2 only from 2.18)."""

from __future__ import annotations

from collections.abc import Callable

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tf_gpucheck.matrix import Matrix, TfRelease, driver_floor, driver_supports
from tf_gpucheck.snapshot import Snapshot, UnmetRequirement


def keras_jump(snapshot: Snapshot, row: TfRelease) -> str:
    """ ", which takes Keras 2.15.0 to Keras 3": what that release declares on Keras (its
    METADATA, the matrix's ``requires``) admits no version of the installed Keras's major."""
    have = snapshot.packages.keras
    if not have:
        return ""
    try:
        major = Version(have).major
    except InvalidVersion:
        return ""
    python = snapshot.system.python_version
    for line in row.requires:
        requirement = parsed(line)
        if (
            requirement is None
            or canonicalize_name(requirement.name) != "keras"
            or not applies(requirement, python)
        ):
            continue
        admitted = [
            m
            for m in range(10)
            if any(
                requirement.specifier.contains(Version(f"{m}.{minor}.0"), prereleases=True)
                for minor in range(60)
            )
        ]
        if admitted and major not in admitted:
            return f", which takes Keras {have} to Keras {admitted[0]}"
    return ""


def admitting(
    snapshot: Snapshot, matrix: Matrix, version: str | None, name: str, wanted: SpecifierSet
) -> TfRelease | None:
    """The oldest TensorFlow release newer than ``version`` whose own requirement on ``name``
    shares a version with ``wanted``, for this Python, OS and driver."""
    python = snapshot.system.python_version

    def shares(row: TfRelease) -> bool:
        return any(
            (requirement := parsed(line)) is not None
            and canonicalize_name(requirement.name) == name
            and applies(requirement, python)
            and overlap(requirement.specifier, wanted)
            for line in row.requires
        )

    return _oldest_newer(snapshot, matrix, version, shares)


def _oldest_newer(
    snapshot: Snapshot, matrix: Matrix, version: str | None, fits: Callable[[TfRelease], bool]
) -> TfRelease | None:
    """The oldest release newer than ``version`` that this Python, OS and driver run and that
    ``fits``."""
    try:
        now = Version(version or "")
    except InvalidVersion:
        return None
    found = [row for row in _runnable_newer(snapshot, matrix, now) if fits(row)]
    return found[-1] if found else None


def parsed(line: str) -> Requirement | None:
    try:
        return Requirement(line)
    except InvalidRequirement:
        return None


def _runnable_newer(snapshot: Snapshot, matrix: Matrix, now: Version) -> list[TfRelease]:
    """Releases newer than ``now`` (a later minor), newest first, that this Python, OS and driver
    run."""
    python = snapshot.system.python_version
    driver = snapshot.nvml.driver_version if snapshot.nvml.available else None
    windows = snapshot.system.os == "Windows"
    out = []
    for row in matrix.newest_first():
        try:
            if Version(row.version) <= now or row.minor <= (now.major, now.minor):
                continue
        except InvalidVersion:
            continue
        if python and not row.supports_python(python):
            continue
        if driver and row.cuda:
            toolkit, floor = driver_floor(matrix, row.cuda, windows=windows)
            if not (driver_supports(driver, toolkit) or driver_supports(driver, floor)):
                continue
        out.append(row)
    return out


def tensorflow_requirement(name: str, row: TfRelease, snapshot: Snapshot) -> str:
    series = f"{row.minor[0]}.{row.minor[1]}.*"
    extra = (
        "[and-cuda]"
        if name == "tensorflow" and row.and_cuda and snapshot.system.os == "Linux"
        else ""
    )
    return f"{name}{extra}=={series}"


def newer_tensorflow(
    snapshot: Snapshot, matrix: Matrix, unmet: UnmetRequirement
) -> TfRelease | None:
    """The oldest TensorFlow release newer than the installed one whose own METADATA (the
    matrix's ``requires``) accepts the installed ``unmet.name``, for this Python, OS and driver."""
    try:
        have = Version(unmet.have or "")
    except InvalidVersion:
        return None
    python = snapshot.system.python_version
    return _oldest_newer(
        snapshot, matrix, unmet.of_version, lambda row: accepts(row, unmet.name, have, python)
    )


NUMPY_2_FROM = (2, 18)
"""The first TensorFlow compiled against NumPy 2 (TensorFlow 2.18.0 release notes: "TensorFlow now
supports and is compiled with NumPy 2.0 by default"); earlier ones fail to import under NumPy 2
whatever their metadata declares (2.7 to 2.14 declare no upper bound)."""


def accepts(row: TfRelease, name: str, have: Version, python: str | None = None) -> bool:
    if name == "numpy" and have.major >= 2 and Version(row.version).release[:2] < NUMPY_2_FROM:
        return False  # its METADATA may admit NumPy 2; its build does not
    for line in row.requires:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name) == name and applies(requirement, python):
            return requirement.specifier.contains(have, prereleases=True)
    return False  # the matrix does not say what this release declares on it: not known to fit


def applies(requirement: Requirement, python: str | None) -> bool:
    """A requirement's marker holds for the target's Python. ``False`` where that is not known:
    a marker on anything but the Python version, or an unknown Python."""
    from packaging.markers import UndefinedEnvironmentName

    marker = requirement.marker
    if marker is None:
        return True
    if not python or any(
        word in str(marker) for word in ("platform", "sys_", "os_name", "implementation", "extra")
    ):
        return False
    short = ".".join(python.split(".")[:2])
    try:
        return marker.evaluate({"python_version": short, "python_full_version": python})
    except UndefinedEnvironmentName:
        return False


def overlap(a: SpecifierSet, b: SpecifierSet) -> bool:
    """Some version satisfies both: tried at each bound either names, and just past it."""
    candidates: set[Version] = set()
    for clause in [*a, *b]:
        try:
            edge = Version(clause.version.removesuffix(".*"))
        except InvalidVersion:
            return True  # not comparable here: not known to conflict
        major, minor, micro = (*edge.release, 0, 0)[:3]
        candidates |= {
            edge,
            Version(f"{major}.{minor}.{micro + 1}"),
            Version(f"{major}.{minor + 1}.0"),
            Version(f"{major + 1}.0.0"),
        }
    return any(
        a.contains(v, prereleases=True) and b.contains(v, prereleases=True) for v in candidates
    )
