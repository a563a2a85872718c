"""What a report says as a whole: a linear model over its words, character n-grams, recognised
messages and stated facts, trained offline on the labelled solved reports
(``scripts/train_reader.py``), its weights shipped as data (``knowledge/reader_model.json``).

The rules know cited messages; a report that quotes none of them (versions in prose, a new GPU
in words, a story about memory) still says a lot in its words: this model reads those. It is
judged on reports from sources nothing was fitted to (benchmarks/reader.py) and gives a
probability per cause; below the calibrated threshold of its file, the reader says it cannot
tell.

Inference is plain Python (no NumPy: gpucheck never brings a NumPy into the environments it
diagnoses): features are hashed (CRC-32) into a fixed number of buckets; each bucket's weights
are read once per text.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tf_gpucheck import knowledge

BUCKETS = 1 << 18
"""Hashed feature space (the training script and this reader share it)."""

MAX_CHARS = 20_000
"""Characters of a text read for character n-grams (a report's head says what it is about)."""

_WORD = re.compile(r"[a-z][a-z0-9_.+-]*[a-z0-9]|[a-z]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")
_DIGITS = re.compile(r"\d+")


def _version_words(version: str | None, name: str) -> list[str]:
    if not version:
        return []
    parts = version.split(".")
    return [f"fact:{name}={parts[0]}", f"fact:{name}={'.'.join(parts[:2])}"]


def features(lines: Sequence[str], classified: Sequence[object], stated: object) -> list[str]:
    """The features of a text read by the reader: ``lines`` (normalised), their ``classified``
    rules, the ``stated`` facts (:class:`tf_gpucheck.reading.textfacts.StatedFacts`)."""
    out: list[str] = []
    for line in classified:
        rule = getattr(line, "rule", None)
        if rule is not None:
            out.append(f"rule:{rule.id}")
            if rule.cause:
                out.append(f"rulecause:{rule.cause}")
            out.append(f"rulekind:{rule.kind}")
    text = "\n".join(lines)[:MAX_CHARS].lower()
    words = _WORD.findall(_DIGITS.sub("0", text))
    out += [f"w:{w}" for w in words]
    out += [f"b:{a} {b}" for a, b in itertools.pairwise(words)]
    for run in _CJK.findall(text):  # languages written without spaces: their character pairs
        out += [f"c:{run[i : i + 2]}" for i in range(max(1, len(run) - 1))]
    squeezed = re.sub(r"\s+", " ", _DIGITS.sub("0", text))
    out += [f"g:{squeezed[i : i + 4]}" for i in range(max(0, len(squeezed) - 3))]
    tf_version = getattr(stated, "tf_version", None)
    out += _version_words(tf_version, "tf")
    out += _version_words(getattr(stated, "python_version", None), "py")
    out += _version_words(getattr(stated, "cuda_version", None), "cuda")
    out += _version_words(getattr(stated, "cudnn_version", None), "cudnn")
    out += _version_words(getattr(stated, "driver_version", None), "driver")
    for name in ("os", "place", "arch"):
        value = getattr(stated, name, None)
        if value:
            out.append(f"fact:{name}={str(value).lower()}")
    if getattr(stated, "is_wsl", None):
        out.append("fact:wsl")
    for _name, capability in getattr(stated, "gpus", ()) or ():
        if capability:
            out.append(f"fact:cc={capability.split('.')[0]}")
    for package, version in getattr(stated, "packages", ()) or ():
        out.append(f"fact:pkg={package}")
        out += _version_words(version, f"pkg:{package}")
    return out


def bucket(feature: str) -> int:
    return zlib.crc32(feature.encode("utf-8")) % BUCKETS


def counts(found: Sequence[str]) -> dict[int, float]:
    """Bucket -> sublinear count (1 + log n), L2-normalised: what the model was trained on."""
    raw: dict[int, int] = {}
    for feature in found:
        index = bucket(feature)
        raw[index] = raw.get(index, 0) + 1
    scaled = {k: 1.0 + math.log(v) for k, v in raw.items()}
    norm = math.sqrt(sum(v * v for v in scaled.values())) or 1.0
    return {k: v / norm for k, v in scaled.items()}


@dataclass(frozen=True)
class Model:
    classes: tuple[str, ...]
    """Cause codes; ``"noise"`` for harmless text."""
    intercept: tuple[float, ...]
    weights: dict[int, tuple[tuple[int, float], ...]]
    """bucket -> ((class index, weight), ...), the weights the training kept."""
    threshold: float
    """Below this probability the top cause is not said (calibrated on held-out reports)."""
    trained_on: str
    """Which reports, and how it was measured (the file's own words)."""
    margin: float = 1.0
    """Below this ratio of the top probability to the runner-up's, the two are named, not the
    top one alone (calibrated on held-out reports: there the top one is right under half the
    time)."""

    def probabilities(self, found: Sequence[str]) -> list[tuple[str, float]]:
        """Each cause with its probability, most likely first."""
        scores = list(self.intercept)
        for index, value in counts(found).items():
            for klass, weight in self.weights.get(index, ()):
                scores[klass] += weight * value
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return sorted(
            zip(self.classes, (e / total for e in exps), strict=True), key=lambda p: -p[1]
        )


OFF = object()
"""Pass as ``model`` to read without the model (rules and stated facts alone: to measure)."""


@functools.cache
def load() -> Model | None:
    """The shipped model; ``None`` when the package has none (a build without it)."""
    try:
        text = knowledge.read_text("reader_model.json")
    except (FileNotFoundError, OSError):
        return None
    return from_data(json.loads(text))


def from_data(data: dict[str, Any]) -> Model:
    """A model from the reader's file's data (``scripts/train_reader.py`` writes it)."""
    weights: dict[int, tuple[tuple[int, float], ...]] = {}
    for key, pairs in data["weights"].items():
        weights[int(key)] = tuple((int(k), float(w) / data["scale"]) for k, w in pairs)
    return Model(
        tuple(data["classes"]),
        tuple(float(b) for b in data["intercept"]),
        weights,
        float(data["threshold"]),
        str(data.get("trained_on", "")),
        float(data.get("margin", 1.0)),
    )
