"""Train the reader's model (src/tf_gpucheck/knowledge/reader_model.json) from the labelled
solved reports, and say how it does on reports it was not fitted to.

    python scripts/train_reader.py [--corpus PATH ...] [--evaluate-only] [--seed N]

Needs scikit-learn (a training-time tool only: `pip install scikit-learn`; gpucheck itself reads
the weights in plain Python). Reproducible: the same corpus and seed give the same file.

- The features are :func:`tf_gpucheck.reading.textmodel.features` of each report's title and
  text, read by the same reader `gpucheck explain` uses (no train/serve skew).
- The labels are the causes the threads settled on (``noise`` for harmless text).
- Held out, by source: the reports are grouped by repository (GitHub owner/name) or site, and
  the model is measured by 5-fold cross-validation over those groups (no group on both sides);
  the threshold below which the reader says it cannot tell is chosen on those held-out
  predictions (the lowest probability at which the held-out top cause is right at least
  ``--precision`` of the time), and so is the margin: the ratio of the top cause's probability
  to the runner-up's below which the held-out top cause, above the threshold, is right less
  than half the time (there the reader names both). The figures printed are those held-out
  ones, per family.
- The shipped model is then fitted on every report.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tf_gpucheck.reading import logscan, textfacts, textlines, textmodel  # noqa: E402

CORPUS = [
    ROOT / "src" / "tf_gpucheck" / "knowledge" / "reports",
    ROOT / "benchmarks" / "samples" / "sixth_sample.yaml",
    *(
        ROOT / "benchmarks" / "samples" / name
        for name in (
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
            "twentieth",
            "twentyfirst",
        )
    ),
]
"""Every labelled report: the knowledge base and the samples, each sample added once it was
measured held out (benchmarks/samples/*/README.md)."""
HELD_OUT = ("fourteenth", "twentysecond", "twentythird", "twentyfourth")
"""Samples kept out of training: gathered to be measured on reports nothing was fitted to."""
OUT = ROOT / "src" / "tf_gpucheck" / "knowledge" / "reader_model.json"


def load(paths: list[Path]) -> list[dict[str, Any]]:
    files: list[Path] = []
    for path in paths:
        files += sorted(path.glob("*.yaml")) if path.is_dir() else [path]
    reports = []
    for file in files:
        for entry in yaml.safe_load(file.read_text(encoding="utf-8")) or []:
            if entry.get("cause") == "other" and not entry.get("noise"):
                continue  # settled on a cause no code names: nothing for the reader to learn
            entry["file"] = str(file.relative_to(ROOT))
            reports.append(entry)
    return reports


def label(report: dict[str, Any]) -> str:
    return "noise" if report.get("noise") else str(report["cause"])


def group(report: dict[str, Any]) -> str:
    """The source family: a GitHub repository, else the site."""
    url = str(report["url"])
    match = re.match(r"https?://github\.com/([^/]+)/([^/]+)", url)
    if match:
        return f"{match.group(1)}/{match.group(2)}".lower()
    host = re.match(r"https?://([^/]+)", url)
    return host.group(1).lower() if host else url


def family(report: dict[str, Any]) -> str:
    """How the figures are broken down: recent TensorFlow, language, tracker or elsewhere."""
    text = f"{report.get('title') or ''}\n{report['text']}"
    if report.get("lang") not in (None, "en") or re.search(
        r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", text
    ):
        return "languages"
    tf = str(report.get("tf") or "")
    minor = re.match(r"2\.(\d+)", tf)
    if minor and int(minor.group(1)) >= 16:
        return "tf 2.16-2.21"
    return "tensorflow tracker" if group(report) == "tensorflow/tensorflow" else "downstream/infra"


def featurize(report: dict[str, Any]) -> list[str]:
    title = (report.get("title") or "").strip()
    text = f"{title}\n\n{report['text']}" if title else str(report["text"])
    lines = logscan.rejoin(textlines.normalise(text))
    classified = logscan.classify(lines)
    stated = textfacts.extract(lines)
    return textmodel.features(lines, classified, stated)


def matrix(rows: list[dict[int, float]]) -> Any:
    from scipy.sparse import csr_matrix

    data, indices, indptr = [], [], [0]
    for row in rows:
        for key, value in sorted(row.items()):
            indices.append(key)
            data.append(value)
        indptr.append(len(indices))
    return csr_matrix((data, indices, indptr), shape=(len(rows), textmodel.BUCKETS))


def fit(x: Any, y: list[str], c: float, seed: int) -> Any:
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=3000, class_weight="balanced", random_state=seed)
    model.fit(x, y)
    return model


def margin_of(held: list[tuple[bool, float, float]], threshold: float) -> float:
    """The ratio of the top probability to the runner-up's below which the held-out top cause,
    of those said at or above ``threshold`` (``held``: right or not, top, runner-up), is right
    less than half the time: there the top two are a coin toss, and the reader names both. It
    is the next tenth above the largest ratio up to which the top cause is right under half the
    time (1.0, no margin, where it never is)."""
    said = sorted((p / max(q, 1e-9), right) for right, p, q in held if p >= threshold)
    margin, hits = 1.0, 0
    for count, (ratio, right) in enumerate(said, start=1):
        hits += right
        if hits / count < 0.5:
            margin = math.floor(ratio * 10 + 1) / 10
    return margin


def to_data(
    model: Any, threshold: float, keep: int, trained_on: str, margin: float = 1.0
) -> dict[str, Any]:
    """A fitted model as the reader's file: the ``keep`` largest weights, as integers."""
    coefficients = model.coef_
    flat = [
        (abs(float(coefficients[k, j])), j, k)
        for k in range(coefficients.shape[0])
        for j in coefficients[k].nonzero()[0]
    ]
    flat.sort(reverse=True)
    scale = 1000
    weights: dict[str, list[list[int]]] = defaultdict(list)
    for _magnitude, j, k in flat[:keep]:
        weights[str(int(j))].append([int(k), round(float(coefficients[k, j]) * scale)])
    return {
        "trained_on": trained_on,
        "classes": [str(c) for c in model.classes_],
        "intercept": [round(float(b), 4) for b in model.intercept_],
        "threshold": round(threshold, 4),
        "margin": round(margin, 2),
        "scale": scale,
        "weights": dict(sorted(weights.items(), key=lambda kv: int(kv[0]))),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, nargs="*", default=CORPUS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--c", type=float, default=8.0, help="inverse regularisation strength")
    parser.add_argument("--precision", type=float, default=0.7)
    parser.add_argument("--keep", type=int, default=60000, help="largest weights kept")
    parser.add_argument("--evaluate-only", action="store_true")
    args = parser.parse_args()
    from sklearn.model_selection import GroupKFold

    reports = load(args.corpus)
    rows = [textmodel.counts(featurize(r)) for r in reports]
    labels = [label(r) for r in reports]
    groups = [group(r) for r in reports]
    x = matrix(rows)
    held: list[tuple[str, float, float]] = [("", 0.0, 0.0)] * len(reports)
    folds = GroupKFold(n_splits=5)
    for train, test in folds.split(x, labels, groups):
        model = fit(x[train], [labels[i] for i in train], args.c, args.seed)
        probabilities = model.predict_proba(x[test])
        for row, index in enumerate(test):
            first, second = (int(k) for k in probabilities[row].argsort()[::-1][:2])
            held[index] = (
                str(model.classes_[first]),
                float(probabilities[row][first]),
                float(probabilities[row][second]),
            )
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for report, (said, _p, _q), truth in zip(reports, held, labels, strict=True):
        name = family(report)
        total[name] += 1
        right[name] += said == truth
    everyone = sum(total.values())
    print(f"held out by source (5 folds over {len(set(groups))} repositories and sites):")
    for name in sorted(total):
        print(f"  {name:22} {right[name]:4} / {total[name]:<4} {right[name] / total[name]:.0%}")
    print(
        f"  {'all':22} {sum(right.values()):4} / {everyone:<4} {sum(right.values()) / everyone:.0%}"
    )
    # the threshold: the lowest probability above which the held-out top cause is right often enough
    pairs = sorted(
        ((p, said == truth) for (said, p, _q), truth in zip(held, labels, strict=True)),
        reverse=True,
    )
    threshold, hits = 1.0, 0
    for count, (probability, correct) in enumerate(pairs, start=1):
        hits += correct
        if hits / count >= args.precision:
            threshold = probability
    said_often = sum(1 for p, _c in pairs if p >= threshold)
    print(
        f"threshold {threshold:.3f}: above it {said_often} of {everyone} held-out reports, right "
        f"{sum(c for p, c in pairs if p >= threshold) / max(said_often, 1):.0%}"
    )
    margin = margin_of(
        [(said == truth, p, q) for (said, p, q), truth in zip(held, labels, strict=True)], threshold
    )
    print(f"margin {margin:.1f}: below it the top two are named")
    if args.evaluate_only:
        return 0
    model = fit(x, labels, args.c, args.seed)
    trained_on = (
        f"{len(reports)} labelled reports ({', '.join(str(p.relative_to(ROOT)) for p in args.corpus)}); "
        f"scripts/train_reader.py --seed {args.seed} --c {args.c} --keep {args.keep}; held out by "
        f"source: {sum(right.values())} of {everyone} right"
    )
    data = to_data(model, threshold, args.keep, trained_on, margin)
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(data['classes'])} classes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
