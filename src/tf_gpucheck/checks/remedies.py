"""The fix for a cause that only a log shows (no check saw it), computed from what is known.

``doctor`` knows the whole snapshot; ``explain`` knows only what the text states (the
TensorFlow version, Python, OS, driver). :class:`~tf_gpucheck.checks.diagnosis.Known` is the part
both have, so one table of remedies serves both, and every install command still comes from
the one resolver when the snapshot is there.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence

from tf_gpucheck.checks import causedocs, facts, replacement, sonames, stale
from tf_gpucheck.checks.diagnosis import Evidence, Known
from tf_gpucheck.checks.pipsaid import final_release, pip_said
from tf_gpucheck.installer import commands, intent, writer
from tf_gpucheck.installer.intent import Fix
from tf_gpucheck.matrix import Matrix, TfRelease
from tf_gpucheck.probes.packages import TENSORFLOW_DISTRIBUTIONS
from tf_gpucheck.snapshot import Snapshot, UnmetRequirement

Remedy = Callable[[Known, Matrix, Sequence[Evidence]], str | Fix | None]
REMEDIES: dict[str, Remedy] = {}


def remedy(*codes: str) -> Callable[[Remedy], Remedy]:
    def register(function: Remedy) -> Remedy:
        for code in codes:
            REMEDIES[code] = function
        return function

    return register


def planned(
    known: Known, matrix: Matrix
) -> Callable[[str, Sequence[Evidence]], tuple[str, Fix | None] | None]:
    """The diagnosis' ``fix_for``: the remedy of a cause code, for this machine, as the line
    written for the target and, where it is package work, its plan."""

    def fix(code: str, evidence: Sequence[Evidence]) -> tuple[str, Fix | None] | None:
        function = REMEDIES.get(code)
        remedy = function(known, matrix, evidence) if function else None
        if not remedy:
            return None
        if isinstance(remedy, Fix):
            if known.snapshot is None:
                return remedy.text(), remedy
            return writer.write(remedy, known.snapshot), remedy
        return remedy, None  # words: said as they are

    return fix


def fix_for(known: Known, matrix: Matrix) -> Callable[[str, Sequence[Evidence]], str | None]:
    """The remedy of a cause code, for this machine, as the line to print."""
    made = planned(known, matrix)

    def fix(code: str, evidence: Sequence[Evidence]) -> str | None:
        found = made(code, evidence)
        return found[0] if found else None

    return fix


def _row(known: Known, matrix: Matrix) -> TfRelease | None:
    return matrix.release(known.tf_version) if known.tf_version else None


def _series(version: str | None) -> str | None:
    match = re.match(r"(\d+)\.(\d+)", version or "")
    return f"{match.group(1)}.{match.group(2)}" if match else None


MANAGED_RUNTIMES = {"colab": "Colab", "kaggle": "Kaggle"}
"""Notebook services whose runtime comes with its own TensorFlow, CUDA and cuDNN, set up to
work together (Colab's maintainers: "TF is always preinstalled and set up to work with the
existing GPU; no install should be necessary", googlecolab/colabtools#2578)."""


@remedy("cuda_libs_missing", "cudnn_missing", "cudnn_version_mismatch")
def _cuda_libraries(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> str | Fix:
    if known.place in MANAGED_RUNTIMES and known.snapshot is None:
        return (
            f"use the TensorFlow {MANAGED_RUNTIMES[known.place]} ships: remove the "
            "!pip install of tensorflow (and TensorFlow pins in requirements files), then "
            "Runtime > Disconnect and delete runtime, and run again"
        )
    row = _row(known, matrix)
    folder = commands.target_folder(known.snapshot) if known.snapshot is not None else None
    pins = known.snapshot.packages.and_cuda_requirements if known.snapshot is not None else ()
    if folder and pins and known.os in (None, "Linux"):
        # a --target install: the CUDA wheels its own and-cuda extra declares, into its folder
        return intent.install(*pins, options=("--target", folder))
    if row and row.and_cuda and known.os in (None, "Linux") and known.tf_version:
        return intent.install(f"tensorflow[and-cuda]=={known.tf_version}")
    main = commands.main_distributions(known.snapshot) if known.snapshot is not None else []
    if row is None and main and known.snapshot and known.snapshot.packages.and_cuda_requirements:
        # a release no table lists (a nightly): its own and-cuda extra, the same build kept
        return intent.install(f"{main[0].name}[and-cuda]=={main[0].version}")
    if known.snapshot is not None:
        cuda = facts.build_cuda(known.snapshot, matrix)
        cudnn = facts.build_cudnn(known.snapshot, matrix)
    else:
        windows = known.os == "Windows"
        cuda = (row.windows_native_cuda if windows else row.cuda) if row else None
        cudnn = (row.windows_native_cudnn if windows else row.cudnn) if row else None
    where = (
        "add their bin folder to PATH"
        if known.os == "Windows"
        else "add their lib64 folder to LD_LIBRARY_PATH"
    )
    if not cuda:
        asked = _asked_for(known, matrix, evidence, where) if known.snapshot is None else None
        return asked or commands.CUDA_BY_HAND
    return f"install CUDA {cuda} and cuDNN {cudnn or '?'} from NVIDIA's archive and {where}"


def _asked_for(
    known: Known, matrix: Matrix, evidence: Sequence[Evidence], where: str
) -> str | None:
    """Where the text names no release: the CUDA (or cuDNN) of the library TensorFlow asked for
    (``libcudart.so.10.1``), and the releases built with it."""
    asked = sonames.asked_for(e.text for e in evidence)
    if asked is None:
        return None
    kind, version, name = asked
    windows = known.os == "Windows" or name.lower().endswith(".dll")
    rows = sonames.releases_built_with(matrix, kind, version, windows=windows)
    if not rows:
        return None
    span = rows[0].version if len(rows) == 1 else f"{rows[-1].version}-{rows[0].version}"
    if kind == "cuda":
        what = f"CUDA {version}" if "." in version else f"a CUDA {version}.x"
        other = _versions(r.windows_native_cudnn if windows else r.cudnn for r in rows)
        with_ = f" with cuDNN {other}" if other else ""
    else:
        what = f"cuDNN {version}"
        other = _versions(r.windows_native_cuda if windows else r.cuda for r in rows)
        with_ = f" for CUDA {other}" if other else ""
    return (
        f"install {what}{with_} and {where} (TensorFlow asked for {name}: the build of "
        f"TensorFlow {span}; or a TensorFlow built for the CUDA you have: gpucheck matrix)"
    )


def _versions(values: Iterable[str | None]) -> str:
    """ "9", "10.0", "10.1" -> "9, 10.0 or 10.1" (in version order)."""
    from packaging.version import Version

    found = sorted({v for v in values if v}, key=Version)
    return " or ".join(found) if len(found) < 3 else f"{', '.join(found[:-1])} or {found[-1]}"


@remedy("no_nvidia_driver")
def _driver(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> str | None:
    """causes.yaml's words for where this runs; on Colab or Kaggle the driver is theirs, and what
    is missing is a GPU runtime."""
    if known.place in ("colab", "kaggle"):
        return causedocs.fix_where("notebook_no_accelerator", _platforms(known))
    return causedocs.fix_where("no_nvidia_driver", _platforms(known))


@remedy("driver_too_old")
def _driver_upgrade(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> str | None:
    row = _row(known, matrix)
    cuda = (row.windows_native_cuda if known.os == "Windows" else row.cuda) if row else None
    if cuda:
        windows = known.os == "Windows"
        cuda_row = matrix.cuda_release(cuda)
        need = (
            (cuda_row.min_driver_windows if windows else cuda_row.min_driver_linux)
            if cuda_row
            else None
        )
        if need:
            return f"upgrade the NVIDIA driver to {need} or newer (CUDA {cuda}, TensorFlow {row.version if row else ''})".replace(
                " )", ")"
            )
    for item in evidence:
        wanted = re.search(r"cuda>=(\d+\.\d+)", item.line.message)
        if wanted:
            return f"upgrade the NVIDIA driver to one that supports CUDA {wanted.group(1)} (nvidia-smi shows the highest it supports)"
    return causedocs.fix_where("driver_too_old", _platforms(known))


@remedy("xla_libdevice_missing", "xla_ptxas_missing", "xla_ptxas_too_old")
def _xla(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> Fix:
    if known.snapshot is not None:
        cuda = facts.build_cuda(known.snapshot, matrix)
    else:
        row = _row(known, matrix)
        cuda = row.cuda if row else None
    major = (cuda or "12").split(".")[0]
    return intent.install(
        f"nvidia-cuda-nvcc-cu{major}",
        note="or: "
        + intent.variable_words(
            intent.Variable("XLA_FLAGS", "--xla_gpu_cuda_data_dir=/usr/local/cuda"),
            windows=known.os == "Windows",
        ),
    )


NUMPY_TOO_OLD = frozenset({"numpy_api_version", "numpy_core_module_missing"})
"""Rules whose line says the NumPy installed is *older* than a module was compiled against (the
other NumPy lines are NumPy 2 under a NumPy 1 build, or say no direction)."""


@remedy("numpy_incompatible")
def _numpy(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> Fix:
    if any(e.line.rule is not None and e.line.rule.id in NUMPY_TOO_OLD for e in evidence):
        wanted = _numpy_newer(known, _row(known, matrix))
        return intent.install(
            wanted,
            options=("--upgrade",),
            note="the NumPy installed is older than the one a module was compiled against",
        )
    return intent.install("numpy<2", note="this TensorFlow was built against NumPy 1.x")


def _numpy_newer(known: Known, row: TfRelease | None) -> str:
    """The NumPy to upgrade to: within the TensorFlow release's own requirement where it is known
    (below 2 up to TF 2.17, built against NumPy 1), else the newest 1.x, which any module built
    against NumPy 1 runs with (Python 3.13 has no NumPy 1 wheels: the newest)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.specifiers import SpecifierSet

    specifier = SpecifierSet()
    for requirement in row.requires if row else ():
        try:
            parsed = Requirement(requirement)
        except InvalidRequirement:
            continue
        if parsed.name.lower() == "numpy":
            specifier = parsed.specifier
    if row is not None:
        if row.minor < (2, 18) and specifier.contains("2.0.0"):
            specifier &= SpecifierSet("<2")
        return f"numpy{specifier}" if str(specifier) else "numpy<2"
    python = re.match(r"(\d+)\.(\d+)", known.python_version or "")
    if python and (int(python.group(1)), int(python.group(2))) >= (3, 13):
        return "numpy"
    return "numpy<2"


@remedy("tf_install_broken")
def _reinstall(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> Fix:
    if known.snapshot is not None:
        return commands.reinstall(known.snapshot)
    version = f"=={known.tf_version}" if known.tf_version else ""
    return intent.install(f"tensorflow{version}", options=("--force-reinstall", "--no-deps"))


@remedy("library_crashes_loader")
def _loader_crash(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> str | None:
    snapshot = known.snapshot
    for lib in snapshot.libraries.libraries if snapshot else ():
        if lib.load_error and "killed by" in lib.load_error and lib.loaded_path:
            return f"remove {os.path.dirname(lib.loaded_path)} from LD_LIBRARY_PATH ({lib.loaded_path} crashes the loader)"
    return causedocs.fix_where("library_crashes_loader", _platforms(known))


_PULLED_BY = re.compile(r"\(from (?P<by>tensorflow[\w-]*)\[(?P<extra>and-cuda|cuda)\]")


def _extra_pin_unmet(
    known: Known,
    matrix: Matrix,
    evidence: Sequence[Evidence],
    said: tuple[str, str, list[str] | None] | None,
) -> Fix | None:
    """pip cannot meet a pin of TensorFlow's own and-cuda extra (2.14's ``tensorrt==8.5.3.1``,
    which the index does not offer: "(from tensorflow[and-cuda]) (from versions: 8.6.1, ...)"):
    no install of that release's extra works here. The oldest newer release whose extra pins
    the same package to a version pip offers (or not at all), for this Python (the matrix's
    and-cuda pins, read from each wheel's METADATA)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    if said is None or said[2] is None or said[0].startswith(("tensorflow", "tf-nightly")):
        return None
    pulled = next((m for e in evidence if (m := _PULLED_BY.search(e.line.message))), None)
    if pulled is None:
        return None
    name, spec, offered = canonicalize_name(said[0]), said[1], said[2]

    def pin(row: TfRelease) -> Requirement | None:
        for line in row.and_cuda or ():
            try:
                requirement = Requirement(line)
            except InvalidRequirement:
                continue
            if canonicalize_name(requirement.name) == name:
                return requirement
        return None

    rows = [r for r in matrix.newest_first() if r.and_cuda]
    asked = [r for r in rows if (p := pin(r)) is not None and str(p.specifier) == spec]
    if not asked:
        return None
    oldest = min(asked, key=lambda r: r.minor)
    python = known.python_version
    for row in sorted(rows, key=lambda r: r.minor):
        if row.minor <= oldest.minor or (python and not row.supports_python(python)):
            continue
        p = pin(row)
        if p is None or any(p.specifier.contains(v, prereleases=True) for v in offered):
            series = f"{row.minor[0]}.{row.minor[1]}"
            return intent.install(
                f"{pulled.group('by')}[and-cuda]=={series}.*",
                note=f"the and-cuda extra of {oldest.minor[0]}.{oldest.minor[1]} pins "
                f"{name}{spec}, which the index does not offer; this release's extra installs",
            )
    return None


@remedy("install_resolution_failed", "tf_not_installed")
def _install(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> str | Fix | None:
    from packaging.utils import canonicalize_name

    if known.snapshot is not None:
        from tf_gpucheck.installer.recommend import recommend

        rec = recommend(known.snapshot, matrix)
        return rec.plan or rec.command
    for item in evidence:
        no_extra = re.search(
            r"(\S+) (\d+\.\d+)[\w.]* does not provide the extra '(and-cuda|cuda)'",
            item.line.message,
        )
        if no_extra:
            # tensorflow[and-cuda] exists from TensorFlow 2.14 (Linux)
            return intent.install(
                f"{no_extra.group(1)}[and-cuda]>=2.14",
                note=f"the extra exists from 2.14; for {no_extra.group(2)} install its CUDA and "
                f"cuDNN yourself (gpucheck matrix --tf {no_extra.group(2)})",
            )
    said = pip_said(evidence)
    name = said[0] if said else "tensorflow"
    pulled = _extra_pin_unmet(known, matrix, evidence, said)
    if pulled:
        return pulled
    asked = matrix.release(said[1].lstrip("=~<>!")) if said and said[1] else None
    if name in ("tensorflow-gpu", "tf-nightly-gpu") and (asked is None or asked.minor >= (2, 12)):
        # a tensorflow-gpu release that had wheels is not "gone" (PyPI's index: its wheels end
        # at 2.11.0 on Linux, 2.10.1 on Windows; 2.12.0 is only a source package that refuses
        # to build): what pip offers this Python, below, says why it found none
        return intent.install(
            "tensorflow[and-cuda]",
            note="tensorflow-gpu is gone: tensorflow is the GPU build (Linux)",
        )
    if said and not said[2] and canonicalize_name(said[0]) not in TENSORFLOW_DISTRIBUTIONS:
        # another package of the family (tensorflow-io, tensorflow-quantum): TensorFlow's own
        # releases say nothing of which Pythons and platforms it has wheels for
        stated = f" (Python {known.python_version})" if known.python_version else ""
        return (
            f"use a Python and platform {name} has wheels for (its files: "
            f"https://pypi.org/project/{name}/#files): pip found none of it for this "
            f"interpreter{stated}"
        )
    if said and said[2]:
        newest = final_release(said[2])
        needs = f"; TensorFlow {asked.version} needs Python {asked.python}" if asked else ""
        if newest:
            return intent.install(
                f"{name}=={newest}", note=f"the newest release pip offers for this Python{needs}"
            )
    if asked is not None and asked.python:
        return (  # the release asked for, as asked: the Python it has wheels for
            f"use a Python in {asked.python} for {name} {asked.version}, or a newer "
            f"{name} for this Python: pip offers no {asked.version} for this one"
        )
    python = known.python_version
    if python:
        supporting = [r for r in matrix.newest_first() if r.cuda and r.supports_python(python)]
        if supporting:
            row = supporting[0]
            dist = "tensorflow-gpu" if row.minor < (2, 1) else "tensorflow"
            extra = "[and-cuda]" if row.and_cuda and known.os in (None, "Linux") else ""
            return intent.install(
                f"{dist}{extra}=={row.minor[0]}.{row.minor[1]}.*",
                note=f"the newest release for Python {python}",
            )
    newest_row = matrix.newest_first()[0]
    return f"use a Python in {newest_row.python} (TensorFlow {newest_row.version}): pip offers no TensorFlow for this one"


@remedy("tf_cpu_only_build")
def _cpu_build(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> Fix:
    conda = [
        e.text
        for e in evidence
        if e.line.rule is not None and e.line.rule.id == "conda_tensorflow_cpu_build"
    ]
    if known.snapshot is None and conda:
        # conda's own build: pip would install beside it, not replace it. A build is chosen by
        # its build string (conda-forge's docs: "pytorch=*=cuda*"); the defaults channel's
        # GPU builds are gpu_py..., conda-forge's cuda<version>py...
        version = known.tf_version or "*"
        if any("cpu_py" in text for text in conda):
            return intent.conda_install(f"tensorflow={version}=cuda*", channel="conda-forge")
        return intent.conda_install(f"tensorflow={version}=gpu*")
    if known.snapshot is not None:
        names = [d.name for d in commands.main_distributions(known.snapshot)]
        return replacement.replace_distributions(known, matrix, names or ["tensorflow-cpu"])
    stated = _stated_release_gpu_build(known, matrix, tf1=("tensorflow",), tf2=("tensorflow-cpu",))
    if stated is not None:
        return stated
    return replacement.replace_distributions(known, matrix, ["tensorflow-cpu"])


def _stated_release_gpu_build(
    known: Known, matrix: Matrix, *, tf1: tuple[str, ...], tf2: tuple[str, ...]
) -> Fix | None:
    """For a text (no snapshot) that states its TensorFlow release: uninstall what goes (``tf1``
    up to 2.0, where the plain tensorflow package is the CPU build and tensorflow-gpu the GPU
    one; ``tf2`` from 2.1) and install that release's GPU build. None where the release is not
    stated or not in the matrix."""
    row = _row(known, matrix)
    install = replacement.release_gpu_build(known, matrix, known.tf_version)
    if known.snapshot is not None or row is None or install is None:
        return None
    return intent.then(intent.uninstall(*(tf1 if row.minor < (2, 1) else tf2)), install)


@remedy("tensorflow_gpu_deprecated")
def _gpu_alias(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> str | Fix | None:
    row = _row(known, matrix)
    if row is not None and row.minor >= (2, 1):  # up to 2.0 tensorflow-gpu is the GPU build
        stated = _stated_release_gpu_build(known, matrix, tf1=(), tf2=("tensorflow-gpu",))
        if stated is not None:
            return stated
    return causedocs.fix_where("tensorflow_gpu_deprecated", _platforms(known))


@remedy("multiple_tf_distributions")
def _two_tensorflows(
    known: Known, matrix: Matrix, evidence: Sequence[Evidence]
) -> str | Fix | None:
    if known.snapshot is not None:
        return None  # the check's own fix, from what is installed
    every = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu")
    stated = _stated_release_gpu_build(known, matrix, tf1=every[::2], tf2=every)
    return stated or causedocs.fix_where("multiple_tf_distributions", _platforms(known))


@remedy("keras_mismatch")
def _keras(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> str | Fix | None:
    series = _series(known.tf_version)
    if series and tuple(int(p) for p in series.split(".")) >= (2, 16):
        return intent.install(
            f"tf-keras~={series}.0", note="with TF_USE_LEGACY_KERAS=1; or port the code to Keras 3"
        )
    if series and (1, 4) <= tuple(int(p) for p in series.split(".")) < (2, 6):
        # Keras releases follow TensorFlow's numbers from 2.6 (tensorflow/tensorflow RELEASE.md,
        # 2.6.0: "Keras been split into a separate PIP package (keras)"); from 1.4 up to it,
        # TensorFlow carries its own (RELEASE.md, 1.4.0: "tf.keras is now part of the core
        # TensorFlow API")
        return (
            f"use the Keras inside TensorFlow {series} (from tensorflow import keras) in place of "
            "the separately installed keras, or the keras release that names it as supported"
        )
    if series and tuple(int(p) for p in series.split(".")) >= (2, 6):
        return intent.install(f"keras~={series}.0")
    return causedocs.fix_where("keras_mismatch", _platforms(known))


@remedy("python_unsupported")
def _python(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> str:
    from packaging.utils import canonicalize_name

    for item in evidence:  # pip's "Package 'X' requires a different Python: 3.11.7 not in '<3.5'"
        rule = item.line.rule
        refused = rule.pattern.search(item.line.message) if rule else None
        if rule and rule.id == "pip_requires_python" and refused and refused["lib"]:
            name, spec = refused["lib"], refused["spec"]
            if canonicalize_name(name) not in stale.TENSORFLOW_NAMES and spec:
                return (
                    f"use a Python in {spec!r} for {name}, or a {name} release whose "
                    f"Requires-Python holds Python {refused['version']}"
                )
    row = _row(known, matrix)
    if row:
        return f"use a Python in {row.python} (TensorFlow {row.version}), or a TensorFlow release for your Python"
    newest = matrix.newest_first()[0]
    return f"use a Python in {newest.python} (TensorFlow {newest.version})"


@remedy("tf_import_failed")
def _import_failed(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> Fix:
    if known.snapshot is not None:
        what = commands.installed_requirement(known.snapshot)
    else:
        what = f"tensorflow=={known.tf_version}" if known.tf_version else "tensorflow"
    return intent.install(
        what,
        options=("--force-reinstall",),
        note="where the lines above the error name what is missing, install that instead",
    )


def _declared(known: Known, matrix: Matrix, name: str) -> str | None:
    """What the installed TensorFlow declares for ``name`` ("protobuf<5.0.0dev,>=3.20.3"): from
    its own metadata where the snapshot read it; from a text alone, the matrix's row only where it
    is that very release (releases of one series declare differently: 2.15.0 ``ml-dtypes~=0.2.0``,
    2.15.1 ``ml-dtypes~=0.3.1``)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    snapshot = known.snapshot
    if snapshot is not None and snapshot.packages.requirements is not None:
        tensorflows = [
            r.of for r in snapshot.packages.requirements if r.of in stale.TENSORFLOW_NAMES
        ]
        found = (stale.declared(snapshot, of, name) for of in dict.fromkeys(tensorflows))
        lines = [line for line in found if line is not None][:1]
    else:
        row = _row(known, matrix)
        lines = list(row.requires) if row and row.version == known.tf_version else []
    for line in lines:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name) == name:
            return f"{name}{requirement.specifier}"
    return None


def _unmet(known: Known, name: str) -> UnmetRequirement | None:
    """The installer's own check line on ``name`` (``jax 0.6.2 requires ml-dtypes>=0.5.0``),
    a TensorFlow distribution's first."""
    snapshot = known.snapshot
    installer = snapshot.installer if snapshot is not None else None
    lines = [u for u in (installer.check or ()) if u.name == name] if installer else []
    lines.sort(key=lambda u: u.of not in stale.TENSORFLOW_NAMES)
    return lines[0] if lines else None


@remedy("protobuf_incompatible")
def _protobuf(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> Fix:
    for item in evidence:  # pip's own line: what the installed TensorFlow's metadata requires
        if item.line.rule and item.line.rule.id.startswith("pip_requires_") and item.line.library:
            return intent.install(item.line.library, note="what pip says TensorFlow requires")
    declared = _declared(known, matrix, "protobuf")
    if declared:
        return intent.install(declared, note=f"what TensorFlow {known.tf_version} declares")
    if any(item.line.rule and item.line.rule.id == "protobuf_descriptors" for item in evidence):
        return intent.install(
            "protobuf<=3.20.3",
            note="code generated for protobuf 3 (or: "
            + intent.variable_words(
                intent.Variable("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "python"),
                windows=known.os == "Windows",
            )
            + ")",
        )
    return intent.install(
        "protobuf",
        options=("--upgrade",),
        note="the runtime must be at least the version the code was generated with",
    )


@remedy("tf_requirement_unmet")
def _requirement(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> str | Fix | None:
    for item in evidence:
        if item.line.library:
            name = item.line.library.split(".")[0].replace("_", "-").lower()
            unmet = _unmet(known, name)
            if unmet is not None and known.snapshot is not None:  # who requires what, as checked
                plan = stale.remedy(unmet, known.snapshot, matrix)
                said = f"{unmet.of} {unmet.of_version or ''}".strip()
                return plan.fix.noted(f"{said} requires {unmet.requirement or name}")
            declared = _declared(known, matrix, name)
            return intent.install(
                declared or name,
                note=f"what TensorFlow {known.tf_version} declares" if declared else "",
            )
    return causedocs.fix_where("tf_requirement_unmet", _platforms(known))


@remedy("module_shadowed")
def _shadowed(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> str | None:
    for item in evidence:
        if item.line.library:
            return f"rename {item.line.library}  # a file or folder of yours that has the package's name hides the package"
    return causedocs.fix_where("module_shadowed", _platforms(known))


DOCUMENTED = (
    "compute_capability_too_old",
    "compute_capability_unsupported",
    "nvml_driver_mismatch",
    "no_nvidia_gpu",
    "gpu_hidden_by_env",
    "ptx_jit_required",
    "gpu_busy",
    "gpu_out_of_memory",
    "config_after_init",
    "memory_config_conflict",
    "cpu_unsupported",
    "msvc_runtime_missing",
    "cuda_init_failed",
    "cudnn_init_failed",
    "cublas_init_failed",
    "pythonpath_foreign",
    "interpreter_mismatch",
    "keras_backend_missing",
    "keras_backend_cpu_only",
    "cuda_stub_libcuda",
    "container_capabilities_missing",
    "pod_no_gpu",
    "slurm_no_gpu",
    "notebook_no_accelerator",
    "wsl_driver_problem",
    "nvml_error",
    "tf_sees_fewer_gpus",
    "tf_crashed",
    "container_no_gpu",
    "gpu_underused",
    "gpu_memory_reserved",
)
"""Causes whose fix is words, not computed: the words live in causes.yaml alone."""


def _documented(code: str) -> Remedy:
    def remedy_words(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> str | None:
        return causedocs.fix_where(code, _platforms(known))

    return remedy_words


for _code in DOCUMENTED:
    REMEDIES[_code] = _documented(_code)


def _platforms(known: Known) -> tuple[str, ...]:
    """The causes.yaml platforms that fit where this runs, most specific first."""
    places = {"docker": ("container",), "podman": ("podman", "container")}.get(
        known.place or "", (known.place,)
    )
    by_os = {"Windows": "windows", "Darwin": "macos"}.get(known.os or "", "linux")
    return tuple(p for p in (*places, "wsl2" if known.is_wsl else None, by_os) if p)


@remedy("windows_native_unsupported")
def _windows_native(known: Known, matrix: Matrix, evidence: Sequence[Evidence]) -> str | None:
    """causes.yaml's words, and where the Python is known and the last native-Windows GPU
    release has no wheel for it, which Python that release needs (its ``tensorflow<2.11`` finds
    nothing for a newer one)."""
    code = "windows_native_unsupported"
    words = causedocs.fix_where(code, _platforms(known))
    last = matrix.release("2.10")
    python = known.python_version
    if words is None or last is None or not python or known.is_wsl:
        return words
    if last.supports_python(python):
        return words
    wanted = last.newest_python
    return (
        f"{words}; TensorFlow {last.version}, the last release with native-Windows GPU support, "
        f"has wheels for Python {last.python} only, not {_series(python) or python}: make its "
        f"environment with Python {wanted} ({commands.windows_environment(wanted)})"
    )


def remedy_for(code: str, snapshot: Snapshot, matrix: Matrix) -> str | Fix | None:
    """A check's fix for ``code``: the same remedy a log line with that cause gets (a plan, written
    for the target with the check's finding, or words)."""
    function = REMEDIES.get(code)
    return function(Known.from_snapshot(snapshot), matrix, ()) or None if function else None
