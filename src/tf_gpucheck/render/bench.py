"""`gpucheck benchmark`: results as a table, a bar chart and a verdict."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tf_gpucheck.bench import (
    BACKEND_NAMES,
    NOISY_CV,
    BenchReport,
    BenchResult,
    run_label,
    sweep_summary,
)

BAR_WIDTH = 40


def _seconds(value: float | None) -> str:
    if value is None:
        return "—"
    if value >= 1:
        return f"{value:.2f}s"
    return f"{value * 1e3:.0f}ms" if value >= 0.01 else f"{value * 1e3:.2f}ms"


def _rate(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value / 1000:.1f}k" if value >= 10_000 else f"{value:,.0f}"


def _who(report: BenchReport, r: BenchResult) -> str:
    """ "cpu", or "jax cpu" when the plan has a backend other than TensorFlow."""
    if report.plan.backends == ("tensorflow",):
        return r.device
    return f"{r.backend} {r.device}"


def render_report(report: BenchReport) -> RenderableType:
    table = Table(box=None, pad_edge=False, header_style="muted")
    for column in (
        "run",
        "batch",
        "samples/s",
        "range",
        "CV",
        "step",
        "1st step",
        "GFLOP/s",
        "%peak",
    ):
        table.add_column(column, no_wrap=True, justify="left" if column == "run" else "right")
    unavailable = []
    for r in report.results:
        if r.status != "ok":
            unavailable.append(r)
            continue
        cv = Text(f"{r.cv:.0%}", style="warn" if r.cv is not None and r.cv > NOISY_CV else "")
        if r.workload == "matmul":
            n = r.extra.get("matmul_n")
            table.add_row(
                f"{_who(report, r)} matmul",
                f"n={n}",
                "",
                "",
                cv,
                _seconds(r.step_time_s),
                _seconds(r.first_step_s),
                f"{r.gflops:,.0f}",
                "peak",
            )
            continue
        label = f"{_who(report, r)} {r.workload}"
        if r.extra.get("strategy"):
            label += f" mirrored x{r.extra.get('replicas')}"
        table.add_row(
            label,
            str(r.batch_size),
            _rate(r.samples_per_s),
            f"{_rate(r.samples_per_s_min)}-{_rate(r.samples_per_s_max)}",
            cv,
            _seconds(r.step_time_s),
            _seconds(r.first_step_s),
            f"{r.gflops:,.0f}" if r.gflops is not None else "—",
            f"{r.share_of_ceiling:.0%}" if r.share_of_ceiling is not None else "—",
        )
    parts: list[RenderableType] = [table]
    skipped = dict.fromkeys((r.backend, r.reason) for r in unavailable if r.status == "skipped")
    for backend, reason in skipped:
        parts.append(Text(f"{backend}: skipped: {reason}", style="warn"))
    reasons: dict[tuple[str, str | None], list[str]] = {}
    for r in unavailable:
        if r.status != "skipped":
            backends = reasons.setdefault((r.device, r.reason), [])
            if r.backend not in backends:
                backends.append(r.backend)
    for (device, reason), backends in reasons.items():
        same_for_all = len(backends) > 1 or report.plan.backends == ("tensorflow",)
        who = device if same_for_all else f"{backends[0]} {device}"
        parts.append(Text(f"{who}: not run: {reason}", style="warn"))
    return Group(*parts, Text(""), _chart(report), Text(""), _verdict(report))


def _chart(report: BenchReport) -> RenderableType:
    ok = [
        r
        for r in report.results
        if r.status == "ok"
        and r.workload != "matmul"
        and r.samples_per_s
        and not r.extra.get("sweep")
        and not r.extra.get("strategy")
    ]
    lines = Table.grid(padding=(0, 1))
    lines.add_column(no_wrap=True)
    lines.add_column(no_wrap=True)
    lines.add_column(no_wrap=True, justify="right")
    for workload in dict.fromkeys(r.workload for r in ok):
        rows = [r for r in ok if r.workload == workload]
        top = max(r.samples_per_s or 0 for r in rows)
        for r in rows:
            width = max(1, round(BAR_WIDTH * (r.samples_per_s or 0) / top))
            bar = Text("█" * width, style="ok" if r.device == "gpu" else "info")
            lines.add_row(
                f"{workload:>4} {_who(report, r)}", bar, f"{_rate(r.samples_per_s)} samples/s"
            )
    return lines


def _verdict(report: BenchReport) -> RenderableType:
    parts: list[RenderableType] = []
    several = report.plan.backends != ("tensorflow",)
    for s in report.speedups:
        on = f" on {BACKEND_NAMES.get(s.backend, s.backend)}" if several else ""
        does = "multiplies matrices" if s.workload == "matmul" else "trains"
        measure = " in GFLOP/s" if s.workload == "matmul" else ""
        parts.append(
            Text(
                f"{s.workload}: the GPU {does} {s.median:.1f}x faster than the CPU{on}{measure} "
                f"(range {s.low:.1f}x-{s.high:.1f}x over the timed windows)",
                style="heading",
            )
        )
    for ranking in report.rankings:
        side_by_side = ", ".join(
            f"{BACKEND_NAMES.get(b, b)} {_rate(rate)}"
            for b, rate in zip(ranking.backends, ranking.samples_per_s, strict=True)
        )
        ratio = ranking.samples_per_s[0] / ranking.samples_per_s[1]
        fastest = BACKEND_NAMES.get(ranking.fastest, ranking.fastest)
        verdict = (
            f"{fastest} is fastest, {ratio:.2f}x the next"
            if ranking.clear
            else f"{fastest} leads by {ratio:.2f}x, within the windows' spread"
        )
        parts.append(
            Text(
                f"{ranking.device} {ranking.workload}: {side_by_side} samples/s: {verdict}",
                style="heading",
            )
        )
    if report.gpu_reason is not None and "gpu" in report.plan.devices:
        # the reason was said where the GPU's row is: once is enough
        said = any(
            r.device == "gpu" and r.status != "ok" and r.reason == report.gpu_reason
            for r in report.results
        )
        why = "said above" if said else report.gpu_reason
        parts.append(
            Text(
                f"no GPU speedup: the GPU did not run ({why}). The CPU figures stand on their own.",
                style="muted",
            )
        )
    for r in report.results:
        if r.status == "ok" and r.bound == "input":
            pipeline = r.extra.get("input_pipeline") or "the tf.data pipeline"
            parts.append(
                Text(
                    f"{run_label(r, report.plan)}: input-bound: {pipeline} alone delivers "
                    f"{_rate(r.input_samples_per_s)} samples/s",
                    style="warn",
                )
            )
    for r in report.results:
        if r.status == "ok" and r.extra.get("strategy"):
            parts.append(
                Text(
                    f"{run_label(r, report.plan)}: MirroredStrategy on {r.extra.get('replicas')} devices reaches "
                    f"{r.extra.get('scaling_efficiency', 0):.0%} of perfect scaling over one device"
                )
            )
    summaries, crossover = sweep_summary(report.results)
    for summary in summaries:
        where = (
            f"stops growing after batch {summary.saturates_at}"
            if summary.saturates_at
            else "still grows at the largest batch"
        )
        prefix = f"{summary.backend}/" if several else ""
        parts.append(Text(f"sweep {prefix}{summary.device}/{summary.workload}: throughput {where}"))
    for (backend, workload), batch in crossover.items():
        prefix = f"{backend} " if several else ""
        parts.append(
            Text(
                f"sweep {prefix}{workload}: "
                + (
                    f"the GPU overtakes the CPU from batch {batch}"
                    if batch
                    else "the GPU never overtakes the CPU in this range"
                )
            )
        )
    if report.noisy:
        parts.append(
            Text(
                f"noisy run (CV above {NOISY_CV:.0%}): {', '.join(report.noisy)}; close other programs "
                "or raise --steps / --repeats",
                style="warn",
            )
        )
    parts.append(
        Text(
            "first step = tracing and compilation, excluded from throughput; "
            "GFLOP/s from the model's analytic FLOP count (training = 3x forward)",
            style="muted",
        )
    )
    return Group(*parts)
