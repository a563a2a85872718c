"""`gpucheck explain`: the log of a failed job, a CI run, or text pasted from an issue, explained.

Reads any mix of TensorFlow's log (every release's prefixes), Python tracebacks, nvidia-smi,
the container runtime and pip; explains every recognised line; and ranks the causes with the
same diagnosis ``doctor`` uses. The facts the text itself states (TensorFlow and Python
versions, driver, GPUs, OS) feed the checks that can judge them without probing, so a pasted
report gets the same judgement a live machine would.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from tf_gpucheck.checks import diagnosis, logscan, registry, remedies, textfacts, textlines
from tf_gpucheck.checks.findings import Finding, Report, Status
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import (
    SCHEMA_VERSION,
    Distribution,
    FrameworksInfo,
    LibrariesInfo,
    NodeInfo,
    NvmlGpu,
    NvmlInfo,
    PackagesInfo,
    Snapshot,
    SystemInfo,
    TargetInfo,
    TensorflowInfo,
)

SOURCE = "the text"


@dataclass(frozen=True)
class ExplainedLine:
    """One recognised line: what it is and what it means."""

    text: str
    kind: str
    """actionable, harmless, no_gpu, good or context."""
    cause: str | None
    explanation: str
    rule: str

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "kind": self.kind,
            "cause": self.cause,
            "explanation": self.explanation,
            "rule": self.rule,
        }


@dataclass(frozen=True)
class Explanation:
    report: Report
    lines: tuple[ExplainedLine, ...]
    """Every recognised line, in the text's order."""
    stated: textfacts.StatedFacts
    read: int
    """Lines read (after normalising pasted text)."""


def explain(text: str, matrix: Matrix) -> Explanation:
    """Explain ``text`` (see the module docstring)."""
    lines = logscan.rejoin(textlines.normalise(text))
    classified = logscan.classify(lines)
    stated = textfacts.extract(lines)
    known = diagnosis.Known(
        tf_version=stated.tf_version,
        python_version=stated.python_version,
        os="Linux" if stated.is_wsl else stated.os,
        is_wsl=bool(stated.is_wsl),
        cuda_visible_devices=stated.cuda_visible_devices,
    )
    gpu_expected = bool(stated.gpus or stated.driver_version) or any(
        line.rule is not None and line.rule.id in logscan.GPU_PRESENT for line in classified
    )
    explained = tuple(
        ExplainedLine(
            line.text,
            _kind(line.rule.kind, gpu_expected),
            line.rule.cause,
            line.rule.explanation,
            line.rule.id,
        )
        for line in classified
        if line.rule is not None
    )
    # every line with a cause; `no_gpu` lines count only where the text shows a GPU
    evidence = diagnosis.evidence_in(SOURCE, classified, gpu_expected=True, known=known)
    findings = [
        *_stated_checks(stated, matrix),
        *_log_findings(evidence, known, matrix, gpu_expected=gpu_expected),
    ]
    result = diagnosis.diagnose(findings, [], fix_for=remedies.fix_for(known, matrix))
    report = Report(findings=result.findings, causes=result.causes, hint_info=True)
    return Explanation(report, explained, stated, len(lines))


def _kind(kind: str, gpu_expected: bool) -> str:
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


# --- the checks that can judge stated facts --------------------------------------------------


def stated_snapshot(stated: textfacts.StatedFacts) -> Snapshot:
    """A snapshot holding only what the text states; everything else says "not known"."""
    tf = stated.tf_version
    build: dict[str, object] | None = None
    if stated.cuda_build_version or stated.cudnn_build_version:
        build = {
            "cuda_version": stated.cuda_build_version,
            "cudnn_version": stated.cudnn_build_version,
            "is_cuda_build": True,
        }
    gpus = tuple(
        NvmlGpu(
            index=index,
            name=name,
            uuid=None,
            pci_bus_id=None,
            compute_capability=capability,
            memory_total_bytes=None,
            memory_used_bytes=None,
            processes=(),
        )
        for index, (name, capability) in enumerate(stated.gpus)
    )
    nvml = (
        NvmlInfo(
            available=True,
            error=None,
            driver_version=stated.driver_version,
            cuda_driver_version=stated.cuda_driver_version,
            gpus=gpus,
        )
        if stated.driver_version
        else NvmlInfo(available=False, error="not stated in the text", gpus=gpus)
    )
    os_name = "Linux" if stated.is_wsl else (stated.os or "")
    return Snapshot(
        schema_version=SCHEMA_VERSION,
        created_at="",
        gpucheck_version="",
        node=NodeInfo(hostname=None),
        system=SystemInfo(
            os=os_name,
            os_release="",
            os_pretty_name=None,
            arch="x86_64",
            is_wsl=bool(stated.is_wsl),
            python_version=stated.python_version,
            python_executable="",
            cpu_model=None,
            cpu_count=None,
            cpu_features=(),
            env={"CUDA_VISIBLE_DEVICES": stated.cuda_visible_devices},
        ),
        target=TargetInfo(python_executable="", chosen_by="unknown"),
        packages=PackagesInfo(
            tensorflow=(Distribution("tensorflow", tf),) if tf else (),
            keras=None,
            tf_keras=None,
            nvidia=(),
            and_cuda_requirements=(),
        ),
        nvml=nvml,
        libraries=LibrariesInfo(probed=False, reason="not stated in the text"),
        tensorflow=TensorflowInfo(
            probed=False, installed=True if tf else None, version=tf, build_info=build
        ),
        frameworks=FrameworksInfo(probed=False, reason="not stated in the text"),
    )


def _stated_checks(stated: textfacts.StatedFacts, matrix: Matrix) -> list[Finding]:
    """The doctor's own checks, run on what the text states, where it states enough."""
    snapshot = stated_snapshot(stated)
    wanted: list[str] = []
    if stated.os and stated.tf_version:
        wanted.append("platform")
    if stated.python_version and stated.tf_version:
        wanted.append("python")
    if stated.driver_version and (stated.tf_version or stated.cuda_build_version):
        wanted.append("driver_version")
    if stated.tf_version and any(capability for _, capability in stated.gpus):
        wanted.append("compute_capability")
    by_id = {c.id: c for c in registry.REGISTRY}
    found = []
    for check_id in wanted:
        try:
            finding = by_id[check_id].function(snapshot, matrix)
        except Exception:  # a partial snapshot a check cannot judge: no finding, never a crash
            continue
        if finding.status in (Status.FAIL, Status.WARN, Status.INFO):
            found.append(dataclasses.replace(finding, details=_stated_details(finding, stated)))
    return found


def _stated_details(finding: Finding, stated: textfacts.StatedFacts) -> str:
    return (finding.details + "\n" if finding.details else "") + "(judged on what the text states)"
