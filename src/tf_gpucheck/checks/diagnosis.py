"""Between the checks and the verdict: which failures are symptoms, which are their causes.

The checks report facts about layers ("TensorFlow sees 0 of 1 GPUs", "libcudnn.so.9 not
found"), and TensorFlow's log adds evidence no check can see ("Could not load dynamic library
'libcudnn.so.8'"). This module links them with two explicit tables:

- :data:`DEPTH`: every cause code's layer, bottom up (platform, Python, install, import, driver,
  visibility, libraries, GPUs, runtime configuration, XLA, Keras). The first fix is the
  most severe cause (fail over warn over info), and among equals the deepest one.
- :data:`EXPLAINS`: which causes explain which symptom. A symptom with an explanation names
  it ("TensorFlow sees 0 of 1 GPUs because libcudnn.so.8 did not load"), takes its fix, and
  ranks after it; log evidence that explains a failing symptom becomes a failure itself.

Every actionable log line stays visible, grouped by cause. The same tables serve
``gpucheck doctor`` (a snapshot, plus ``--log`` files) and ``gpucheck explain`` (text alone).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tf_gpucheck import factwords
from tf_gpucheck.checks import facts
from tf_gpucheck.checks.findings import DEPTH_LAST, Cause, Finding, Status
from tf_gpucheck.reading import logscan, wanted
from tf_gpucheck.snapshot import FrameworkInfo, Snapshot

if TYPE_CHECKING:
    from tf_gpucheck.installer.intent import Fix

# --- the layers ----------------------------------------------------------------------------

_LAYERS: tuple[tuple[str, ...], ...] = (
    ("platform_unknown",),
    ("python_unusable", "python_unsupported", "interpreter_mismatch"),
    # the user's own import: a file of theirs, or another environment's packages
    ("module_shadowed", "pythonpath_foreign", "kernel_restart_needed", "kernel_pip_elsewhere"),
    (
        "install_resolution_failed",
        "tf_not_installed",
        "multiple_tf_distributions",
        "tf_cpu_only_build",
        "tensorflow_gpu_deprecated",
    ),
    (
        "cpu_unsupported",
        "msvc_runtime_missing",
        "numpy_incompatible",
        "protobuf_incompatible",
        "tf_requirement_unmet",
        "tf_install_broken",
        "library_crashes_loader",
    ),
    # a platform without CUDA: TensorFlow runs there on the CPU, so what stops it from
    # installing or importing at all comes first (the installed build's fix is platform-aware)
    ("macos_no_cuda", "windows_native_unsupported"),
    # where it runs: a container, pod, job or notebook started without a GPU hides it from the
    # driver and everything above it (below Python and the install, which fail on a CPU too)
    (
        "container_no_gpu",
        "pod_no_gpu",
        "slurm_no_gpu",
        "notebook_no_accelerator",
        "container_capabilities_missing",
    ),
    (
        "wsl_driver_problem",
        "cuda_stub_libcuda",
        "no_nvidia_driver",
        "nvml_driver_mismatch",
        "nvml_error",
        "no_nvidia_gpu",
        "driver_too_old",
    ),
    # CUDA would not start: what is wrong with the driver beneath it, where seen, says why
    ("cuda_init_failed",),
    ("gpu_hidden_by_env",),
    (
        "cuda_libs_missing",
        "cudnn_missing",
        "cudnn_version_mismatch",
        "cudnn_init_failed",
        "cublas_init_failed",
    ),
    (
        "compute_capability_too_old",
        "compute_capability_unsupported",
        "ptx_jit_required",
        "gpu_busy",
    ),
    ("config_after_init", "memory_config_conflict", "gpu_out_of_memory"),
    ("xla_libdevice_missing", "xla_ptxas_missing", "xla_ptxas_too_old"),
    ("and_cuda_pins_unmet",),
    ("keras_mismatch", "keras_backend_missing", "keras_backend_cpu_only"),
)
DEPTH: dict[str, int] = {code: depth for depth, layer in enumerate(_LAYERS) for code in layer}

"""Cause code -> layer, bottom up. Codes not listed (symptoms, requirements) rank last."""
KERAS_CAUSES = frozenset(_LAYERS[-1])
"""The top layer: Keras itself, whatever the platform or GPU."""
assert len(_LAYERS) < DEPTH_LAST


_UNEXPLAINED_DEPTH = dict.fromkeys(
    ("tf_import_failed", "tf_crashed", "tf_probe_timeout"), DEPTH["cpu_unsupported"]
)
"""Where an unexplained symptom ranks: TensorFlow that does not import is an import-layer
problem, below the driver; other symptoms rank after every cause."""


def depth(code: str) -> int:
    return DEPTH.get(code, DEPTH_LAST)


def _symptom_depth(code: str) -> int:
    return _UNEXPLAINED_DEPTH.get(code, DEPTH_LAST)


GPU_INSTALLS = frozenset(
    {"tf_not_installed", "tf_cpu_only_build", "cuda_libs_missing", "cudnn_missing",
     "cudnn_version_mismatch"}
)  # fmt: skip
"""Causes whose fix installs TensorFlow's GPU build or its CUDA wheels (gigabytes): where the
program runs reaches no GPU (a container, pod, job or notebook without one), that place is the
first fix, and these wait for it (doctor's order and ``gpucheck fix``'s plan alike); a repair of
wheels already there (a pin, a file put back) is not held."""


PLACE_NO_GPU = frozenset(
    {
        "container_no_gpu",
        "pod_no_gpu",
        "slurm_no_gpu",
        "notebook_no_accelerator",
        "container_capabilities_missing",
    }
)
"""Causes of where it runs: the container, pod, job or notebook has no GPU."""

_NO_GPU_IN_TF = PLACE_NO_GPU | frozenset(
    {
        "wsl_driver_problem",
        "cuda_stub_libcuda",
        "macos_no_cuda",
        "windows_native_unsupported",
        "tf_cpu_only_build",
        "no_nvidia_driver",
        "nvml_driver_mismatch",
        "nvml_error",
        "no_nvidia_gpu",
        "cuda_init_failed",
        "driver_too_old",
        "gpu_hidden_by_env",
        "cuda_libs_missing",
        "cudnn_missing",
        "cudnn_version_mismatch",
        "and_cuda_pins_unmet",
        "compute_capability_too_old",
        "compute_capability_unsupported",
        "gpu_busy",
        "config_after_init",
    }
)
_IMPORT = frozenset(
    {
        "module_shadowed",
        "pythonpath_foreign",
        "protobuf_incompatible",
        "tf_requirement_unmet",
        "python_unsupported",
        "multiple_tf_distributions",
        "cpu_unsupported",
        "msvc_runtime_missing",
        "no_nvidia_driver",
        "numpy_incompatible",
        "tf_install_broken",
        "library_crashes_loader",
        "cuda_libs_missing",
        "cudnn_missing",
        "keras_mismatch",
    }
)
_NOT_RUNNING = frozenset({"tf_not_installed", "tf_import_failed", "tf_crashed", "tf_probe_timeout"})

EXPLAINS: dict[str, frozenset[str]] = {
    # symptom cause code -> the causes that explain it
    "tf_sees_fewer_gpus": _NO_GPU_IN_TF,
    "gpu_op_failed": frozenset(
        {
            "compute_capability_unsupported",
            "compute_capability_too_old",
            "ptx_jit_required",
            "driver_too_old",
            "cudnn_missing",
            "cudnn_version_mismatch",
            "cudnn_init_failed",
            "cublas_init_failed",
            "cuda_libs_missing",
            "gpu_out_of_memory",
            "gpu_busy",
            "xla_libdevice_missing",
            "xla_ptxas_missing",
            "xla_ptxas_too_old",
        }
    ),
    "tf_import_failed": _IMPORT,
    "tf_crashed": _IMPORT,
    "tf_probe_timeout": frozenset({"ptx_jit_required", "library_crashes_loader"}),
    "gpu_required": _NO_GPU_IN_TF | _IMPORT | _NOT_RUNNING,
    "too_few_gpus": _NO_GPU_IN_TF,
    "other_frameworks_no_gpu": PLACE_NO_GPU
    | frozenset(
        {
            "no_nvidia_driver",
            "nvml_driver_mismatch",
            "nvml_error",
            "no_nvidia_gpu",
            "wsl_driver_problem",
            "cuda_stub_libcuda",
        }
    ),
}
"""Symptom -> the causes that explain it. A symptom's own check reports what is seen; the
explaining cause says why, and its fix is the one to apply."""

SYMPTOMS = frozenset(EXPLAINS)

NEEDS_EVIDENCE: dict[str, frozenset[str]] = {
    # facts that break `import tensorflow` by themselves: a shadowing file, another environment's
    # packages, NumPy 2 under a NumPy-1 build, a protobuf outside TensorFlow's range
    "tf_import_failed": frozenset(
        {"module_shadowed", "pythonpath_foreign", "numpy_incompatible", "protobuf_incompatible"}
    ),
    "tf_crashed": frozenset({"library_crashes_loader"}),
    "tf_probe_timeout": frozenset(),
}
"""Symptoms a circumstance does not explain: an import that failed or crashed is explained only
by a cause its own traceback or log points at (a missing driver does not make `import
tensorflow` fail). The codes listed may explain it without a line: a library that crashes every
loader explains a crash."""

# --- causes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Known:
    """What is known about the machine the log came from."""

    tf_version: str | None = None
    python_version: str | None = None
    os: str | None = None
    """Linux, Windows, Darwin, or None."""
    is_wsl: bool = False
    cuda_visible_devices: str | None = None
    probe_saw_gpu: bool = False
    """TensorFlow created a GPU device in gpucheck's own probe (the machine and driver work)."""
    snapshot: Snapshot | None = None
    place: str | None = None
    """Where it ran, where known: colab, kaggle, docker, kubernetes, slurm, jupyter."""
    env_observed: bool = True
    """The variables were read from the machine (doctor): an unset CUDA_VISIBLE_DEVICES is
    observed to be unset. A text (explain) that does not show it says nothing about it."""
    driver_shown: bool = False
    """The text shows the driver answering where it ran (a driver version, a line only a machine
    with an NVIDIA GPU prints): the GPU reached that place, whatever else hides it."""
    gpu_build: bool = False
    """The TensorFlow is a GPU build of its own name (tensorflow-gpu, tf-nightly-gpu), installed
    or named in the text."""

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot) -> Known:
        return cls(
            tf_version=facts.tf_version(snapshot),
            python_version=snapshot.system.python_version,
            os=snapshot.system.os,
            is_wsl=snapshot.system.is_wsl,
            cuda_visible_devices=snapshot.system.env.get("CUDA_VISIBLE_DEVICES"),
            probe_saw_gpu=bool(facts.tf_gpus(snapshot)),
            snapshot=snapshot,
            place=facts.place_name(snapshot.place),
            gpu_build=any(d.name in wanted.GPU_BUILDS for d in snapshot.packages.tensorflow),
        )


PROBE_SOURCES = frozenset({"TensorFlow's start-up log", "the import traceback"})
"""Sources gpucheck's own TensorFlow child wrote; others come from the user's program."""


PLACE_CAUSES = {
    "colab": "notebook_no_accelerator",
    "kaggle": "notebook_no_accelerator",
    "docker": "container_no_gpu",
    "podman": "container_no_gpu",
    "kubernetes": "pod_no_gpu",
    "slurm": "slurm_no_gpu",
}
"""Where it runs -> what "there is no GPU here" means there: the place was started without one."""


def refine(code: str, known: Known, source: str = "") -> str:
    """A cause as the context reads it.

    CUDA_ERROR_NO_DEVICE means CUDA_VISIBLE_DEVICES only when that variable is set, or when the
    user's own program saw no GPU while gpucheck's probe did (the program or its launcher hides
    them); on a machine whose variables were read and show it unset, the driver sees no GPU at
    all. A text that does not show the variables leaves the variable as the first suspect (the
    driver answered, yet listed no device to this process), unless it runs in a place that hides
    GPUs itself and is not shown given one. "No driver, no GPU" inside a notebook
    runtime, a container, a pod or a SLURM job means that place was started without a GPU, and
    in WSL2 (and cuInit failing there) that the Windows driver does not reach Linux. "No
    TensorFlow" in a notebook means the kernel is another Python than the one pip installed
    into."""
    hidden = known.cuda_visible_devices is not None or (
        known.probe_saw_gpu and source not in PROBE_SOURCES
    )
    if code == "no_nvidia_gpu" and hidden:
        return "gpu_hidden_by_env"
    if code == "gpu_hidden_by_env" and not hidden and known.env_observed:
        code = "no_nvidia_gpu"
    if (
        code == "gpu_hidden_by_env"
        and not hidden
        and not known.driver_shown
        and known.place in PLACE_CAUSES
    ):
        # no device to this process inside a place that was not shown given a GPU: that place
        # hides it before any variable could (a container without --gpus, a job without --gres)
        return PLACE_CAUSES[known.place]
    if code in ("container_no_gpu", "no_nvidia_driver", "no_nvidia_gpu") and known.os == "Darwin":
        # Docker Desktop and every VM on macOS run without an NVIDIA GPU: no flag gives one
        return "macos_no_cuda"
    if code in ("no_nvidia_driver", "no_nvidia_gpu"):
        if known.place in PLACE_CAUSES:
            return PLACE_CAUSES[known.place]
        if known.is_wsl and code == "no_nvidia_driver":
            return "wsl_driver_problem"
    if code == "cuda_init_failed" and known.is_wsl:
        return "wsl_driver_problem"  # WSL2's libcuda is the Windows driver's: cuInit fails there
    if code == "tf_not_installed" and known.place == "jupyter":
        return "interpreter_mismatch"
    return code


@dataclass(frozen=True)
class Evidence:
    """A recognised log line that points at a cause."""

    source: str
    """Where it was read: "TensorFlow's start-up log", "--log train.log", "the traceback"."""
    line: logscan.LogLine
    cause: str

    @property
    def text(self) -> str:
        return self.line.text


FixFor = Callable[[str, Sequence["Evidence"]], "tuple[str, Fix | None] | None"]
"""The fix of a cause only a log shows: (the line written for the target, its plan where it is
package work), or ``None``."""


@dataclass(frozen=True)
class Diagnosis:
    findings: tuple[Finding, ...]
    """The checks' findings, symptoms rewritten to name their cause."""
    causes: tuple[Cause, ...]
    """Every cause with evidence, most important first."""
    evidence: tuple[Evidence, ...]


_LIBRARY = re.compile(r"""(lib[\w+-]+\.so(?:\.[\d.]+)?|[\w-]+64_\d+\.dll|[\w-]+\.dll)""")


def _library_named(lines: Sequence[Evidence]) -> str | None:
    for item in lines:
        if item.line.library:
            return item.line.library
        match = _LIBRARY.search(item.line.message)
        if match:
            return match.group(1)
    return None


def classify_evidence(
    sources: Sequence[tuple[str, Sequence[str]]], *, gpu_expected: bool, known: Known
) -> list[Evidence]:
    """The actionable lines of every source, with their cause as the context reads it.

    ``no_gpu`` lines are expected on a machine without a GPU and evidence where one is."""
    found: list[Evidence] = []
    for source, lines in sources:
        found += evidence_in(
            source, logscan.classify(lines), gpu_expected=gpu_expected, known=known
        )
    return found


def evidence_in(
    source: str, classified: Sequence[logscan.LogLine], *, gpu_expected: bool, known: Known
) -> list[Evidence]:
    """:func:`classify_evidence` for lines the scanner has already classified."""
    found: list[Evidence] = []
    others = _others_unresolved(classified)
    for line in classified:
        rule, cause = line.rule, line.cause
        if rule is None or cause is None:
            continue
        if rule.id == "pip_python_mismatch" and others:
            # pip lists every version it skipped for Requires-Python, of every package it looked
            # at (factory.py: the finder's requires_python_skipped_reasons); where the requirement
            # it could not meet is another package's, this line says nothing of TensorFlow's
            continue
        if rule.id == "dll_load_failed" and _msvc_era(known.tf_version):
            cause = "msvc_runtime_missing"
        if rule.id == "dll_module_not_found" and known.gpu_build:
            cause = _linked_cuda(known.tf_version)
        if rule.kind == "actionable" or (rule.kind == "no_gpu" and gpu_expected):
            found.append(Evidence(source, line, refine(cause, known, source)))
    return found


_UNRESOLVED_RULES = frozenset({"pip_no_version", "pip_no_distribution"})
_TENSORFLOW_PREFIXES = ("tensorflow", "tf-nightly", "intel-tensorflow")


def _others_unresolved(classified: Sequence[logscan.LogLine]) -> list[str]:
    """The requirements pip says it could not meet that are not a TensorFlow distribution
    (``tensorrt==8.5.3.1``, from ``tensorflow[and-cuda]``)."""
    out = []
    for line in classified:
        if line.rule is None or line.rule.id not in _UNRESOLVED_RULES or not line.library:
            continue
        name = re.split(r"[\[<>=!~;]", line.library, maxsplit=1)[0].lower().replace("_", "-")
        if name and not name.startswith(_TENSORFLOW_PREFIXES):
            out.append(line.library)
    return out


def _linked_cuda(tf_version: str | None) -> str:
    """What a DLL a GPU build's library cannot find is: its library links the CUDA and cuDNN
    DLLs up to tensorflow-gpu 1.14 (read from the wheels' import tables, rules/install.yaml
    ``dll_module_not_found``), only the Visual C++ runtime from 1.15; a release not known could
    be either."""
    from packaging.version import InvalidVersion, Version

    if tf_version is None:
        return "tf_import_failed"
    try:
        linked = Version(tf_version).release[:2] < (1, 15)
    except InvalidVersion:
        return "tf_import_failed"
    return "cuda_libs_missing" if linked else "msvc_runtime_missing"


def _msvc_era(tf_version: str | None) -> bool:
    """TensorFlow 2.1 and later on Windows: built with Visual Studio 2019, it needs the Visual C++
    2015-2019 runtime (msvcp140_1.dll), and it loads CUDA only when asked, so a DLL its own
    extension cannot find is that runtime (TensorFlow 2.1.0 release notes)."""
    from packaging.version import InvalidVersion, Version

    try:
        return tf_version is not None and Version(tf_version).release[:2] >= (2, 1)
    except InvalidVersion:
        return False


def log_summary(code: str, items: Sequence[Evidence]) -> str:
    """One line for a cause seen only in a log."""
    first = items[0]
    assert first.line.rule is not None
    library = _library_named(items)
    if code in ("cuda_libs_missing", "cudnn_missing") and library:
        return f"{library} did not load ({first.source})"
    return f"{first.line.rule.explanation} ({first.source})"


DRIVER_LAYER = PLACE_NO_GPU | frozenset(
    {
        "no_nvidia_driver",
        "nvml_driver_mismatch",
        "nvml_error",
        "no_nvidia_gpu",
        "cuda_init_failed",
        "wsl_driver_problem",
        "cuda_stub_libcuda",
    }
)
"""Causes that another framework using the GPU rules out: the driver and the GPU work."""


def diagnose(
    findings: Sequence[Finding],
    evidence: Sequence[Evidence],
    *,
    fix_for: FixFor,
    witnesses: Sequence[str] = (),
) -> Diagnosis:
    """Link symptoms to causes and rank every cause (see the module docstring).

    ``fix_for(code, evidence)`` gives the fix for a cause seen only in a log. ``witnesses``
    name other frameworks that use the GPU here ("PyTorch 2.13 (CUDA 12.1)"): differential
    evidence that the driver and the GPU work, so TensorFlow's problem is in its own layer."""
    by_code: dict[str, list[Evidence]] = {}
    for item in evidence:
        by_code.setdefault(item.cause, []).append(item)

    causes: dict[str, Cause] = {}
    for finding in findings:
        if finding.cause is None or finding.status in (Status.OK, Status.SKIP):
            continue
        if finding.cause in SYMPTOMS:
            continue
        first = causes.get(finding.cause)
        if first is not None and finding.status.severity <= first.status.severity:
            continue  # the same cause again: the most severe finding of it speaks for it
        if finding.check == "tf_log":  # it summarises the log, whose lines enter on their own
            continue
        lines = tuple(e.text for e in by_code.get(finding.cause, ()))
        causes[finding.cause] = Cause(
            finding.cause,
            finding.status,
            finding.summary,
            finding.fix,
            finding.check,
            lines,
            details=finding.details,
            stated=finding.stated,
            observed=finding.observed,
            proof=finding.proof,
            fallbacks=finding.fallbacks,
            plan=finding.plan,
            alternatives=finding.alternatives,
        )
    for code, items in by_code.items():
        if code in causes or code in SYMPTOMS:
            continue
        fix, plan = fix_for(code, items) or (None, None)
        causes[code] = Cause(
            code,
            Status.WARN,
            log_summary(code, items),
            fix,
            "tf_log",
            tuple(e.text for e in items),
            plan=plan,
        )

    rewritten: list[Finding] = []
    explained: dict[str, str] = {}
    for finding in findings:
        symptom = finding.cause
        if (
            symptom not in SYMPTOMS
            or finding.status not in (Status.FAIL, Status.WARN)
            or symptom is None
        ):
            rewritten.append(finding)
            continue
        candidates = [
            c
            for c in causes.values()
            if c.code in EXPLAINS[symptom]
            and not (witnesses and c.code in DRIVER_LAYER)
            and (symptom not in NEEDS_EVIDENCE or c.evidence or c.code in NEEDS_EVIDENCE[symptom])
        ]
        if not candidates:
            rewritten.append(finding)
            continue
        # what the failure itself printed beats a circumstance; then severity, then depth
        best = min(candidates, key=lambda c: (not c.evidence, -c.status.severity, depth(c.code)))
        # The explaining cause carries the symptom's weight: a log line that says why TensorFlow
        # dropped the GPU is a failure when the GPU is really missing.
        promoted = (
            best.status if best.status.severity >= finding.status.severity else finding.status
        )
        causes[best.code] = dataclasses.replace(
            best, status=promoted, explains=(*best.explains, finding.check)
        )
        explained[finding.check] = best.code
        rewritten.append(
            dataclasses.replace(
                finding,
                summary=_witnessed(witnesses, best.code)
                + f"{finding.summary} because {_lower_first(best.summary)}",
                fix=best.fix or finding.fix,
                plan=best.plan if best.fix else finding.plan,
            )
        )

    symptoms = [
        Cause(
            f.cause,
            f.status,
            f.summary,
            f.fix,
            f.check,
            details=f.details,
            explained_by=explained.get(f.check),
            plan=f.plan,
        )
        for f in rewritten
        if f.cause in SYMPTOMS and f.status in (Status.FAIL, Status.WARN) and f.cause
    ]
    # causes and unexplained symptoms by severity, then depth (an unexplained symptom after the
    # causes of its layer); explained symptoms last, after the causes that explain them
    unexplained = [s for s in symptoms if s.check not in explained]
    # a place that reaches no GPU comes before installing TensorFlow: the install the fix would
    # make (several GB of CUDA wheels) is for a GPU the program cannot reach until then
    no_gpu_places = set(PLACE_CAUSES.values())
    place_first = any(code in causes for code in GPU_INSTALLS) and any(
        code in causes for code in no_gpu_places
    )

    # a Keras failure the program's own log shows stops it on every platform: a platform
    # without CUDA (which only keeps it on the CPU) does not explain it and comes after it
    def in_the_log(cause: Cause) -> bool:
        return bool(cause.evidence) or cause.check == "log"

    keras_seen = any(code in KERAS_CAUSES and in_the_log(causes[code]) for code in causes)

    def rank(cause: Cause) -> float:
        code = cause.code
        if code in SYMPTOMS:
            return _symptom_depth(code)
        if place_first and code in no_gpu_places:
            # just before the first GPU install, after the layers below it (the user's import)
            return min(depth(code), *(depth(c) - 0.5 for c in causes if c in GPU_INSTALLS))
        if keras_seen and code in KERAS_CAUSES and in_the_log(cause):
            return depth("macos_no_cuda") - 0.5
        return depth(code)

    ordered = sorted(
        [*causes.values(), *unexplained],
        key=lambda c: (-c.status.severity, rank(c), c.code in SYMPTOMS),
    )
    if place_first:
        ordered = [
            dataclasses.replace(
                c,
                details="\n".join(
                    [
                        *([c.details] if c.details else []),
                        "Install it once the program can reach the GPU (first fix above); "
                        "to run on the CPU meanwhile, TensorFlow alone (without its CUDA extra) "
                        "does",
                    ]
                ),
            )
            if c.code == "tf_not_installed"
            else dataclasses.replace(
                c,
                details="\n".join(
                    [
                        *([c.details] if c.details else []),
                        "Replace it once the program can reach the GPU (first fix above); the "
                        "installed build runs on the CPU meanwhile",
                    ]
                ),
            )
            if c.code == "tf_cpu_only_build"
            else c
            for c in ordered
        ]
    ordered += [s for s in symptoms if s.check in explained]
    return Diagnosis(tuple(rewritten), tuple(ordered), tuple(evidence))


def _witnessed(witnesses: Sequence[str], code: str) -> str:
    if not witnesses or code in DRIVER_LAYER:
        return ""
    return f"{witnesses[0]} uses the GPU here, so the driver works: "


def witness_names(frameworks: Sequence[FrameworkInfo]) -> list[str]:
    """ "PyTorch 2.13.0 (CUDA 12.1)" for each framework that used the GPU."""
    return [factwords.framework_label(f) for f in frameworks if f.gpu_usable]


def _lower_first(text: str) -> str:
    """ "The driver ..." -> "the driver ..."; names keep their case ("NumPy", "TensorFlow")."""
    word = text.split(" ", 1)[0]
    if len(word) > 1 and word[0].isupper() and word[1:].islower():
        return text[0].lower() + text[1:]
    return text
