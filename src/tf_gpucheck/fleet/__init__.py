"""``gpucheck fleet``: many nodes judged at once, by the same checks as ``gpucheck doctor``.

gpucheck runs no remote commands of its own: SLURM, Kubernetes or Ray run ``gpucheck detect
--json`` on every node (or :mod:`tf_gpucheck.fleet.ray_collect` asks a Ray cluster to), and this
module judges each node's snapshot with :func:`tf_gpucheck.examine.examine` (the one doctor) and the one matrix,
then sums the fleet up: nodes per verdict, nodes grouped by their first cause with its fix, the
odd ones out (what should be equal across a fleet, and the nodes where it is not), the lowest
free GPU memory, and what only a fleet shows (``TF_CONFIG`` clusters that disagree).

A ``doctor --json`` report carries the node's judgement but not its snapshot: it counts with its
own verdict, first cause and fix (judged on the node, with the node's flags), and is left out of
what needs the facts (the odd ones out, free memory, requirements given to ``fleet``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tf_gpucheck import factwords
from tf_gpucheck.checks import Requirements
from tf_gpucheck.checks import facts as doctor_facts
from tf_gpucheck.checks.findings import Finding
from tf_gpucheck.checks.multiworker import fleet_findings
from tf_gpucheck.examine import examine
from tf_gpucheck.fleet.hostlist import compact, natural_key
from tf_gpucheck.fleet.inputs import NodeInput, read_inputs
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.probes.node import HOST_NAMING_LABELS
from tf_gpucheck.snapshot import NodeInfo, Snapshot

if TYPE_CHECKING:
    from tf_gpucheck.redact import PseudonymKey

__all__ = [
    "ATTRIBUTES",
    "FleetReport",
    "Group",
    "NodeInput",
    "NodeResult",
    "OddOneOut",
    "judge_fleet",
    "read_inputs",
]

ATTRIBUTES: tuple[tuple[str, str], ...] = (
    ("driver", "NVIDIA driver"),
    ("cuda_driver", "CUDA (driver)"),
    ("tensorflow", "TensorFlow"),
    ("tf_build", "TensorFlow build"),
    ("keras", "Keras"),
    ("python", "Python"),
    ("gpus", "GPUs"),
    ("compute_capability", "compute capability"),
    ("place", "where it runs"),
)
"""What should be the same on every node of a fleet: (key, label), in the table's order."""

UNREADABLE = "unreadable"
NO_ANSWER = "no_answer"
STATUS_ORDER = ("fail", NO_ANSWER, UNREADABLE, "warn", "ok")


@dataclass(frozen=True)
class NodeResult:
    """One node's judgement."""

    name: str
    source: str
    origin: str
    """``snapshot``, ``doctor report``, ``unreadable`` or ``no answer``."""
    status: str
    """``ok``, ``warn``, ``fail``, ``unreadable`` or ``no_answer``."""
    exit_code: int
    first: Finding | None = None
    """The first thing to fix (doctor's first_fix, or what the fleet found), else ``None``."""
    findings: tuple[Finding, ...] = ()
    facts: dict[str, str] = field(default_factory=dict)
    """The odd-ones-out attributes (:data:`ATTRIBUTES`); empty without a snapshot."""
    free_memory: tuple[int, int] | None = None
    """(GPU index, free bytes) of this node's GPU with the least free memory."""
    problem: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Group:
    """Nodes that share a verdict, a first cause and its fix."""

    status: str
    cause: str | None
    check: str | None
    summary: str | None
    """The first node's own words (summaries can name node-specific values)."""
    fix: str | None
    nodes: tuple[str, ...]


@dataclass(frozen=True)
class OddOneOut:
    """One attribute across the fleet: the majority's value and the nodes that differ."""

    key: str
    label: str
    majority: str
    majority_count: int
    others: tuple[tuple[str, tuple[str, ...]], ...]
    """(value, nodes) for each minority value, biggest first."""


@dataclass(frozen=True)
class FleetReport:
    nodes: tuple[NodeResult, ...]
    groups: tuple[Group, ...]
    odd_ones_out: tuple[OddOneOut, ...]
    lowest_free_memory: tuple[str, int, int] | None
    """(node, GPU index, free bytes) of the fleet's GPU with the least free memory."""
    notes: tuple[str, ...] = ()

    @property
    def counts(self) -> dict[str, int]:
        counted = Counter(node.status for node in self.nodes)
        return {status: counted.get(status, 0) for status in ("ok", "warn", "fail")} | {
            status: counted[status] for status in (NO_ANSWER, UNREADABLE) if counted[status]
        }

    @property
    def verdict(self) -> str:
        statuses = {node.status for node in self.nodes}
        for status in ("fail", NO_ANSWER, UNREADABLE, "warn"):
            if status in statuses:
                return "fail" if status in (NO_ANSWER, UNREADABLE) else status
        return "ok"

    @property
    def exit_code(self) -> int:
        """0: every node passes; 1: a node fails (or did not answer); 2: a file was unreadable."""
        if any(node.status == UNREADABLE for node in self.nodes):
            return 2
        return 1 if any(node.exit_code for node in self.nodes) else 0


def judge_fleet(
    inputs: Sequence[NodeInput],
    matrix: Matrix,
    *,
    requirements: Requirements | None = None,
    allow_cpu: bool = False,
    strict: bool = False,
    redact: bool = False,
) -> FleetReport:
    """Judge every node with doctor's checks, then the fleet as a whole."""
    key = None
    if redact:
        from tf_gpucheck.redact import pseudonym_key

        key = pseudonym_key()
    prepared = [_prepare(item, key) for item in inputs]
    names = _unique_names(prepared)
    snapshots = {
        name: item.snapshot
        for name, item in zip(names, prepared, strict=True)
        if item.snapshot is not None
    }
    extra = fleet_findings(snapshots)
    results = [
        _judge(name, item, matrix, requirements, allow_cpu, strict, extra.get(name))
        for name, item in zip(names, prepared, strict=True)
    ]
    results.sort(key=lambda r: natural_key(r.name))
    notes: list[str] = []
    from_reports = [r.name for r in results if r.origin == "doctor report"]
    if from_reports:
        notes.append(
            f"{len(from_reports)} node(s) sent a doctor report, not a snapshot "
            f"({compact(from_reports)}): their verdict, first cause and fix are as judged on the "
            "node; they are not in the odd-ones-out table or the free-memory figure"
            + (", and fleet's requirements were not applied to them" if requirements else "")
            + "."
        )
    keys = {s.node.pseudonym_key for s in snapshots.values() if s.node.tf_config}
    if len(keys) > 1:
        notes.append(
            "nodes were redacted with different keys: TF_CONFIG clusters are compared only among "
            "nodes redacted alike (redact centrally with `gpucheck fleet --redact`, or set "
            "GPUCHECK_REDACT_KEY on every node)."
        )
    return FleetReport(
        nodes=tuple(results),
        groups=_groups(results),
        odd_ones_out=_odd_ones_out(results),
        lowest_free_memory=_lowest_free(results),
        notes=tuple(notes),
    )


def _prepare(item: NodeInput, key: PseudonymKey | None) -> NodeInput:
    """With ``--redact``: the node's names, in its snapshot or report and in its file's name,
    become pseudonyms before anything is judged or shown."""
    if key is None:
        return item
    from dataclasses import replace

    from tf_gpucheck.redact import identity_pairs, redact, redact_node, redact_text

    node = _node_of(item)
    pairs = identity_pairs(node, key) if node is not None else None
    if item.from_file:
        # The file is often named after the node (srun's %N): its name becomes the pseudonym.
        path = Path(item.source)
        stem, dot, ext = path.name.rpartition(".")
        renamed = f"{key.pseudonym(stem)}.{ext}" if dot else key.pseudonym(path.name)
        item = replace(item, source=redact_text(str(path.with_name(renamed)), pairs))
    if item.snapshot is not None:
        return replace(item, snapshot=redact(item.snapshot, key))
    report = item.report
    if report is None:
        return item

    def mask(finding: Finding) -> Finding:
        return Finding(
            finding.check,
            finding.status,
            redact_text(finding.summary, pairs),
            redact_text(finding.details, pairs),
            redact_text(finding.fix, pairs) if finding.fix else None,
            finding.cause,
        )

    return replace(
        item,
        report=replace(
            report,
            node=redact_node(report.node, key) if report.node else None,
            findings=tuple(mask(f) for f in report.findings),
            first_fix=mask(report.first_fix) if report.first_fix else None,
        ),
    )


def _node_of(item: NodeInput) -> NodeInfo | None:
    if item.snapshot is not None:
        return item.snapshot.node
    if item.report is not None:
        return item.report.node
    return None


def _base_name(item: NodeInput) -> str:
    node = _node_of(item)
    if node is not None:
        for name in (node.hostname, *(node.labels.get(label) for label in HOST_NAMING_LABELS)):
            if name:
                return name
    if item.name_hint:
        return item.name_hint
    stem = item.source.rsplit("/", 1)[-1]
    return stem[:-5] if stem.endswith(".json") else stem


def _unique_names(items: Sequence[NodeInput]) -> list[str]:
    """Each node's name; two nodes of one name (two snapshots of a host, Ray nodes on one
    machine) are told apart by their Ray node id or their file."""
    names = [_base_name(item) for item in items]
    seen = Counter(names)
    out: list[str] = []
    for name, item in zip(names, items, strict=True):
        tag = item.tag or item.source.rsplit("/", 1)[-1].removesuffix(".json")
        out.append(f"{name}/{tag}" if seen[name] > 1 else name)
    repeated = Counter(out)
    return [
        f"{name}/{item.source}" if repeated[name] > 1 else name
        for name, item in zip(out, items, strict=True)
    ]


def _judge(
    name: str,
    item: NodeInput,
    matrix: Matrix,
    requirements: Requirements | None,
    allow_cpu: bool,
    strict: bool,
    fleet_finding: Finding | None,
) -> NodeResult:
    if item.snapshot is None and item.report is None:
        status = NO_ANSWER if item.no_answer else UNREADABLE
        return NodeResult(
            name,
            item.source,
            "no answer" if item.no_answer else "unreadable",
            status,
            1 if item.no_answer else 2,
            problem=item.problem,
        )
    if item.report is not None:
        verdict, exit_code = item.report.verdict.value, item.report.exit_code
        first, findings, notes = item.report.first_fix, item.report.findings, item.report.notes
        origin, facts, free = "doctor report", {}, None
    else:
        assert item.snapshot is not None
        report = examine(
            snapshot=item.snapshot,
            matrix=matrix,
            allow_cpu=allow_cpu,
            strict=strict,
            requirements=requirements,
            prove_wait_s=None,  # another machine's environment: its installer is not here
        ).report
        verdict, exit_code = report.verdict.value, report.exit_code
        first, findings, notes = report.first_fix, report.findings, report.notes
        origin, facts, free = (
            "snapshot",
            node_facts(item.snapshot, matrix),
            _free(item.snapshot),
        )
    if fleet_finding is not None:
        findings = (*findings, fleet_finding)
        if verdict != "fail":
            verdict, exit_code, first = "fail", 1, fleet_finding
    return NodeResult(
        name, item.source, origin, verdict, exit_code, first, findings, facts, free, notes=notes
    )


def node_facts(snapshot: Snapshot, matrix: Matrix) -> dict[str, str]:
    """The values :data:`ATTRIBUTES` compares, as text (``none`` when absent)."""
    nvml = snapshot.nvml
    packages = snapshot.packages
    cuda_build = doctor_facts.is_cuda_build(snapshot)
    if cuda_build:  # as doctor reads it: build_info, else the wheel and the matrix (--no-tf)
        build = (
            f"CUDA {doctor_facts.build_cuda(snapshot, matrix) or '?'}, "
            f"cuDNN {doctor_facts.build_cudnn(snapshot, matrix) or '?'}"
        )
    else:
        build = "CPU only" if cuda_build is False else "unknown"
    models = Counter(g.name or "?" for g in nvml.gpus)  # the machine's GPUs, visible or not
    gpus = ", ".join(f"{count} x {model}" for model, count in sorted(models.items())) or "none"
    caps = sorted({g.compute_capability for g in nvml.gpus if g.compute_capability})
    keras = packages.keras or (f"tf-keras {packages.tf_keras}" if packages.tf_keras else None)
    return {
        "driver": nvml.driver_version or "none",
        "cuda_driver": nvml.cuda_driver_version or "none",
        "tensorflow": ", ".join(f"{d.name} {d.version}" for d in packages.tensorflow) or "none",
        "tf_build": build,
        "keras": keras or "none",
        "python": snapshot.system.python_version or "unknown",
        "gpus": gpus,
        "compute_capability": ", ".join(caps) or "none",
        "place": _place(snapshot),
    }


def _place(snapshot: Snapshot) -> str:
    place = snapshot.place
    if place is None:
        return "not recorded"
    words = factwords.place_words(place)
    devices = place.nvidia.device_nodes if place.nvidia else ()
    gpus = sum(1 for node in devices if node[len("/dev/nvidia") :].isdigit())
    if place.container or place.kubernetes:
        words += f" ({gpus} /dev/nvidia* GPU device{'s' if gpus != 1 else ''})"
    return words or "bare machine"


def _free(snapshot: Snapshot) -> tuple[int, int] | None:
    """(index, free bytes) of the visible GPU with the least free memory: the GPUs
    ``--min-free-memory`` judges."""
    free = [
        (g.index, g.memory_free_bytes)
        for g in doctor_facts.visible_gpus(snapshot)[0]
        if g.memory_free_bytes is not None
    ]
    return min(free, key=lambda pair: pair[1]) if free else None


def _groups(results: Sequence[NodeResult]) -> tuple[Group, ...]:
    buckets: dict[tuple[str, str | None, str | None, str | None], list[NodeResult]] = {}
    for node in results:
        key: tuple[str, str | None, str | None, str | None] = (node.status, None, None, None)
        if node.status in ("fail", "warn") and node.first is not None:
            key = (node.status, node.first.cause, node.first.check, node.first.fix)
        buckets.setdefault(key, []).append(node)
    groups = []
    for (status, cause, check, fix), members in buckets.items():
        first = members[0]
        summary = first.first.summary if first.first and status in ("fail", "warn") else None
        groups.append(Group(status, cause, check, summary, fix, tuple(m.name for m in members)))
    groups.sort(key=lambda g: (STATUS_ORDER.index(g.status), -len(g.nodes), g.cause or ""))
    return tuple(groups)


def _odd_ones_out(results: Sequence[NodeResult]) -> tuple[OddOneOut, ...]:
    judged = [node for node in results if node.facts]
    if not judged:
        return ()
    rows = []
    for key, label in ATTRIBUTES:
        by_value: dict[str, list[str]] = {}
        for node in judged:
            by_value.setdefault(node.facts[key], []).append(node.name)
        ranked = sorted(by_value.items(), key=lambda item: (-len(item[1]), natural_key(item[0])))
        majority, members = ranked[0]
        rows.append(
            OddOneOut(
                key,
                label,
                majority,
                len(members),
                tuple((value, tuple(names)) for value, names in ranked[1:]),
            )
        )
    return tuple(rows)


def _lowest_free(results: Sequence[NodeResult]) -> tuple[str, int, int] | None:
    lowest: tuple[str, int, int] | None = None
    for node in results:
        if node.free_memory is not None and (lowest is None or node.free_memory[1] < lowest[2]):
            lowest = (node.name, *node.free_memory)
    return lowest
