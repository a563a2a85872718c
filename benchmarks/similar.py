"""Leave-one-thread-out accuracy of similar solved reports, of the rules, and of both together.

    python benchmarks/similar.py [--threshold X] [--sweep] [--verbose]

Every report of the knowledge base (src/tf_gpucheck/knowledge/reports) is explained with itself
left out of the index: its cause predicted from the other threads. Printed per cause and overall:
rules alone (`gpucheck explain` without retrieval), retrieval alone (the likely cause of the
matches above the threshold), both (what `explain` does), the abstention rate of retrieval,
false alarms on the harmless-noise reports, and the time per report. `--sweep` prints the
overall figures for a range of thresholds.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict

from tf_gpucheck import similar
from tf_gpucheck.explain import explain
from tf_gpucheck.matrix import load_matrix


def run(threshold: float, *, verbose: bool = False, per_cause: bool = True) -> None:
    matrix = load_matrix()
    reports = similar.load_reports()
    stats: dict[str, Counter[str]] = defaultdict(Counter)
    misses: list[str] = []
    noise = Counter[str]()
    start = time.perf_counter()
    for report in reports:
        rules = explain(report.text, matrix, similar=False)
        both = explain(report.text, matrix, exclude=report.url, threshold=threshold)
        query = similar.text_tokens(report.text)
        matches = similar.similar(query, exclude=report.url, threshold=threshold)
        retrieval, _ = similar.likely_cause(matches)
        if report.noise:
            noise["total"] += 1
            noise["rules"] += rules.report.verdict.value != "ok"
            noise["both"] += both.report.verdict.value != "ok"
            noise["retrieval"] += bool(matches) and retrieval is not None
            continue
        row = stats[report.cause or ""]
        row["total"] += 1
        first_rules = rules.report.first_fix.cause if rules.report.first_fix else None
        first_both = both.report.first_fix.cause if both.report.first_fix else None
        row["rules"] += first_rules == report.cause
        row["retrieval"] += retrieval == report.cause
        row["abstained"] += not matches
        row["both"] += first_both == report.cause
        if first_both != report.cause:
            misses.append(f"{report.cause:28} -> {first_both}  {report.url}")
    elapsed = time.perf_counter() - start
    total = Counter[str]()
    for row in stats.values():
        total.update(row)
    if per_cause:
        print(f"{'cause':32} {'n':>4} {'rules':>6} {'retr.':>6} {'both':>6}")
        for cause, row in sorted(stats.items(), key=lambda kv: -kv[1]["total"]):
            n = row["total"]
            print(
                f"{cause:32} {n:>4} {row['rules'] / n:>6.0%} {row['retrieval'] / n:>6.0%} "
                f"{row['both'] / n:>6.0%}"
            )
    n = total["total"]
    print(
        f"threshold {threshold:.2f}: {n} confirmed reports: rules alone {total['rules'] / n:.1%}, "
        f"retrieval alone {total['retrieval'] / n:.1%} (abstains on {total['abstained'] / n:.0%}), "
        f"both {total['both'] / n:.1%}; harmless noise ({noise['total']}): false alarms rules "
        f"{noise['rules']}, retrieval {noise['retrieval']}, both {noise['both']}; "
        f"{elapsed / max(len(reports), 1) * 1000:.0f} ms per report"
    )
    if verbose:
        print("\n".join(sorted(misses)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threshold", type=float, default=similar.THRESHOLD)
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    if args.sweep:
        for threshold in (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5):
            run(threshold, per_cause=False)
        return 0
    run(args.threshold, verbose=args.verbose)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
