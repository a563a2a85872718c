"""Flags and their values: every parser gives a result or one clear error with exit code 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import SnapshotProbes, scenario
from tests.helpers import FAST
from tf_gpucheck.bench import (
    parse_tolerance,
)
from tf_gpucheck.checks.requirements import parse_capability, parse_pattern, parse_size
from tf_gpucheck.errors import GpucheckError
from tf_gpucheck.memory import parse_int_list, parse_limit

PARSERS = [
    lambda v: parse_int_list("--virtual", v),
    parse_limit,
    lambda v: parse_size("--min-free-memory", v),
    lambda v: parse_capability("--min-compute-capability", v),
    lambda v: parse_pattern("--expect-tf", v),
    parse_tolerance,
]


@FAST
@given(st.sampled_from(range(len(PARSERS))), st.text(max_size=30))
def test_flag_parsers_give_a_result_or_one_clear_error(which: int, text: str) -> None:
    try:
        PARSERS[which](text)
    except GpucheckError as exc:
        assert exc.exit_code == 2
        assert exc.message


@FAST
@given(st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=6))
def test_int_lists_round_trip(numbers: list[int]) -> None:
    assert parse_int_list("--virtual", ",".join(map(str, numbers))) == tuple(numbers)


@pytest.mark.parametrize("text", ["¹", "٣", "2¹,3", "0:٣"])
def test_non_ascii_digits_are_a_clear_error(text: str) -> None:
    # found by the property test above: str.isdigit() accepts "¹", which int() rejects
    with pytest.raises(GpucheckError):
        parse_int_list("--virtual", text)
    with pytest.raises(GpucheckError):
        parse_limit(text)


def test_non_ascii_version_filter(run_cli: Any) -> None:
    result = run_cli(["matrix", "--tf", "2.¹"], SnapshotProbes(scenario("two-a100")))
    assert result.exit_code == 2


ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "args",
    [
        ("doctor", "--json", "--format", "markdown", "--from", "x.json"),
        ("doctor", "--from", "tests/data/snapshots/two-a100.json", "--python", "/nonexistent"),
        ("matrix", "--from", "tests/data/snapshots/two-a100.json"),
        ("explain", "--json", "--format", "markdown", "-"),
    ],
)
def test_conflicting_options_are_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tf_gpucheck", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        input="",
        check=False,
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    assert out.stderr.startswith("gpucheck: error: ")
    assert "hint:" in out.stderr
