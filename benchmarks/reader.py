"""How often `gpucheck explain` names the cause a real, solved report settled on, measured on
reports nothing was fitted to.

    python benchmarks/reader.py [--folds]

Needs scikit-learn (to fit the reader's model on one side of each split, as
scripts/train_reader.py fits the shipped one). Two measures, with titles (as `explain --title`):

- **the seventh sample** (benchmarks/samples/seventh, 269 reports gathered 2026-12-01 from
  sources the knowledge base does not name): the model fitted on every other labelled report;
  explain with and without it, and explain as it was before the model (BM25 similar reports);
- with ``--folds``, **by source** over every labelled report: 5 folds over repositories and
  sites (none on both sides), the model fitted on four, explain measured on the fifth, per
  family (TF 2.16-2.21, the languages, the TensorFlow tracker, downstream and infrastructure).
  The log rules were written from the knowledge base's own reports, so these figures flatter
  the rules on the knowledge base's folds; the seventh sample is the clean one.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import train_reader as training  # type: ignore[import-not-found]  # noqa: E402

from tf_gpucheck.explain import explain  # noqa: E402
from tf_gpucheck.matrix import load_matrix  # noqa: E402
from tf_gpucheck.reading import textmodel  # noqa: E402

SEVENTH = ROOT / "benchmarks" / "samples" / "seventh"


def judged(report: dict[str, Any], matrix: Any, model: object) -> tuple[str, str]:
    """(the first cause explain names, or "noise" when it says nothing to fix; the verdict)."""
    result = explain(
        report["text"], matrix, exclude=report["url"], title=report.get("title"), model=model
    )
    first = result.report.first_fix
    verdict = result.report.verdict.value
    if verdict == "ok" and (first is None or first.status.value == "info"):
        return "noise", verdict
    return (first.cause or "noise") if first else "noise", verdict


def fitted(reports: list[dict[str, Any]], features: list[list[str]], c: float) -> textmodel.Model:
    x = training.matrix([textmodel.counts(f) for f in features])
    model = training.fit(x, [training.label(r) for r in reports], c, 0)
    return textmodel.from_data(training.to_data(model, 0.35, 60000, "a fold"))


def score(
    reports: list[dict[str, Any]], matrix: Any, model: object
) -> tuple[Counter[str], Counter[str], int, int]:
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    alarms = noise = 0
    for report in reports:
        said, verdict = judged(report, matrix, model)
        if report.get("noise"):
            noise += 1
            alarms += verdict != "ok"
            continue
        name = training.family(report)
        total[name] += 1
        right[name] += said == report["cause"]
    return right, total, alarms, noise


def show(title: str, result: tuple[Counter[str], Counter[str], int, int]) -> None:
    right, total, alarms, noise = result
    every = sum(total.values())
    print(f"\n{title}")
    for name in sorted(total):
        print(f"  {name:22} {right[name]:4} / {total[name]:<4} {right[name] / total[name]:.0%}")
    print(
        f"  {'all confirmed':22} {sum(right.values()):4} / {every:<4} {sum(right.values()) / max(every, 1):.0%}"
    )
    print(f"  {'noise, false alarms':22} {alarms:4} / {noise}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", action="store_true")
    parser.add_argument("--c", type=float, default=8.0)
    args = parser.parse_args()
    matrix = load_matrix()
    reports = training.load(training.CORPUS)
    features = [training.featurize(r) for r in reports]
    fresh = [i for i, r in enumerate(reports) if r["file"].startswith("benchmarks/samples/seventh")]
    rest = [i for i in range(len(reports)) if i not in set(fresh)]
    model = fitted([reports[i] for i in rest], [features[i] for i in rest], args.c)
    sample = [reports[i] for i in fresh]
    show(
        "the seventh sample, explain without the model (rules, stated facts)",
        score(sample, matrix, textmodel.OFF),
    )
    show(
        "the seventh sample, explain with the model fitted on the other reports",
        score(sample, matrix, model),
    )
    if args.folds:
        from sklearn.model_selection import GroupKFold

        groups = [training.group(r) for r in reports]
        right: Counter[str] = Counter()
        total: Counter[str] = Counter()
        alarms = noise = 0
        for train, test in GroupKFold(n_splits=5).split(features, groups=groups):
            fold = fitted([reports[i] for i in train], [features[i] for i in train], args.c)
            r, t, a, n = score([reports[i] for i in test], matrix, fold)
            right += r
            total += t
            alarms += a
            noise += n
        show(
            "every labelled report, 5 folds by source (the model fitted on the other folds)",
            (right, total, alarms, noise),
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
