"""compat_matrix.yaml: which CUDA, cuDNN, Python, compute capabilities and driver each
TensorFlow release needs. Data, not code: loaded once, validated into typed rows (unknown keys
rejected), queried with ``packaging``. Every row names its public sources.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from tf_gpucheck._codec import DecodeError, from_data
from tf_gpucheck._numbers import is_whole_number
from tf_gpucheck.errors import GpucheckError

MATRIX_SCHEMA_VERSION = 1
_REPO_COPY = Path(__file__).resolve().parents[2] / "compat_matrix.yaml"


@dataclass(frozen=True)
class ComputeCapabilities:
    """What a release's pip wheel ships GPU code for."""

    sass: tuple[str, ...]
    """Binary kernels ("sm_80"): run on GPUs of the same major version and an equal or higher minor."""
    ptx: tuple[str, ...]
    """PTX ("compute_90"): JIT-compiled by the driver for GPUs of that capability or newer."""
    method: str | None = None
    """How the list was established (build_info of the wheel, fatbin headers, .bazelrc)."""
    build_info: tuple[str, ...] | None = None
    """cuda_compute_capabilities from the wheel's build_info.py, verbatim."""
    fatbin_scan: dict[str, Any] | None = None
    """Counts of SASS/PTX entries found in the wheel's main library (evidence, not used by checks)."""


@dataclass(frozen=True)
class TfRelease:
    version: str
    """As the tested-build-configurations table writes it: "2.15.0"."""
    python: str
    """Supported Python versions as the table writes them: "3.9-3.11" (or "2.7, 3.3-3.7")."""
    cuda: str | None
    cudnn: str | None
    windows_native_cuda: str | None
    windows_native_cudnn: str | None
    compute_capabilities: ComputeCapabilities | None
    and_cuda: tuple[str, ...] | None
    """Pins of the ``and-cuda`` extra (TF >= 2.14), None where the release has none."""
    source: tuple[str, ...]
    notes: str | None = None
    requires: tuple[str, ...] = ()
    """Requirements the Linux wheel declares (Requires-Dist, verbatim) for the packages gpucheck
    judges (numpy, protobuf, keras, ml-dtypes, h5py, typing-extensions); scripts/record_requires.py."""
    loader: tuple[str, ...] | None = None
    """The ``Get<Name>DsoHandle`` functions the released Linux x86_64 wheel's own libraries name
    (scripts/read_tf_wheels.py, tests/data/tf_wheels/): what that release can ask the loader for,
    used where the installed TensorFlow's binaries cannot be read. ``None``: not read."""

    @functools.cached_property  # asked for by every check of every node of a fleet
    def minor(self) -> tuple[int, int]:
        v = Version(self.version)
        return (v.major, v.minor)

    def supports_python(self, python_version: str) -> bool:
        return python_in_range(python_version, self.python)

    @property
    def newest_python(self) -> str:
        """The newest Python the release supports ("3.10" of "3.7-3.10")."""
        return self.python.split(",")[-1].split("-")[-1].strip()


@dataclass(frozen=True)
class CudaRelease:
    version: str
    min_driver_linux: str | None
    min_driver_windows: str | None
    source: tuple[str, ...]
    toolkit_row: str | None = None
    """The Table 3 row the minimums come from ("CUDA 12.2 GA")."""
    updates: dict[str, tuple[str, ...]] | None = None
    """Later update rows: name -> [linux, windows] minimum drivers."""
    notes: str | None = None


@dataclass(frozen=True)
class MinorCompat:
    """CUDA minor-version compatibility: any toolkit of this major runs on at least this driver."""

    major: int
    min_driver_linux: str | None
    min_driver_windows: str | None
    source: tuple[str, ...]
    upper_exclusive: str | None = None
    """The first driver branch of the next major (the floor's range ends below it)."""
    notes: str | None = None


@dataclass(frozen=True)
class PlatformFact:
    id: str
    summary: str
    source: tuple[str, ...]
    value: str | None = None


@dataclass(frozen=True)
class SourceDetail:
    repo: str | None = None
    path: str | None = None
    ref: str | None = None
    section: str | None = None
    lines: str | None = None
    note: str | None = None
    url_page: str | None = None
    files_read: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Architecture:
    """The first CUDA toolkit that supports a compute capability."""

    cc: str
    first_cuda: str
    name: str
    source: tuple[str, ...]


@dataclass(frozen=True)
class SonameRow:
    """The SONAME of each CUDA library a build against ``cuda`` asks the loader for."""

    cuda: str
    """A CUDA major ("12"), or major.minor ("11.0") where that minor differs."""
    libraries: dict[str, str]
    source: tuple[str, ...]
    notes: str | None = None


@dataclass(frozen=True)
class LoaderHandle:
    """One ``Get<Name>DsoHandle`` function of TensorFlow's loader: the library it opens."""

    handle: str
    """``CudaRuntime``, ``Cublas``, ``Curand`` ... as the binaries name it."""
    library: str
    """The file's base name: ``libcudart`` (the loader opens ``<library>.so.<version>``)."""
    gpu_init: bool
    """TensorFlow gives up the GPU when this library does not open (its dlopen checker's
    ``TryDlopenCUDALibraries`` asks for it)."""
    source: tuple[str, ...]
    notes: str | None = None


@dataclass(frozen=True)
class Matrix:
    schema_version: int
    sources: dict[str, str]
    tensorflow: tuple[TfRelease, ...]
    cuda: tuple[CudaRelease, ...]
    cuda_minor_compat: tuple[MinorCompat, ...]
    platform: tuple[PlatformFact, ...]
    source_details: dict[str, SourceDetail] | None = None
    sonames: tuple[SonameRow, ...] = ()
    architectures: tuple[Architecture, ...] = ()
    loader: tuple[LoaderHandle, ...] = ()

    def loader_handle(self, handle: str) -> LoaderHandle | None:
        return next((row for row in self.loader if row.handle == handle), None)

    def architecture(self, capability: str) -> Architecture | None:
        """The row of compute capability ``capability`` ("8.6")."""
        return next((a for a in self.architectures if a.cc == capability), None)

    def soname(self, cuda_version: str | None, library: str) -> str | None:
        """The SONAME a build with CUDA ``cuda_version`` asks for ``library``; ``None``: not known."""
        if not cuda_version:
            return None
        parts = cuda_version.split(".")
        for key in (".".join(parts[:2]), parts[0]):
            for row in self.sonames:
                if row.cuda == key and library in row.libraries:
                    return row.libraries[library]
        return None

    def linux_wheel_pip(self, row: TfRelease) -> str | None:
        """The oldest pip that installs the release's Linux wheel, from the platform tag of the
        wheel its sources cite (pypa/manylinux: manylinux1 needs pip 8.1, manylinux2010 19.0,
        manylinux2014 19.3, PEP 600's manylinux_x_y 20.3); ``None`` when no wheel is cited."""
        for source in row.source:
            url = self.sources.get(source, "")
            if not url.endswith(".whl") or "linux" not in url:
                continue
            tags = url.rsplit("/", 1)[-1]
            for tag, pip in (
                ("manylinux_2_", "20.3"),
                ("manylinux2014", "19.3"),
                ("manylinux2010", "19.0"),
                ("manylinux1", "8.1"),
            ):
                if tag in tags and tag == "manylinux_2_" and "manylinux2014" in tags:
                    return "19.3"  # dual-tagged: manylinux2014 is the older pip's name for it
                if tag in tags:
                    return pip
        return None

    def release(self, tf_version: str) -> TfRelease | None:
        """The row of the TensorFlow minor release ``tf_version`` belongs to (2.15.1 -> 2.15.0).

        A development build (``2.5.0.dev20201108``, a tf-nightly) was built between the release
        before it and its own: it gets its release's row only where both releases agree on CUDA,
        cuDNN and kernels (a nightly of 2.20 was built like 2.19 and 2.20 with CUDA 12.5); where
        they differ (2.4 had CUDA 11.0, 2.5 11.2) which one it had is not known: ``None``."""
        try:
            wanted = Version(tf_version)
        except InvalidVersion:
            return None
        row = self._row((wanted.major, wanted.minor))
        if row is None or not wanted.is_devrelease:
            return row
        before = self._row((wanted.major, wanted.minor - 1))
        return row if before is not None and _built_alike(before, row) else None

    def _row(self, minor: tuple[int, int]) -> TfRelease | None:
        for row in self.tensorflow:
            if row.minor == minor:
                return row
        return None

    def cuda_release(self, cuda_version: str) -> CudaRelease | None:
        key = _major_minor(cuda_version)
        for row in self.cuda:
            if _major_minor(row.version) == key:
                return row
        return None

    def minor_compat(self, cuda_version: str) -> MinorCompat | None:
        major = _major_minor(cuda_version)[0]
        return next((row for row in self.cuda_minor_compat if row.major == major), None)

    def fact(self, fact_id: str) -> PlatformFact:
        return next(f for f in self.platform if f.id == fact_id)

    def newest_first(self) -> list[TfRelease]:
        return sorted(self.tensorflow, key=lambda r: Version(r.version), reverse=True)

    def select(self, *, tf: str | None = None, cuda: str | None = None) -> list[TfRelease]:
        """Rows newest first, filtered by a TensorFlow ("2.15") and a CUDA ("12.2") version
        prefix as the command line writes them; a malformed prefix is a GpucheckError."""
        rows = self.newest_first()
        if tf is not None:
            wanted = _version_prefix("--tf", tf)
            rows = [r for r in rows if r.version.split(".")[: len(wanted)] == wanted]
        if cuda is not None:
            wanted = _version_prefix("--cuda", cuda)
            rows = [r for r in rows if r.cuda and r.cuda.split(".")[: len(wanted)] == wanted]
        return rows


def _built_alike(one: TfRelease, other: TfRelease) -> bool:
    """Two releases built with the same CUDA, cuDNN and kernels (SASS and PTX)."""

    def kernels(row: TfRelease) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        caps = row.compute_capabilities
        return (caps.sass, caps.ptx) if caps else None

    return (one.cuda, one.cudnn, kernels(one)) == (other.cuda, other.cudnn, kernels(other))


def _version_prefix(flag: str, value: str) -> list[str]:
    parts = value.strip().split(".")
    if not value.strip() or not all(is_whole_number(p) for p in parts):
        raise GpucheckError(
            f"{flag} {value!r}: expected a version such as 2.15 or 12.2",
            reference="version-invalid",
        )
    return parts


def _major_minor(version: str) -> tuple[int, int]:
    parts = [int(p) for p in version.split(".")[:2] if is_whole_number(p)]
    return (parts[0], parts[1] if len(parts) > 1 else 0) if parts else (0, 0)


def python_in_range(python_version: str, spec: str) -> bool:
    """Is "3.11.7" inside a table range such as "3.9-3.11" or "2.7, 3.3-3.7"?"""
    have = _major_minor(python_version)
    for part in spec.split(","):
        low, _, high = part.strip().partition("-")
        if _major_minor(low) <= have <= _major_minor(high or low):
            return True
    return False


def version_at_least(have: str, need: str) -> bool:
    """Compare driver or library versions ("535.104.05" >= "525.60.13")."""
    try:
        return Version(have) >= Version(need)
    except InvalidVersion:
        return _major_minor(have) >= _major_minor(need)


def parse_matrix(text: str, origin: str) -> Matrix:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: ~10x faster
    try:
        data = yaml.load(text, Loader=loader)  # a safe loader either way
    except yaml.YAMLError as exc:
        raise _invalid(origin, f"not YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise _invalid(origin, "the top level is not a mapping")
    if data.get("schema_version") != MATRIX_SCHEMA_VERSION:
        raise _invalid(origin, f"schema_version must be {MATRIX_SCHEMA_VERSION}")
    try:
        matrix = from_data(Matrix, _normalise(data))
    except DecodeError as exc:
        raise _invalid(origin, str(exc)) from None
    problems = validate(matrix)
    if problems:
        raise _invalid(origin, problems[0])
    return matrix


def _normalise(data: object) -> object:
    """YAML niceties: a single source may be written as a string; numbers as versions."""
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            out[key] = _normalise([value] if key == "source" and isinstance(value, str) else value)
        return out
    if isinstance(data, list):
        return [_normalise(item) for item in data]
    return data


def validate(matrix: Matrix) -> list[str]:
    """The table checked against itself; returns the problems (empty when consistent)."""
    problems = []
    seen: set[tuple[int, int]] = set()
    for row in matrix.tensorflow:
        try:
            minor = row.minor
        except InvalidVersion:
            problems.append(f"tensorflow {row.version!r} is not a version")
            continue
        if minor in seen:
            problems.append(f"tensorflow {row.version}: a second row for {minor[0]}.{minor[1]}")
        seen.add(minor)
        for cuda in (row.cuda, row.windows_native_cuda):
            if cuda is not None and matrix.cuda_release(cuda) is None:
                problems.append(
                    f"tensorflow {row.version} names CUDA {cuda}, which has no cuda row"
                )
        problems += _unknown_sources(matrix, f"tensorflow {row.version}", row.source)
    for arch in matrix.architectures:
        problems += _unknown_sources(matrix, f"architecture {arch.cc}", arch.source)
    for handle_row in matrix.loader:
        problems += _unknown_sources(matrix, f"loader {handle_row.handle}", handle_row.source)
    for soname_row in matrix.sonames:
        problems += _unknown_sources(matrix, f"sonames {soname_row.cuda}", soname_row.source)
    cuda_seen: set[tuple[int, int]] = set()
    for cuda_row in matrix.cuda:
        key = _major_minor(cuda_row.version)
        if key in cuda_seen:
            problems.append(f"cuda {cuda_row.version}: a second row")
        cuda_seen.add(key)
        problems += _unknown_sources(matrix, f"cuda {cuda_row.version}", cuda_row.source)
    return problems


def _unknown_sources(matrix: Matrix, row: str, cited: tuple[str, ...]) -> list[str]:
    """The sources ``row`` cites that the matrix does not list."""
    return [f"{row} cites unknown source {s!r}" for s in cited if s not in matrix.sources]


def _invalid(origin: str, problem: str) -> GpucheckError:
    return GpucheckError(
        f"{origin}: not a valid compatibility matrix: {problem}",
        reference="matrix-invalid",
        hint="fix the file, or drop --matrix to use the one shipped with gpucheck",
    )


@functools.cache
def load_matrix(path: str | None = None) -> Matrix:
    """The shipped matrix (or the file at ``path``), parsed and validated once per process."""
    if path is not None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise GpucheckError(
                f"matrix file {path!r} does not exist", reference="matrix-missing"
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise GpucheckError(
                f"cannot read matrix file {path!r}: {exc}", reference="matrix-unreadable"
            ) from None
        return parse_matrix(text, path)
    shipped = resources.files("tf_gpucheck").joinpath("compat_matrix.yaml")
    if shipped.is_file():
        return parse_matrix(shipped.read_text(encoding="utf-8"), "compat_matrix.yaml")
    # an editable install or a source checkout: the file lives at the repository root
    return parse_matrix(_REPO_COPY.read_text(encoding="utf-8"), str(_REPO_COPY))


# --- how a build serves a GPU, and the driver a CUDA release needs ----------------------


@dataclass(frozen=True)
class CapabilityFit:
    kind: str
    """native, ptx, too_old or unsupported."""
    via: str | None
    """The sm_XY or compute_XY that serves the GPU."""


def _cc_number(text: str) -> int:
    digits = re.sub(r"\D", "", text)
    return int(digits) if digits else 0


def fit(capability: str, caps: list[str]) -> CapabilityFit:
    """How a build serves a GPU of ``capability`` ("8.6"): binary kernels run on the same major
    and an equal or higher minor; PTX is JIT-compiled for any equal or newer GPU."""
    major, _, minor = capability.partition(".")
    gpu = int(major) * 10 + int(minor or 0)
    sass = [c for c in caps if c.startswith("sm_")]
    ptx = [c for c in caps if c.startswith("compute_")]
    native = [c for c in sass if _cc_number(c) // 10 == gpu // 10 and _cc_number(c) <= gpu]
    if native:
        return CapabilityFit("native", max(native, key=_cc_number))
    jit = [c for c in ptx if _cc_number(c) <= gpu]
    if jit:
        return CapabilityFit("ptx", max(jit, key=_cc_number))
    lowest = min((_cc_number(c) for c in caps), default=0)
    if gpu < lowest:
        return CapabilityFit("too_old", None)
    return CapabilityFit("unsupported", None)


def driver_floor(matrix: Matrix, cuda: str, *, windows: bool) -> tuple[str | None, str | None]:
    """(the toolkit's own minimum driver, the minor-version-compatibility floor) of CUDA ``cuda``."""
    row = matrix.cuda_release(cuda)
    compat = matrix.minor_compat(cuda)
    toolkit = (row.min_driver_windows if windows else row.min_driver_linux) if row else None
    floor = (compat.min_driver_windows if windows else compat.min_driver_linux) if compat else None
    return toolkit, floor


def driver_supports(driver: str, need: str | None) -> bool:
    return need is None or version_at_least(driver, need)
