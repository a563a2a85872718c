"""The findings a text supports: the lines it holds, the facts it states, judged with the
doctor's own checks and diagnosis. ``explain`` reads a pasted report with it, and ``doctor --log``
the user's own program log (where live probes outrank what the text states).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from tf_gpucheck.checks import diagnosis, familywheels, pipsaid, registry, remedies
from tf_gpucheck.checks.findings import Finding, Status
from tf_gpucheck.checks.statedsnapshot import CHECK_FACTS, has_fact, said_for, stated_snapshot
from tf_gpucheck.matrix import Matrix, TfRelease
from tf_gpucheck.probes.packages import TENSORFLOW_DISTRIBUTIONS
from tf_gpucheck.reading import logscan, textfacts, wanted

if TYPE_CHECKING:
    from tf_gpucheck.similar import Match
from tf_gpucheck.snapshot import (
    Snapshot,
)

SOURCE = "the text"


@dataclass(frozen=True)
class Read:
    """What a text supports."""

    classified: tuple[logscan.LogLine, ...]
    stated: textfacts.StatedFacts
    known: diagnosis.Known
    gpu_expected: bool
    """The text shows a GPU (a GPU named, a driver version, TensorFlow finding a device), or says
    one was wanted and not had."""
    findings: tuple[Finding, ...]
    gpu_named: bool = True
    """The text speaks of a GPU at all (:func:`wanted.names_a_gpu`), or wants one: where it does
    not, a build or platform without GPU support (:data:`NO_GPU_SUPPORT`) is a note."""


def read(lines: Sequence[str], matrix: Matrix, *, source: str = SOURCE) -> Read:
    """The recognised lines of ``lines`` (normalised and re-joined), the facts they state, and
    every finding those support."""
    classified = tuple(logscan.classify(list(lines)))
    stated = textfacts.extract(list(lines))
    gpu_printed = any(
        line.rule is not None and line.rule.id in logscan.GPU_PRESENT for line in classified
    )
    said = wanted.said(classified)
    known = diagnosis.Known(
        tf_version=stated.tf_version,
        python_version=stated.python_version,
        os="Linux" if stated.is_wsl else stated.os,
        is_wsl=bool(stated.is_wsl),
        cuda_visible_devices=stated.cuda_visible_devices,
        place=None if _given_a_gpu(stated) else stated.place,
        env_observed=False,
        driver_shown=bool(stated.driver_version) or gpu_printed,
        gpu_build=wanted.gpu_build_named(stated, said),
    )
    gpu_expected = bool(stated.gpus or stated.driver_version) or gpu_printed
    # a GPU was asked for (docker run --gpus, --gres=gpu) or the words say one was wanted and
    # not had: lines normal without a GPU are evidence
    gpu_wanted = (
        gpu_expected
        or bool(stated.gpu_requested)
        or wanted.set_up_for_a_gpu(stated, said)
        or wanted.says_gpu_missed(stated, classified, wanted.says_no_gpu_here(said))
    )
    gpu_named = gpu_wanted or wanted.names_a_gpu(stated, lines)
    # every line with a cause; `no_gpu` lines count only where the text shows a GPU
    evidence = diagnosis.evidence_in(source, list(classified), gpu_expected=True, known=known)
    findings = (
        *_managed_runtime_findings(stated, evidence, matrix, known),
        *_python_pip_cannot_serve(lines, stated, evidence, matrix),
        *familywheels.family_pip_cannot_serve(stated, evidence, index_answered(lines)),
        *familywheels.wheel_for_another_python(stated, evidence),
        *_needed_findings(stated),
        *_installed_elsewhere(lines, evidence, known, matrix),
        *for_a_gpu(stated_checks(stated, matrix), gpu_named),
        *_log_findings(evidence, known, matrix, gpu_expected=gpu_wanted),
        *_place_findings(stated, evidence, matrix, known, gpu_shown=gpu_expected),
    )
    return Read(classified, stated, known, gpu_wanted, findings, gpu_named)


NO_GPU_SUPPORT = frozenset(
    {"tf_cpu_only_build", "macos_no_cuda", "windows_native_unsupported", "platform_unknown"}
)
"""Causes that only say TensorFlow cannot use a GPU here: a CPU build, a platform without CUDA
builds."""


def for_a_gpu(findings: Sequence[Finding], gpu_named: bool) -> list[Finding]:
    """The stated facts' findings, with a build or platform that cannot use a GPU said as a
    warning, not as the fault, where the text names no GPU (:func:`wanted.names_a_gpu`): the
    program runs on the CPU as it is, and what the text shows failing (a traceback the rules do
    not know, an install error) is read first."""
    if gpu_named:
        return list(findings)
    return [
        dataclasses.replace(f, status=Status.WARN)
        if f.cause in NO_GPU_SUPPORT and f.status is Status.FAIL
        else f
        for f in findings
    ]


def kind_words(kind: str, gpu_expected: bool) -> str:
    if kind == "no_gpu":
        return "actionable" if gpu_expected else "expected without a GPU"
    return kind


def _log_findings(
    evidence: Sequence[diagnosis.Evidence],
    known: diagnosis.Known,
    matrix: Matrix,
    *,
    gpu_expected: bool,
) -> list[Finding]:
    """One finding per cause the text shows, with every line that points at it: a failure, or,
    for lines that are normal on a machine without a GPU when the text shows none, a hint."""
    by_cause: dict[str, list[diagnosis.Evidence]] = {}
    for item in evidence:
        by_cause.setdefault(item.cause, []).append(item)
    fix = remedies.fix_for(known, matrix)
    found = []
    for code, items in by_cause.items():
        summary = diagnosis.log_summary(code, items).removesuffix(f" ({SOURCE})")
        actionable = gpu_expected or any(
            item.line.rule is not None and item.line.rule.kind == "actionable" for item in items
        )
        if not actionable:
            summary = f"if this machine has an NVIDIA GPU: {summary}"
        found.append(
            Finding(
                "log",
                Status.FAIL if actionable else Status.INFO,
                summary,
                "\n".join(item.text for item in items),
                fix(code, items),
                code,
            )
        )
    return found


_NO_GPU_SEEN = frozenset({"tf_sees_fewer_gpus", "no_nvidia_driver", "no_nvidia_gpu"})
_PLACE_WORDS = {
    "colab": "Colab",
    "kaggle": "Kaggle",
    "docker": "a container",
    "kubernetes": "a Kubernetes pod",
    "slurm": "a SLURM job",
}


def _place_findings(
    stated: textfacts.StatedFacts,
    evidence: Sequence[diagnosis.Evidence],
    matrix: Matrix,
    known: diagnosis.Known,
    *,
    gpu_shown: bool,
) -> list[Finding]:
    """Where the text says it runs, and that TensorFlow found no GPU there while nothing shows
    one: that place was started without a GPU (a notebook runtime without an accelerator, a
    container without --gpus, a pod without a nvidia.com/gpu limit, a job without --gres)."""
    cause = diagnosis.PLACE_CAUSES.get(stated.place or "")
    if cause is None or gpu_shown or _given_a_gpu(stated):
        return []
    symptoms = [
        item for item in evidence if item.line.rule and item.line.rule.cause in _NO_GPU_SEEN
    ]
    if not symptoms or any(item.cause == cause for item in evidence):
        return []
    words = stated.span_of("place") or stated.place or ""
    return [
        Finding(
            "log",
            Status.FAIL,
            f"the text says {words!r}: TensorFlow found no GPU in {_PLACE_WORDS[stated.place or '']}, "
            "which was started without one",
            "\n".join(item.text for item in symptoms),
            remedies.fix_for(known, matrix)(cause, symptoms),
            cause,
            stated=(words,),
        )
    ]


def _given_a_gpu(stated: textfacts.StatedFacts) -> bool:
    """The text starts its container or job with a GPU (docker run --gpus, srun --gres=gpu, a
    nvidia.com/gpu limit), so a GPU missing there is not the place's doing, unless a tool's
    output also shows the GPU working (nvidia-smi): then that command is the check that
    worked, and the failing run is another."""
    return bool(stated.gpu_requested) and stated.driver_version is None


_CUDNN_FAILS = frozenset({"cudnn_missing", "cudnn_init_failed", "cudnn_version_mismatch"})


def _managed_runtime_findings(
    stated: textfacts.StatedFacts,
    evidence: Sequence[diagnosis.Evidence],
    matrix: Matrix,
    known: diagnosis.Known,
) -> list[Finding]:
    """In Colab or Kaggle, whose runtime's TensorFlow, CUDA and cuDNN are set up together, a
    cuDNN that is missing or does not start means another TensorFlow was installed over the
    runtime's (a !pip install, a requirements file): the versions no longer match."""
    service = remedies.MANAGED_RUNTIMES.get(stated.place or "")
    items = [item for item in evidence if item.cause in _CUDNN_FAILS]
    if service is None or not items:
        return []
    words = stated.span_of("place") or service
    return [
        Finding(
            "log",
            Status.FAIL,
            f"the text says {words!r}: {service}'s runtime comes with a TensorFlow that matches "
            "its CUDA and cuDNN, so cuDNN failing there means another TensorFlow was installed "
            "over it",
            "\n".join(item.text for item in items),
            remedies.fix_for(known, matrix)("cudnn_version_mismatch", items),
            "cudnn_version_mismatch",
            stated=(words,),
        )
    ]


# --- the checks that can judge stated facts --------------------------------------------------


_PYTHONS = ("2.7", *(f"3.{minor}" for minor in range(3, 15)))


def _pythons_pip_offered_for(offered: Sequence[str], matrix: Matrix) -> list[str]:
    """The Pythons whose list pip printed: pip offers every release whose Requires-Python admits
    the interpreter, so the oldest release it offered is the first the matrix lists for that
    Python. Empty when that fits no Python (another platform's list, or an unparsable one)."""
    from packaging.version import InvalidVersion, Version

    try:
        oldest = min(Version(v) for v in offered)
    except (InvalidVersion, ValueError):
        return []
    rows = sorted(matrix.tensorflow, key=lambda r: Version(r.version))
    found = []
    for python in _PYTHONS:
        first = next((r for r in rows if r.supports_python(python)), None)
        if first is not None and first.minor == (oldest.major, oldest.minor):
            found.append(python)
    return found


def _releases_allowed(matrix: Matrix, spec: str) -> list[TfRelease] | None:
    """The matrix's releases a requirement allows, newest first (every one for a bare name);
    ``None`` for a specifier that does not parse."""
    try:
        specifier = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    rows = [r for r in matrix.newest_first() if specifier.contains(r.version, prereleases=True)]
    exact = re.fullmatch(r"===?\s*(\d+(?:\.\d+)*)(?:\.\*)?", spec.strip())
    if not rows and exact:  # "==2.10.1": the matrix holds each series by its first release
        row = matrix.release(exact.group(1))
        rows = [row] if row is not None else []
    return rows


_OTHER_INDEX = re.compile(
    r"Retrying \(Retry|ProxyError|SSLError|--index-url|--extra-index-url"
    r"|Looking in indexes: (?!https://pypi\.org)",
    re.IGNORECASE,
)
"""pip's words that it retried, went through a proxy or TLS that failed, or used another index
than PyPI; with the proof's :data:`~tf_gpucheck.installer.proof.NETWORK_TROUBLE` (the index not
reached), "(from versions: none)" then says nothing of the platform."""


def _platform_has_no_wheel(
    lines: Sequence[str], matrix: Matrix, name: str, spec: str, python: str
) -> bool:
    """ "(from versions: none)" for ``tensorflow`` pinned to releases that support the Python the
    text states, from the package index itself: the interpreter's platform has no wheel. A bare
    name is not judged so: the releases of the day the text was written are not known, and a
    Python newer than all of them was then the cause. The other distributions' releases are not
    the matrix's."""
    if name != "tensorflow" or not spec.strip() or not index_answered(lines):
        return False
    return any(r.supports_python(python) for r in _releases_allowed(matrix, spec) or [])


def index_answered(lines: Sequence[str]) -> bool:
    """Whether pip's "(from versions: ...)" is PyPI's own answer: no line says the index was not
    reached, retried or proxied, or that another index was asked."""
    from tf_gpucheck.installer.proof import NETWORK_TROUBLE

    return not any(
        _OTHER_INDEX.search(line) or any(m in line for m in NETWORK_TROUBLE) for line in lines
    )


def _no_wheel_for_platform(
    stated: textfacts.StatedFacts,
    name: str,
    spec: str,
    python: str,
    dated: tuple[str, str] | None = None,
    has: str | None = None,
) -> Finding:
    words = stated.span_of("python_version") or f"Python {python}"
    has = has or (
        f"Python {python} came out on {dated[0]}, after PyPI had {name} wheels for it ({dated[1]})"
        if dated
        else f"{name}{spec} has releases for Python {python}"
    )
    return Finding(
        "python",
        Status.FAIL,
        f"pip found no {name}{spec} at all (from versions: none), though the text says {words!r} "
        f"and {has}: there is no wheel for this interpreter's platform (its OS or CPU, or a "
        "32-bit Python)",
        "pip lists every release with a wheel whose tags the interpreter accepts; TensorFlow has "
        "wheels for 64-bit CPython on Linux (x86_64, aarch64), Windows (x86_64) and macOS (Apple "
        "silicon from 2.13, before that tensorflow-macos)\n(judged on what the text states"
        + (
            "; the days: knowledge/pythons.yaml, from the release-schedule PEPs and PyPI)"
            if dated
            else ")"
        ),
        'compare the platform with the wheels of that release: python -c "import platform, '
        "struct; print(platform.system(), platform.machine(), struct.calcsize('P') * 8)\"",
        "install_resolution_failed",
        stated=(words,),
    )


def _prerelease(version: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(version).is_prerelease
    except InvalidVersion:
        return False


def _python_pip_cannot_serve(
    lines: Sequence[str],
    stated: textfacts.StatedFacts,
    evidence: Sequence[diagnosis.Evidence],
    matrix: Matrix,
) -> list[Finding]:
    """pip found no TensorFlow to install, and no release it was asked for supports the Python
    the text states: that Python is why (pip filters releases by Requires-Python first)."""
    python = stated.python_version
    said = pipsaid.pip_said([e for e in evidence if e.cause == "install_resolution_failed"])
    if said is None or said[0] not in TENSORFLOW_DISTRIBUTIONS:
        return []
    name, spec, offered = said
    only_previews = bool(offered) and all(_prerelease(v) for v in offered or ())
    if offered == [] and python and _platform_has_no_wheel(lines, matrix, name, spec, python):
        return [_no_wheel_for_platform(stated, name, spec, python)]
    dated = (
        familywheels.tensorflow_had_wheels_for(stated, python)
        if offered == [] and python and name == "tensorflow" and index_answered(lines)
        else None
    )
    if dated and python:
        return [_no_wheel_for_platform(stated, name, spec, python, dated)]
    named = matrix.release(stated.tf_version) if stated.tf_version else None
    if (
        offered == []
        and python
        and name == "tensorflow"
        and named is not None
        and named.supports_python(python)
        and index_answered(lines)
    ):
        # the text names a release that supports its Python: it was written when PyPI had
        # TensorFlow for that Python, so "none" is the interpreter's platform or bitness
        return [
            _no_wheel_for_platform(
                stated,
                name,
                spec,
                python,
                has=f"the TensorFlow {named.version} it names supports Python {python}",
            )
        ]
    if offered == [] or only_previews:
        # "(from versions: none)": pip saw no wheel of it at all for this interpreter, whatever
        # the version asked for; only pre-releases: this Python is newer than every final
        # release supports. PyPI has TensorFlow wheels only for 64-bit CPython of the versions
        # each release supports, so the interpreter is the cause.
        newest = matrix.newest_first()[0]
        which = f"Python {python}" if python else "this Python"
        what = (
            f"pip found no {name} release at all for {which} (from versions: none)"
            if not only_previews
            else f"pip found only pre-releases of {name} for {which}: it is newer than every "
            "final release supports"
        )
        return [
            Finding(
                "python",
                Status.FAIL,
                f"{what}: TensorFlow's wheels exist only for 64-bit CPython of the versions each "
                "release supports",
                "(judged on what the text states: pip's own list of the versions it saw)",
                f"use a 64-bit Python in {newest.python} (TensorFlow {newest.version}), or the "
                f"Python the release you need supports: gpucheck matrix",
                "python_unsupported",
            )
        ]
    rows = _releases_allowed(matrix, spec)
    if rows is None:
        return []
    if python is None and offered and rows:
        implied = _pythons_pip_offered_for(offered, matrix)
        if implied and not any(r.supports_python(p) for r in rows for p in implied):
            newest = rows[0]
            pythons = " or ".join(implied)
            shown = f"{offered[0]} ... {offered[-1]}" if len(offered) > 1 else offered[0]
            return [
                Finding(
                    "python",
                    Status.FAIL,
                    f"pip offered {name} {shown} and not {name}{spec}: releases that start where "
                    f"Python {pythons} does, which no release {spec} allows supports "
                    f"(TensorFlow {newest.version} needs Python {newest.python})",
                    "pip lists every release whose Requires-Python admits the interpreter, from "
                    "the first that supports it on\n(judged on pip's own list of the versions it saw)",
                    f"use a Python in {newest.python} (TensorFlow {newest.version}) for "
                    f"{name}{spec}, or a release your Python has: gpucheck matrix",
                    "python_unsupported",
                )
            ]
    if python is None:
        return []
    if not rows or any(r.supports_python(python) for r in rows):
        return []
    words = stated.span_of("python_version") or f"Python {python}"
    newest = rows[0]
    return [
        Finding(
            "python",
            Status.FAIL,
            f"the text says {words!r}: no TensorFlow release that {name}{spec} allows supports "
            f"Python {python}, so pip has none to install (TensorFlow {newest.version} needs "
            f"Python {newest.python})",
            "pip skips every release whose Requires-Python excludes the interpreter, then says "
            "it found no version\n(judged on what the text states)",
            f"use a Python in {newest.python} (TensorFlow {newest.version}) for {name}{spec}",
            "python_unsupported",
            stated=(words,),
        )
    ]


_SAYS_INSTALLED = re.compile(
    r"(?i)(?:\b(?:pip3?|conda|mamba|uv pip|python3? -m pip) install\b[^\n]*\btensorflow"
    r"|successfully installed [^\n]*\btensorflow-\d"
    r"|requirement already satisfied: tensorflow\b"
    r"|\binstall(?:ed|ing)? (?:the )?(?:latest )?tensorflow\b"
    r"|\btensorflow(?:-gpu)? (?:is |was )?(?:already )?installed\b)"
)


def _installed_elsewhere(
    lines: Sequence[str],
    evidence: Sequence[diagnosis.Evidence],
    known: diagnosis.Known,
    matrix: Matrix,
) -> list[Finding]:
    """ "No module named 'tensorflow'" in a text that says TensorFlow was installed (a pip or conda
    install of it, pip's "Successfully installed" or "Requirement already satisfied"): it went
    into another interpreter than the one that imports it."""
    missing = [e for e in evidence if e.cause == "tf_not_installed"]
    if not missing:
        return []
    said = next((line for line in lines if "nstall" in line and _SAYS_INSTALLED.search(line)), None)
    if said is None:
        return []
    return [
        Finding(
            "log",
            Status.FAIL,
            "the text says TensorFlow was installed, yet `import tensorflow` finds no module: it "
            "went into another Python than the one that runs the code",
            "\n".join([said.strip(), *(e.text for e in missing)]),
            remedies.fix_for(known, matrix)("interpreter_mismatch", missing),
            "interpreter_mismatch",
            stated=(said.strip(),),
        )
    ]


_NEEDED = {
    "cuda_version": ("CUDA", "cuda_libs_missing"),
    "cudnn_version": ("cuDNN", "cudnn_version_mismatch"),
    "python_version": ("Python", "python_unsupported"),
    "driver_version": ("driver", "driver_too_old"),
}


def _release_key(fact: str, version: str, precision: int) -> tuple[int, ...]:
    """The part of a version that decides compatibility: CUDA's runtime carries major.minor
    before 11 and the major from 11 on; cuDNN and Python compare as far as both are written."""
    numbers = tuple(int(n) for n in version.split(".") if n.isdigit())
    if fact == "cuda_version":
        return numbers[:1] if numbers and numbers[0] >= 11 else numbers[:precision]
    return numbers[:precision]


def _needed_findings(stated: textfacts.StatedFacts) -> list[Finding]:
    """A version the text says is needed ("TF 1.14 needs CUDA 10.0") next to the one it says is
    installed ("I have CUDA 10.1"), that do not match: the installed one is the cause."""
    found = []
    for fact, need in stated.needed:
        have = getattr(stated, fact, None)
        if not isinstance(have, str) or fact not in _NEEDED:
            continue
        precision = min(len(need.split(".")), len(have.split(".")), 2)
        wanted, installed = _release_key(fact, need, precision), _release_key(fact, have, precision)
        mismatch = installed < wanted if fact == "driver_version" else installed != wanted
        if not mismatch:
            continue
        name, cause = _NEEDED[fact]
        words = [w for w in (stated.span_of(f"{fact}_needed"), stated.span_of(fact)) if w]
        found.append(
            Finding(
                "stated",
                Status.FAIL,
                f"the text says {name} {need} is needed and {name} {have} is what is there",
                "judged on what the text states: " + "; ".join(repr(w) for w in words),
                _needed_fix(fact, name, need, have),
                cause,
                stated=tuple(words),
            )
        )
    return found


def _needed_fix(fact: str, name: str, need: str, have: str) -> str:
    if fact == "cuda_version":
        return (
            f"install CUDA {need} and its cuDNN beside {have} and put it on the library path, or "
            f"use the TensorFlow built for CUDA {have}: gpucheck matrix --cuda {have}"
        )
    if fact == "cudnn_version":
        return f"install cuDNN {need} for your CUDA (NVIDIA's cuDNN archive), or the TensorFlow built for cuDNN {have}"
    if fact == "python_version":
        return f"use Python {need}, or a TensorFlow release for Python {have}: gpucheck matrix"
    return f"upgrade the NVIDIA driver to {need} or newer"


def stated_checks(stated: textfacts.StatedFacts, matrix: Matrix) -> list[Finding]:
    """The doctor's own checks, run on what the text states, where it states enough."""
    snapshot = stated_snapshot(stated, matrix)
    by_id = {c.id: c for c in registry.REGISTRY}
    found = []
    for check_id, needs in CHECK_FACTS.items():
        if not all(has_fact(stated, snapshot, fact) for fact in needs):
            continue
        try:
            finding = by_id[check_id].function(snapshot, matrix)
        except Exception:  # a partial snapshot a check cannot judge: no finding, never a crash
            continue
        if finding.status in (Status.FAIL, Status.WARN, Status.INFO):
            if check_id == "tf_requirements" and finding.status is not Status.FAIL:
                continue  # a said version that misses a bound within its major is no diagnosis
            words = said_for(stated, check_id)
            said = f"the text says {', '.join(repr(w) for w in words)}: " if words else ""
            found.append(
                dataclasses.replace(
                    finding,
                    summary=said + finding.summary,
                    details=_stated_details(finding, stated, snapshot),
                    stated=tuple(words),
                )
            )
    return found


def _stated_details(finding: Finding, stated: textfacts.StatedFacts, snapshot: Snapshot) -> str:
    judged = "(judged on what the text states)"
    if snapshot.system.os and not (stated.os or stated.is_wsl):
        # the OS was not stated but assumed (stated_snapshot): say so beside the verdict
        judged = (
            f"(judged on what the text states; it names no OS, so it was judged as "
            f"{snapshot.system.os}, where TensorFlow's CUDA builds are)"
        )
    return (finding.details + "\n" if finding.details else "") + judged


SIMILAR_AGREEMENT = 0.5
"""The share of the matches' weight their likely cause needs before it may name a cause."""


def similar_findings(
    matches: Sequence[Match],
    findings: Sequence[Finding],
    classified: Sequence[logscan.LogLine],
    known: diagnosis.Known,
    matrix: Matrix,
) -> list[Finding]:
    """The cause the closest solved reports settled on, as a warning: only when nothing the text
    says (a recognised message, even one that is normal without a GPU; a stated fact) names a
    cause already, only when the matches agree, and never when every line the rules recognise
    is harmless (a match never turns noise into a problem)."""
    from tf_gpucheck import similar as solved

    named = [f for f in findings if f.cause and f.cause not in diagnosis.SYMPTOMS]
    recognised = [line.rule for line in classified if line.rule is not None]
    only_noise = bool(recognised) and all(
        rule.kind in ("harmless", "good", "context") for rule in recognised
    )
    if named or only_noise or not matches:
        return []
    cause, share = solved.likely_cause(matches)
    if cause is None or share < SIMILAR_AGREEMENT:
        return []
    backing = [m for m in matches if m.report.cause == cause]
    links = "\n".join(f"{m.report.url} ({m.score:.2f}): {m.report.title}" for m in backing)
    return [
        Finding(
            "similar",
            Status.WARN,
            f"no message here names a cause; the closest solved reports settled on {cause}: "
            f"{backing[0].report.title}",
            links,
            remedies.fix_for(known, matrix)(cause, ()),
            cause,
        )
    ]
