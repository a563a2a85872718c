"""What ``gpucheck fleet`` reads: files, directories and globs of ``detect --json`` snapshots and
``doctor --json`` reports, one node each. A file that cannot be read is a value (its name and
why), never an exception: one bad file never hides the fleet."""

from __future__ import annotations

import glob
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tf_gpucheck._codec import DecodeError, from_data
from tf_gpucheck.checks.findings import Finding, Status
from tf_gpucheck.errors import GpucheckError
from tf_gpucheck.snapshot import NodeInfo, Snapshot

_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class DoctorReportData:
    """A ``gpucheck doctor --json`` report, as the node judged itself (no snapshot in it)."""

    verdict: Status
    exit_code: int
    first_fix: Finding | None
    findings: tuple[Finding, ...]
    node: NodeInfo | None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class NodeInput:
    """One node as read: its snapshot, its doctor report, or why there is neither."""

    source: str
    """The file it came from (or ``ray node <id>``)."""
    snapshot: Snapshot | None = None
    report: DoctorReportData | None = None
    problem: str | None = None
    """Why the file could not be read (``unreadable``) or the node did not answer."""
    no_answer: bool = False
    """The node did not answer (``fleet --ray``), as opposed to an unreadable file."""
    name_hint: str | None = None
    """A name to use when the node records none (the Ray node's host name)."""
    tag: str | None = None
    """Tells two nodes of one name apart (the Ray node id's first characters)."""
    from_file: bool = True
    """Read from a file (often named after its node), not collected from a Ray node."""


def expand(paths: Sequence[str]) -> tuple[list[Path], list[NodeInput]]:
    """The files ``paths`` name (a directory: its ``*.json``; a pattern: its matches), and a
    problem for each path that names nothing."""
    files: list[Path] = []
    problems: list[NodeInput] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            found = sorted(p for p in path.glob("*.json") if p.is_file())
            if not found:
                problems.append(NodeInput(text, problem="directory has no *.json file"))
            files += found
        elif path.exists() or not _GLOB_CHARS & set(text):
            files.append(path)
        else:
            matches = sorted(Path(m) for m in glob.glob(text, recursive=True) if Path(m).is_file())
            if not matches:
                problems.append(NodeInput(text, problem="no file matches this pattern"))
            files += matches
    return list(dict.fromkeys(files)), problems


def read_inputs(paths: Sequence[str]) -> list[NodeInput]:
    """Every node the paths name, in the order given; unreadable files included, by name."""
    files, problems = expand(paths)
    return [read_node(path) for path in files] + problems


def read_node(path: Path) -> NodeInput:
    from tf_gpucheck._textfile import JsonFileProblem, read_json_file

    source = str(path)
    try:
        data = read_json_file(path)
    except JsonFileProblem as exc:
        return NodeInput(source, problem=exc.words)
    try:
        if isinstance(data, dict) and "findings" in data and "verdict" in data:
            return NodeInput(source, report=doctor_report(data))
        return NodeInput(source, snapshot=Snapshot.from_dict(data))
    except GpucheckError as exc:
        return NodeInput(source, problem=exc.message)


def doctor_report(data: dict[str, object]) -> DoctorReportData:
    """Validate a ``doctor --json`` report; a wrong shape is a GpucheckError."""
    bad = _bad
    try:
        verdict = Status(str(data.get("verdict")))
    except ValueError:
        raise bad(f"verdict {data.get('verdict')!r} is not a status") from None
    exit_code = data.get("exit_code")
    if not isinstance(exit_code, int) or isinstance(exit_code, bool):
        raise bad("it has no integer exit_code")
    raw_findings = data.get("findings")
    if not isinstance(raw_findings, list):
        raise bad("findings is not a list")
    findings = tuple(_finding(item, bad) for item in raw_findings)
    first = data.get("first_fix")
    node = None
    if data.get("node") is not None:
        try:
            node = from_data(NodeInfo, data["node"], "node")
        except DecodeError as exc:
            raise bad(str(exc)) from None
    notes = data.get("notes") or []
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise bad("notes is not a list of strings")
    return DoctorReportData(
        verdict=verdict,
        exit_code=exit_code,
        first_fix=_finding(first, bad) if first is not None else None,
        findings=findings,
        node=node,
        notes=tuple(notes),
    )


def _bad(problem: str) -> GpucheckError:
    return GpucheckError(f"not a gpucheck doctor report: {problem}", reference="report-invalid")


def _finding(item: object, bad: Callable[[str], GpucheckError]) -> Finding:
    if not isinstance(item, dict):
        raise bad("a finding is not an object")
    check, summary = item.get("check"), item.get("summary")
    details, fix, cause = item.get("details", ""), item.get("fix"), item.get("cause")
    if not isinstance(check, str) or not isinstance(summary, str):
        raise bad("a finding has no check or summary")
    if not isinstance(details, str) or not all(
        v is None or isinstance(v, str) for v in (fix, cause)
    ):
        raise bad(f"finding {check!r} has a non-text details, fix or cause")
    try:
        status = Status(str(item.get("status")))
    except ValueError:
        raise bad(f"finding {check!r} has no valid status") from None
    return Finding(check, status, summary, details, fix, cause)
