"""Shared helpers for the benchmark scripts: time whole commands, print a table."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH_CHILD = Path(__file__).resolve().parents[1] / "src/tf_gpucheck/_children/bench_run.py"


@dataclass(frozen=True)
class Timing:
    label: str
    samples_s: tuple[float, ...]

    @property
    def median_s(self) -> float:
        return statistics.median(self.samples_s)

    @property
    def spread(self) -> str:
        return f"{min(self.samples_s):.3f}-{max(self.samples_s):.3f}"


def gpucheck_command() -> list[str]:
    """The installed console script next to this interpreter, else ``python -m gpucheck``."""
    script = shutil.which("gpucheck", path=os.path.dirname(sys.executable))
    return [script] if script else [sys.executable, "-m", "tf_gpucheck"]


def time_command(label: str, argv: Sequence[str], repeats: int, warmup: int = 1) -> Timing:
    # as installed: pip writes .pyc files at install time, so bytecode caches are allowed here
    # even where the shell forbids them (PYTHONDONTWRITEBYTECODE), and the warm-up writes them
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["NO_COLOR"] = "1"
    for _ in range(warmup):  # page cache, .pyc files
        subprocess.run(argv, capture_output=True, check=False, env=env)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = subprocess.run(argv, capture_output=True, check=False, env=env)
        samples.append(time.perf_counter() - start)
        if result.returncode not in (0, 1):
            sys.exit(
                f"{label}: {' '.join(argv)} exited {result.returncode}:\n{result.stderr.decode()}"
            )
    return Timing(label, tuple(samples))


def print_table(timings: Sequence[Timing]) -> None:
    width = max(len(t.label) for t in timings)
    print(f"{'command':<{width}}  median s  min-max s  runs")
    for t in timings:
        print(f"{t.label:<{width}}  {t.median_s:8.3f}  {t.spread:>9}  {len(t.samples_s):4d}")


def child_rate(spec: Mapping[str, Any], env: Mapping[str, str]) -> float:
    """samples/s of the first result of gpucheck's own benchmark child, run directly."""
    out = subprocess.run(
        [sys.executable, str(BENCH_CHILD), json.dumps(spec)],
        capture_output=True,
        text=True,
        env=dict(env),
        check=True,
    ).stdout
    result = json.loads(
        next(line for line in out.splitlines() if line.startswith("RESULT ")).split(" ", 1)[1]
    )
    return float(result["results"][0]["samples_per_s"])


def timed_bench(args: list[str]) -> tuple[float, dict[str, Any]]:
    """Wall time and JSON of `gpucheck bench --json ARGS`; exits on a failed run."""
    start = time.perf_counter()
    out = subprocess.run(
        [*gpucheck_command(), "bench", "--json", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, NO_COLOR="1"),
        check=False,
    )
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"gpucheck bench {' '.join(args)} exited {out.returncode}:\n{out.stderr}")
    data: dict[str, Any] = json.loads(out.stdout)
    return elapsed, data
