"""Similar solved reports: every entry of the knowledge base, retrieval, and how explain uses it."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest

from tf_gpucheck import similar
from tf_gpucheck.checks.diagnosis import DEPTH, SYMPTOMS
from tf_gpucheck.explain import explain
from tf_gpucheck.matrix import load_matrix

REPORTS = similar.load_reports()


def test_the_knowledge_base_holds_at_least_300_solved_reports() -> None:
    assert len(REPORTS) >= 300
    families = Counter(r.family for r in REPORTS)
    assert len(families) >= 6
    assert sum(r.noise for r in REPORTS) >= 20  # noise matches noise


@pytest.mark.parametrize("report", REPORTS, ids=[r.url for r in REPORTS])
def test_every_entry_is_complete(report: similar.SolvedReport) -> None:
    assert re.fullmatch(r"https?://[^\s/]+\.[a-z]{2,}/\S+", report.url), report.url
    assert report.title.strip()
    assert report.text.strip()
    assert report.fix.strip()
    assert report.confirmed_by.strip()
    assert report.platform is None or report.platform in similar.PLATFORMS
    if report.noise:
        assert report.cause is None
    else:
        assert report.cause in DEPTH or report.cause in SYMPTOMS, report.cause


def test_no_thread_twice() -> None:
    keys = Counter(r.url.rstrip("/").split("#")[0].lower() for r in REPORTS)
    assert [url for url, n in keys.items() if n > 1] == []


def test_a_bad_entry_is_one_clear_error() -> None:
    from tf_gpucheck.errors import GpucheckError

    with pytest.raises(GpucheckError, match="must have exactly the fields"):
        similar.parse_reports("x", [{"url": "https://example.org/a"}])


MATRIX = load_matrix()


def test_a_report_finds_the_threads_of_its_message_and_abstains_on_chatter() -> None:
    # a real line (https://github.com/Leonardo-Blanger/detr_tensorflow/issues/3), the thread left out
    line = (
        "E tensorflow/stream_executor/cuda/cuda_blas.cc:226] failed to create cublas handle: "
        "CUBLAS_STATUS_NOT_INITIALIZED"
    )
    query = similar.text_tokens(line)
    matches = similar.similar(
        query, exclude="https://github.com/Leonardo-Blanger/detr_tensorflow/issues/3"
    )
    assert matches
    assert matches[0].report.cause == "cublas_init_failed"
    assert 0 < matches[0].score <= 1
    assert similar.similar(similar.text_tokens("the weather is fine today")) == []


def test_scores_are_normalised_and_sorted() -> None:
    report = next(r for r in REPORTS if r.cause == "driver_too_old")
    found = similar.index().search(similar.text_tokens(report.text))
    assert found[0].report.url == report.url  # a report is closest to itself
    assert all(0 < m.score <= 1 for m in found)
    assert [m.score for m in found] == sorted((m.score for m in found), reverse=True)


def _first(text: str, **kwargs: Any) -> str | None:
    fix = explain(text, MATRIX, **kwargs).report.first_fix
    return fix.cause if fix else None


def test_a_match_names_a_cause_only_where_no_message_does() -> None:
    # prose alone, no message a rule knows: the closest reports may name the cause, as a warning
    report = next(
        r
        for r in REPORTS
        if r.url == "https://github.com/tensorflow/tensorflow/issues/63362"  # TF 2.16.1, [] GPUs
    )
    result = explain(report.text, MATRIX, exclude=report.url)
    first = result.report.first_fix
    if first is not None and first.check == "similar":
        assert first.status.value == "warn"
        assert "closest solved reports" in first.summary
    # a recognised message always outranks the matches
    line = "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file"
    assert _first(line) == "cudnn_missing"


def test_a_match_never_turns_noise_into_a_problem() -> None:
    for report in (r for r in REPORTS if r.noise):
        with_matches = explain(report.text, MATRIX, exclude=report.url)
        without = explain(report.text, MATRIX, similar=False)
        if without.report.verdict.value == "ok":
            # retrieval may add a warning only where no line was recognised at all
            recognised = [line for line in with_matches.lines if line.cause]
            if recognised:
                assert with_matches.report.verdict.value == "ok", report.url


def test_json_carries_the_matches(run_cli: Any, tmp_path: Any) -> None:
    log = tmp_path / "log.txt"
    log.write_text(
        "E tensorflow/stream_executor/cuda/cuda_blas.cc:226] failed to create cublas handle: "
        "CUBLAS_STATUS_NOT_INITIALIZED\n"
    )
    result = run_cli(["explain", str(log), "--json"], None)
    data = json.loads(result.stdout)
    assert data["similar"]
    assert set(data["similar"][0]) == {"url", "title", "cause", "noise", "fix", "score"}
    human = run_cli(["explain", str(log)], None)
    assert "similar solved reports:" in human.stdout
    assert "github.com" in human.stdout


def test_long_logs_query_only_recognised_lines() -> None:
    lines = ["Epoch 1/10 - loss: 0.5"] * 6000 + [
        "E tensorflow/stream_executor/cuda/cuda_blas.cc:226] failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED"
    ]
    from tf_gpucheck.reading import logscan

    query = similar.query_tokens(lines, logscan.classify(lines))
    assert "epoch" not in query
    assert "rule:cublas_init_failed" in query


def test_doctor_log_shows_the_matches_beside_the_verdict(run_cli: Any, tmp_path: Any) -> None:
    from tests.conftest import SnapshotProbes, scenario

    log = tmp_path / "train.log"
    log.write_text(
        "E tensorflow/stream_executor/cuda/cuda_blas.cc:226] failed to create cublas handle: "
        "CUBLAS_STATUS_NOT_INITIALIZED\n"
    )
    probes = SnapshotProbes(scenario("two-a100"))
    data = run_cli(["doctor", "--json", "--log", str(log)], probes).json()
    assert 1 <= len(data["similar"]) <= 3
    assert set(data["similar"][0]) == {"url", "title", "cause", "noise", "fix", "score"}
    scores = [m["score"] for m in data["similar"]]
    assert scores == sorted(scores, reverse=True)
    assert scores[-1] >= similar.THRESHOLD
    # a match is shown, never a cause of its own: the machine's facts and the log's lines decide
    assert "similar" not in {f["check"] for f in data["findings"]}
    human = run_cli(["doctor", "--log", str(log)], probes).stdout
    assert "similar solved reports:" in human
    assert data["similar"][0]["url"] in human
    markdown = run_cli(["doctor", "--format", "markdown", "--log", str(log)], probes).stdout
    assert "**Similar solved reports**" in markdown
    # without a log of the user's own program there is nothing to compare
    assert run_cli(["doctor", "--json"], probes).json()["similar"] == []


def test_the_shipped_tokens_are_the_reports_tokens_read_now() -> None:
    """knowledge/reports/tokens.json (read instead of every report on each run) holds what
    reading the reports now gives; after a change to a report, a rule or the reading code, run
    `python scripts/similar_tokens.py`."""
    from tf_gpucheck import similar as solved

    shipped = solved.shipped_tokens()
    assert shipped, "tokens.json is missing or stale: python scripts/similar_tokens.py"
    assert shipped == solved.fresh_tokens()
