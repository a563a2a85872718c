"""Shared helpers for the benchmark scripts: time whole commands, print a table."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass


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
    return [script] if script else [sys.executable, "-m", "gpucheck"]


def time_command(label: str, argv: Sequence[str], repeats: int, warmup: int = 1) -> Timing:
    env = dict(os.environ, NO_COLOR="1")
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
