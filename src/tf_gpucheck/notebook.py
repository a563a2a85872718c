"""``tf_gpucheck.doctor()`` and ``tf_gpucheck.detect()``: the diagnosis from Python, made for
notebooks.

Both probe like the CLI (TensorFlow only in a child process of the interpreter diagnosed, so a
TensorFlow crash never takes the notebook down) and add what only the kernel's own process
knows (:mod:`tf_gpucheck.probes.kernel`: the ``pip`` that ``!pip`` runs, the TensorFlow already
imported). The results display as HTML in Jupyter, JupyterLab, VS Code and Colab
(``_repr_html_``) and as text anywhere else; fixes that install are written with ``%pip``,
which installs into the kernel's own interpreter.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tf_gpucheck.checks.findings import Finding, Report, Status
from tf_gpucheck.snapshot import Snapshot

if TYPE_CHECKING:
    from tf_gpucheck.probes import LiveProbes


def _probes(python: str | None) -> tuple[LiveProbes, Callable[[Snapshot], Snapshot]]:
    """The probes of the kernel's environment (or ``python``'s), and what the kernel adds."""
    from tf_gpucheck.probes import LiveProbes
    from tf_gpucheck.probes.kernel import probe_kernel
    from tf_gpucheck.target import choose_target, own_target

    # in a kernel, the environment is the kernel's own (never VIRTUAL_ENV of the shell that
    # started Jupyter): that is where the notebook's imports come from
    target = choose_target(python) if python else own_target()

    def with_kernel(snapshot: Snapshot) -> Snapshot:
        kernel = probe_kernel()
        if kernel is not None and target.is_own:
            return dataclasses.replace(snapshot, kernel=kernel)
        return snapshot

    return LiveProbes(target), with_kernel


def _snapshot(python: str | None, tf: bool, timeout: float) -> Snapshot:
    from tf_gpucheck.probes import collect_snapshot

    probes, with_kernel = _probes(python)
    return with_kernel(collect_snapshot(probes, include_tensorflow=tf, timeout_s=timeout))


@dataclass(frozen=True)
class DoctorResult:
    """doctor's report: ``verdict``, ``first_fix``, ``findings``, ``causes``, ``exit_code``;
    HTML in a notebook, text in a terminal."""

    report: Report
    snapshot: Snapshot

    @property
    def verdict(self) -> Status:
        return self.report.verdict

    @property
    def exit_code(self) -> int:
        return self.report.exit_code

    @property
    def first_fix(self) -> Finding | None:
        return self.report.first_fix

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.report.findings

    @property
    def gpu_usable(self) -> bool:
        return self.report.gpu_usable

    def _repr_html_(self) -> str:
        from tf_gpucheck.render.html import report_to_html

        return report_to_html(self.report, self.snapshot)

    def __str__(self) -> str:
        from tf_gpucheck.render.doctor import render_report
        from tf_gpucheck.render.format import target_header
        from tf_gpucheck.render.html import plain

        return plain(render_report(self.report, header=target_header(self.snapshot.target, None)))

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        printer.text(str(self))  # type: ignore[attr-defined]


@dataclass(frozen=True)
class DetectResult:
    """What is here (the snapshot); HTML in a notebook, text in a terminal."""

    snapshot: Snapshot

    def _repr_html_(self) -> str:
        from tf_gpucheck.render.html import snapshot_to_html

        return snapshot_to_html(self.snapshot)

    def __str__(self) -> str:
        from tf_gpucheck.render.detect import render_snapshot
        from tf_gpucheck.render.html import plain

        return plain(render_snapshot(self.snapshot))

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:
        printer.text(str(self))  # type: ignore[attr-defined]


def doctor(
    python: str | None = None,
    *,
    tf: bool = True,
    allow_cpu: bool = False,
    checks: Sequence[str] | None = None,
    timeout: float = 120.0,
) -> DoctorResult:
    """Run every check on the kernel's environment (or ``python``'s) and return the report."""
    from tf_gpucheck.examine import examine

    probes, with_kernel = _probes(python)
    done = examine(
        probes, tf=tf, timeout_s=timeout, checks=checks, allow_cpu=allow_cpu, amend=with_kernel
    )
    return DoctorResult(done.report, done.snapshot)


def detect(python: str | None = None, *, tf: bool = True, timeout: float = 120.0) -> DetectResult:
    """What is here: driver, GPUs, CUDA libraries, TensorFlow, where it runs, the kernel."""
    return DetectResult(_snapshot(python, tf, timeout))
