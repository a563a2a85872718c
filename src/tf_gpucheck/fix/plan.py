"""The plan: doctor's own fixes, read as package operations gpucheck may run, or left to the user.

One resolver: each step is the fix doctor prints for a cause (``Report.causes``, the same
remedies), so doctor's first fix and fix's first step never disagree. A fix is run only when
every part of it is a ``pip install`` / ``pip uninstall`` (or ``uv pip ...``) in the target
environment; anything else (a driver, sudo, a reboot, a container flag, a menu, another Python)
is a step for the user, printed and never run.
"""

from __future__ import annotations

from dataclasses import dataclass

from tf_gpucheck.checks.findings import Report, Status
from tf_gpucheck.installer import writer
from tf_gpucheck.installer.operations import OUTSIDE_OPTIONS, Operation
from tf_gpucheck.snapshot import Snapshot


@dataclass(frozen=True)
class Step:
    cause: str
    status: Status
    summary: str
    printed: str
    """The fix exactly as doctor prints it."""
    operations: tuple[Operation, ...] = ()
    """Empty: the user's to do (``why`` says why)."""
    note: str = ""
    """The fix's own comment (``# ...``)."""
    why: str = ""

    @property
    def runnable(self) -> bool:
        return bool(self.operations)


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]

    @property
    def runnable(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.runnable)

    @property
    def manual(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if not s.runnable)


def make_plan(report: Report, snapshot: Snapshot) -> Plan:
    """A step for each failing or warning cause with a fix; the same command twice is one step.
    Steps run bottom up (the diagnosis's layers: the install before the libraries before Keras),
    whatever their severity: a Keras fix made for the TensorFlow a later step replaces would be
    wrong. A GPU check's failure that ``--allow-cpu`` accepted is no step: the user said this
    machine runs on the CPU."""
    from tf_gpucheck.checks import ALLOWED_CPU
    from tf_gpucheck.checks.diagnosis import depth

    steps: list[Step] = []
    seen: set[str] = set()
    windows = snapshot.system.os == "Windows"
    for cause in report.causes:
        if cause.status not in (Status.FAIL, Status.WARN) or not cause.fix or cause.explained_by:
            continue
        if cause.fix in seen or cause.summary.endswith(ALLOWED_CPU):
            continue
        seen.add(cause.fix)
        made = None
        if cause.plan is not None:
            written = writer.written(cause.plan, snapshot)
            if written.line == cause.fix:  # what the line runs, as it was written
                made = written
        steps.append(
            read_step(cause.code, cause.status, cause.summary, cause.fix, windows, made=made)
        )
    steps.sort(key=lambda step: depth(step.cause))
    return Plan(tuple(_after_the_place(steps)))


def _after_the_place(steps: list[Step]) -> list[Step]:
    """Where it runs reaches no GPU (a container without one, a pod, a job, a notebook runtime
    without an accelerator): that comes before the GPU installs, on the host or in the launcher,
    and they wait for it (several GB of CUDA wheels for a GPU this cannot reach). Doctor's order
    is the same (``diagnosis.GPU_INSTALLS``): the steps below the GPU installs (the user's own
    import, Python itself) stay ahead of it."""
    from dataclasses import replace

    from tf_gpucheck.checks.diagnosis import GPU_INSTALLS, PLACE_CAUSES

    place = next((s for s in steps if s.cause in set(PLACE_CAUSES.values())), None)
    if place is None:
        return steps
    others = [s for s in steps if s is not place]
    first_install = next((i for i, s in enumerate(others) if s.cause in GPU_INSTALLS), None)
    if first_install is None:
        return steps
    others.insert(min(first_install, steps.index(place)), place)
    return [
        replace(
            s,
            operations=(),
            why=f"first the step above ({place.cause}): installing the GPU packages now is for "
            "a GPU this environment cannot reach yet; run gpucheck fix again once it can",
        )
        if s.runnable and s.cause in GPU_INSTALLS
        else s
        for s in others
    ]


TENSORFLOW_DISTRIBUTIONS = frozenset(
    {"tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-intel",
     "tensorflow-macos", "intel-tensorflow"}
)  # fmt: skip
"""A step that changes one of these makes the later steps (planned for the old TensorFlow) stale."""


def read_step(
    cause: str,
    status: Status,
    summary: str,
    fix: str,
    windows: bool = False,
    *,
    made: writer.Written | None = None,
) -> Step:
    """A fix as a step: its operations when all of it is package work, else the user's.
    ``made``: the fix as the writer made it with the line; without it (a cause's words) it is
    the user's to run."""
    if made is not None:
        operations, note, why = list(made.operations), made.note, made.why_not
    else:  # words (a cause's host-side fix): the user's to run, never read back into commands
        operations, note, why = [], "", "a step in words: gpucheck runs only the fixes it wrote"
    if windows:
        return Step(
            cause,
            status,
            summary,
            fix,
            (),
            note,
            "gpucheck fix runs package steps on Linux and macOS",
        )
    outside = next(
        (a for op in operations for a in op.args if a.split("=")[0] in OUTSIDE_OPTIONS), None
    )
    if outside:
        why = f"{outside} installs into a folder outside the environment gpucheck fix restores"
        operations = []
    return Step(cause, status, summary, fix, tuple(operations), note, why)
