"""HTML for notebooks (Jupyter, JupyterLab, VS Code, Colab): doctor's report and detect's facts.

Self-contained (inline styles, no script), readable on light and dark themes. A fix is a
``<pre>`` block of its own: never wrapped or folded, so what is copied is what runs.
"""

from __future__ import annotations

import html
import io

from rich.console import Console, RenderableType

from tf_gpucheck.checks.findings import Report, Status
from tf_gpucheck.snapshot import Snapshot

_COLORS = {
    Status.OK: "#1a7f37",
    Status.WARN: "#9a6700",
    Status.FAIL: "#cf222e",
    Status.SKIP: "#6e7781",
    Status.INFO: "#0969da",
}
_BOX = (
    "font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; font-size: 13px; "
    "line-height: 1.45; max-width: 1000px"
)
_PRE = (
    "white-space: pre; overflow-x: auto; margin: 4px 0 8px 0; padding: 6px 8px; "
    "border-radius: 4px; background: rgba(127,127,127,0.12); font-size: 12px"
)
_MUTED = "opacity: 0.7"


def plain(renderable: RenderableType) -> str:
    """A Rich renderable as plain text (no colour), for ``print()`` and ``str()``."""
    from tf_gpucheck.render.console import THEME, emit

    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=100,
        color_system=None,
        force_terminal=False,
        force_jupyter=False,  # in a kernel, Rich would display HTML itself instead of writing
        theme=THEME,
    )
    emit(console, renderable)
    return buffer.getvalue().rstrip("\n")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _badge(status: Status) -> str:
    return (
        f'<span style="display:inline-block;min-width:3.2em;text-align:center;font-weight:600;'
        f'color:#fff;background:{_COLORS[status]};border-radius:3px;padding:0 4px">'
        f"{_e(status.value.upper())}</span>"
    )


def _command(command: str) -> str:
    return f'<pre style="{_PRE}"><code>{_e(command)}</code></pre>'


def report_to_html(report: Report, snapshot: Snapshot) -> str:
    first = report.first_fix
    out = [f'<div class="tf-gpucheck-report" style="{_BOX}">']
    headline = (
        first.summary
        if first is not None
        else (
            "every check passed: TensorFlow can use the GPU"
            if report.gpu_usable
            else "no problem found"
        )
    )
    out.append(
        f'<div style="font-size:15px;margin-bottom:4px">{_badge(report.verdict)} '
        f"<b>{_e(headline)}</b></div>"
    )
    target = snapshot.target
    out.append(
        f'<div style="{_MUTED}">diagnosing {_e(target.prefix or target.python_executable)} '
        f"(gpucheck {_e(snapshot.gpucheck_version)})</div>"
    )
    if first is not None:
        if first.cause:
            out.append(
                f'<div style="{_MUTED}">cause: <code>{_e(first.cause)}</code> (check '
                f"<code>{_e(first.check)}</code>)</div>"
            )
        if first.fix:
            out.append("<div><b>first fix</b></div>" + _command(first.fix))
    others = [
        c
        for c in report.causes
        if c.status in (Status.FAIL, Status.WARN)
        and (first is None or c.code != first.cause)
        and not c.explained_by
    ]
    if others:
        out.append("<div><b>then</b></div><ul style='margin:2px 0 8px 18px;padding:0'>")
        for cause in others:
            out.append(
                f"<li>{_badge(cause.status)} {_e(cause.summary)} <code>{_e(cause.code)}</code>"
                + (_command(cause.fix) if cause.fix else "")
                + "</li>"
            )
        out.append("</ul>")
    for note in report.notes:
        out.append(f'<div style="{_MUTED}">note: {_e(note)}</div>')
    out.append(
        '<details><summary>every check</summary><table style="border-collapse:collapse;'
        'margin-top:4px">'
    )
    for finding in report.findings:
        out.append(
            f"<tr><td style='padding:1px 6px 1px 0;vertical-align:top'>{_badge(finding.status)}</td>"
            f"<td style='padding:1px 8px 1px 0;vertical-align:top'><code>{_e(finding.check)}</code></td>"
            f"<td style='padding:1px 0'>{_e(finding.summary)}</td></tr>"
        )
    out.append("</table></details></div>")
    return "".join(out)


def snapshot_to_html(snapshot: Snapshot) -> str:
    rows: list[tuple[str, str]] = []
    system, tf, nvml = snapshot.system, snapshot.tensorflow, snapshot.nvml
    rows.append(("Python", f"{system.python_version or '?'} ({system.python_executable})"))
    rows.append(("system", f"{system.os_pretty_name or system.os} {system.arch}"))
    if tf.version:
        info = tf.build_info or {}
        built = ", ".join(
            f"{label} {info[key]}"
            for label, key in (("CUDA", "cuda_version"), ("cuDNN", "cudnn_version"))
            if info.get(key)
        )
        gpus = len(tf.physical_devices) if tf.probed else None
        rows.append(
            (
                "TensorFlow",
                f"{tf.version}" + (f" built with {built}" if built else "")
                + (f"; sees {gpus} GPU(s)" if gpus is not None else ""),
            )
        )  # fmt: skip
    else:
        rows.append(("TensorFlow", "not imported" if not tf.probed else "not found"))
    if nvml.available:
        names = ", ".join(g.name or "?" for g in nvml.gpus) or "no GPU"
        rows.append(
            ("NVIDIA driver", f"{nvml.driver_version} (CUDA {nvml.cuda_driver_version}): {names}")
        )
    else:
        rows.append(("NVIDIA driver", nvml.error or "not found"))
    place = snapshot.place
    if place is not None:
        where = [w for w in (place.container, "Kubernetes" if place.kubernetes else None,
                             f"SLURM job {place.slurm_job}" if place.slurm_job else None,
                             place.notebook, place.ci) if w]  # fmt: skip
        rows.append(("where it runs", ", ".join(where) or "this machine"))
    kernel = snapshot.kernel
    if kernel is not None:
        rows.append(("kernel", f"{kernel.shell}: {kernel.python}"))
        rows.append(("!pip runs", kernel.path_pip_python or kernel.path_pip or "no pip on PATH"))
    body = "".join(
        f"<tr><td style='padding:1px 10px 1px 0;vertical-align:top'><b>{_e(k)}</b></td>"
        f"<td>{_e(v)}</td></tr>"
        for k, v in rows
    )
    return f'<div class="tf-gpucheck-detect" style="{_BOX}"><table>{body}</table></div>'
