"""The reader's model: what a report says as a whole, where no rule knows its messages."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from typing import Any

import pytest
import yaml

from tests.paths import ROOT
from tf_gpucheck.explain import explain
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.reading import logscan, textfacts, textlines, textmodel

MATRIX = load_matrix()
SEVENTH = ROOT / "benchmarks" / "samples" / "seventh"
KNOWN = ROOT / "src" / "tf_gpucheck" / "knowledge" / "reports"


def _report(url: str) -> dict[str, object]:
    for path in (*sorted(SEVENTH.glob("*.yaml")), *sorted(KNOWN.glob("*.yaml"))):
        for entry in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            if entry["url"] == url:
                return dict(entry)
    raise AssertionError(url)


def test_the_shipped_model_loads_and_its_probabilities_are_a_distribution() -> None:
    model = textmodel.load()
    assert model is not None
    assert "noise" in model.classes
    assert 0 < model.threshold < 1
    lines = textlines.normalise(
        "ImportError: DLL load failed while importing _pywrap_tensorflow_internal"
    )
    found = textmodel.features(lines, logscan.classify(lines), textfacts.extract(lines))
    ranked = model.probabilities(found)
    assert abs(sum(p for _c, p in ranked) - 1) < 1e-6
    assert ranked == sorted(ranked, key=lambda pair: -pair[1])


def test_it_was_trained_on_every_labelled_report_in_the_repository() -> None:
    """Adding reports without retraining (python scripts/train_reader.py) fails here."""
    model = textmodel.load()
    assert model is not None
    count = int(re.match(r"(\d+) labelled reports", model.trained_on).group(1))  # type: ignore[union-attr]
    script = _training_script()
    files = [
        f
        for path in script.CORPUS
        for f in (sorted(path.glob("*.yaml")) if path.is_dir() else [path])
    ]
    total = sum(
        1
        for f in files
        for entry in yaml.safe_load(f.read_text(encoding="utf-8")) or []
        if entry.get("cause") != "other" or entry.get("noise")
    )
    # every sample with labelled reports is in the corpus, or kept out to be measured held out
    samples = {
        p.parent if p.parent.name != "samples" else p
        for p in (ROOT / "benchmarks/samples").rglob("*.yaml")
    }
    held_out = {ROOT / "benchmarks/samples" / name for name in script.HELD_OUT}
    assert samples <= set(script.CORPUS) | held_out
    assert count == total


def test_features_read_languages_written_without_spaces() -> None:
    lines = textlines.normalise("tensorflow-gpu==1.14.0下默认使用cpu进行训练")
    found = textmodel.features(lines, logscan.classify(lines), textfacts.extract(lines))
    assert "c:默认" in found
    assert any(f.startswith("w:tensorflow") for f in found)


def test_a_text_no_rule_knows_gets_the_cause_it_reads_as() -> None:
    # DeepLabCut's "Failed to get convolution algorithm" story, told without the log line a
    # rule knows: the model's cause, said as the reading of the text as a whole
    text = (
        "When I train the network on my new RTX card the training stops right away, TensorFlow "
        "says it cannot create a cudnn handle and the kernel dies. Setting allow_growth did "
        "not help either. I am on Windows with tensorflow-gpu 1.13."
    )
    result = explain(text, MATRIX)
    first = result.report.first_fix
    assert first is not None
    assert first.check == "reading"
    assert first.status.value in ("fail", "warn")
    assert result.report.verdict.value != "ok"  # a failure told in words is never "nothing to fix"


def test_harmless_noise_stays_nothing_to_fix() -> None:
    noise = (
        "2024-03-10 10:00:00.000000: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] "
        "Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when "
        "one has already been registered\n"
        "2024-03-10 10:00:00.000000: I tensorflow/core/platform/cpu_feature_guard.cc:210] This "
        "TensorFlow binary is optimized to use available CPU instructions in performance-critical "
        "operations."
    )
    result = explain(noise, MATRIX)
    assert result.report.verdict.value == "ok"
    assert not any(f.check == "reading" for f in result.report.findings)


def test_without_the_model_the_rules_alone_answer() -> None:
    text = "my training is very slow on the gpu and uses all the memory, what do I do"
    without = explain(text, MATRIX, model=textmodel.OFF)
    assert not any(f.check == "reading" for f in without.report.findings)


@pytest.mark.parametrize(
    "url",
    [
        # reports of the seventh sample (gathered 2026-12-01, in the model's training data now)
        # and of the knowledge base: the reader must not answer them "nothing actionable"
        "https://github.com/tensorflow/tensorflow/issues/62696",
        # a failure told in words no rule knows, in Chinese: "oom" (memory) and "只能使用cpu"
        # (can only use the CPU) say something went wrong
        "https://github.com/brightmart/roberta_zh/issues/43",
        "https://github.com/youdao-ai/SRNet/issues/5",
        # "OOM in training" beside log lines the rules know as harmless: the words tell a
        # symptom no harmless line explains
        "https://github.com/wentaoyuan/pcn/issues/14",
    ],
)
def test_a_sample_report_is_not_answered_ok(url: str) -> None:
    report = _report(url)
    result = explain(str(report["text"]), MATRIX, title=str(report.get("title") or ""))
    assert result.report.verdict.value != "ok"


def test_the_model_file_is_compact_json() -> None:
    text = (ROOT / "src/tf_gpucheck/knowledge/reader_model.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert set(data) == {
        "trained_on",
        "classes",
        "intercept",
        "threshold",
        "margin",
        "scale",
        "weights",
    }
    assert len(text) < 4_000_000


def test_the_margin_is_where_the_held_out_top_cause_stops_being_a_coin_toss() -> None:
    script = _training_script()
    # (right, top, runner-up): level pairs right 1 time in 3, clear ones always
    held = [(False, 0.30, 0.28), (False, 0.40, 0.30), (True, 0.33, 0.30)]
    held += [(True, 0.80, 0.10)] * 5
    assert script.margin_of(held, 0.2) == 1.4  # every ratio under 1.4 is right under half the time
    assert script.margin_of([(True, 0.80, 0.10)], 0.2) == 1.0  # none level: no margin
    assert script.margin_of(held, 0.9) == 1.0  # none said above the threshold
    assert textmodel.load().margin > 1.0  # type: ignore[union-attr]


def _training_script() -> Any:
    """scripts/train_reader.py, loaded as a module (sys.path as it was: the script puts src/
    first)."""
    spec = importlib.util.spec_from_file_location("train_reader", ROOT / "scripts/train_reader.py")
    assert spec is not None
    assert spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    path = list(sys.path)
    try:
        spec.loader.exec_module(script)
    finally:
        sys.path[:] = path
    return script
