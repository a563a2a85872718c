"""How often `gpucheck explain` names the cause a real, solved public report settled on.

    python benchmarks/reports.py [PATH ...] [--verbose] [--title] [--doctor]

Reads the labelled real reports (by default the knowledge base shipped with the package,
src/tf_gpucheck/knowledge/reports/*.yaml: each entry is a public thread with the text people
pasted and the cause the thread settled on) and explains each text as `gpucheck explain` would.
Prints, per cause and overall, how often the first cause is the labelled one, how many confirmed
failures were answered "ok" (nothing to fix); for the
harmless-noise reports, how often the verdict stayed ok (no false alarm). `--verbose` lists
every miss with its URL. `--title` reads each report's title with its text (as `explain --title`
does). `--doctor` asks doctor instead: a snapshot of only what the text states, with the text as
the program's log (`doctor --log`), judged by `run_checks`. Each report's own thread is left out of the similar solved reports
(leave-one-thread-out), so a report never finds itself.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

from tf_gpucheck.explain import explain
from tf_gpucheck.matrix import load_matrix

DEFAULT = Path(__file__).resolve().parents[1] / "src" / "tf_gpucheck" / "knowledge" / "reports"


def load_reports(paths: list[Path]) -> list[dict[str, Any]]:
    files: list[Path] = []
    for path in paths:
        files += sorted(path.glob("*.yaml")) if path.is_dir() else [path]
    reports: list[dict[str, Any]] = []
    for file in files:
        for entry in yaml.safe_load(file.read_text(encoding="utf-8")) or []:
            entry["file"] = file.stem
            reports.append(entry)
    return reports


def first_cause(
    text: str, matrix: Any, url: str, title: str | None = None
) -> tuple[str | None, str]:
    # the report's own thread is left out of the similar reports: leave-one-thread-out
    result = explain(text, matrix, exclude=url, title=title)
    first = result.report.first_fix
    return (first.cause if first else None), result.report.verdict.value


def doctor_first_cause(
    text: str, matrix: Any, url: str, title: str | None = None
) -> tuple[str | None, str]:
    """doctor, given the facts the text states and the text as its program's log."""
    from tf_gpucheck.checks import run_checks
    from tf_gpucheck.checks.statedsnapshot import stated_snapshot
    from tf_gpucheck.reading import logscan, textfacts, textlines

    if title:
        text = f"{title}\n\n{text}"
    lines = logscan.rejoin(textlines.normalise(text))
    snapshot = stated_snapshot(textfacts.extract(lines), matrix)
    report = run_checks(snapshot, matrix, logs=[("--log report.txt", lines)], similar_exclude=url)
    first = report.first_fix
    return (first.cause if first else None), report.verdict.value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[DEFAULT])
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument("--title", action="store_true", help="read each title with its text")
    parser.add_argument("--doctor", action="store_true", help="ask doctor --log instead")
    args = parser.parse_args()
    judge = doctor_first_cause if args.doctor else first_cause
    matrix = load_matrix()
    reports = load_reports(args.paths)
    if not reports:
        print("no reports found", file=sys.stderr)
        return 2
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    misses: dict[str, list[str]] = defaultdict(list)
    noise_total = noise_alarms = silent = 0
    start = time.perf_counter()
    for report in reports:
        title = report.get("title") if args.title else None
        got, verdict = judge(report["text"], matrix, report["url"], title)
        if report.get("noise"):
            noise_total += 1
            if verdict != "ok":
                noise_alarms += 1
                misses["(noise)"].append(f"{report['url']}  -> {got} [{verdict}]")
            continue
        label = report["cause"]
        total[label] += 1
        silent += verdict == "ok"
        if got == label:
            right[label] += 1
        else:
            misses[label].append(f"{report['url']}  -> {got}")
    elapsed = time.perf_counter() - start
    confirmed = sum(total.values())
    print(f"{'cause':34} {'right':>5} / {'of':<4} share")
    for cause in sorted(total, key=lambda c: (-total[c], c)):
        print(f"{cause:34} {right[cause]:>5} / {total[cause]:<4} {right[cause] / total[cause]:.0%}")
    print(
        f"\n{'all confirmed reports':34} {sum(right.values()):>5} / {confirmed:<4} "
        f"{sum(right.values()) / max(confirmed, 1):.0%}"
    )
    print(f"{'confirmed failures answered ok':34} {silent:>5} / {confirmed:<4}")
    print(f"{'harmless noise, false alarms':34} {noise_alarms:>5} / {noise_total:<4}")
    print(f"{len(reports)} reports explained in {elapsed:.2f} s")
    if args.verbose:
        for cause in sorted(misses):
            print(f"\n{cause}:")
            for line in misses[cause]:
                print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
