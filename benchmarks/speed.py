"""Where people wait: every timing target of the CLI, measured in one run, medians of paired runs.

    python benchmarks/speed.py [--repeats N] [--json FILE]

Each figure is the whole process, timed from outside (several runs after a warm-up, the median
quoted with its spread). Run it with gpucheck installed in the environment of this Python and,
for the TensorFlow figures, TensorFlow too; a scratch cache folder (TF_GPUCHECK_CACHE_DIR) is
made for it: "warm" is the cache the runs before left, "proof cache cold" that cache with its
proofs taken out (as after a change to the environment: its other readings are keyed by file
identity), and the first run ever (every cache empty) is printed beside them, not a target.
Bytecode is written as a user's Python writes it (PYTHONDONTWRITEBYTECODE is unset for the
children).

Targets (issue "fast where people wait"):
- `gpucheck --help` <= 0.15 s; `gpucheck detect --no-tf` <= 0.3 s; `gpucheck doctor --no-tf`
  <= 0.6 s; `gpucheck doctor` on a venv without TensorFlow <= 1.5 s;
- `gpucheck doctor` <= 1.05x `python -c "import tensorflow as tf; tf.config.list_physical_devices('GPU')"`,
  the proof cache cold and warm;
- `gpucheck explain` of 100,000 lines <= 2 s as text and as JSON, printing at most 2,000 lines;
  of 3,000,000 lines <= 30 s in under 300 MB; of a 50 MB line <= 10 s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from dataclasses import dataclass
from pathlib import Path

from _timing import gpucheck_command
from explain import build_log

TF_ALONE = "import tensorflow as tf; tf.config.list_physical_devices('GPU')"


@dataclass
class Figure:
    label: str
    samples_s: list[float]
    peak_mb: float = 0.0
    printed_lines: int = 0

    @property
    def median_s(self) -> float:
        return statistics.median(self.samples_s)


def _env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["TF_GPUCHECK_CACHE_DIR"] = str(cache)
    return env


def run(label: str, argv: list[str], repeats: int, env: dict[str, str], warmup: int = 1) -> Figure:
    """Wall time of each run after the warm-up; the largest resident size of the process itself
    (its own rusage, from wait4); the lines the last run printed."""
    samples: list[float] = []
    peak = 0.0
    lines = 0
    for index in range(warmup + repeats):
        with tempfile.TemporaryFile() as out:
            start = time.perf_counter()
            process = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=env)
            _pid, _status, usage = os.wait4(process.pid, 0)
            elapsed = time.perf_counter() - start
            process.returncode = 0  # reaped above
            out.seek(0)
            lines = out.read().count(b"\n")
        if index >= warmup:
            samples.append(elapsed)
            peak = max(peak, usage.ru_maxrss / 1024)
    return Figure(label, samples, peak, lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--no-tensorflow", action="store_true", help="skip the TensorFlow figures")
    args = parser.parse_args()
    gpucheck = gpucheck_command()
    checks: list[tuple[str, bool, str]] = []
    figures: list[Figure] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="gpucheck-speed-") as scratch:
        folder = Path(scratch)
        env = _env(folder / "cache")
        reps = args.repeats

        def add(figure: Figure, target: str, ok: bool) -> None:
            figures.append(figure)
            checks.append((f"{figure.label} {target}", ok, f"{figure.median_s:.2f} s"))

        helps = run("gpucheck --help", [*gpucheck, "--help"], reps, env)
        add(helps, "<= 0.15 s", helps.median_s <= 0.15)
        detect = run("gpucheck detect --no-tf", [*gpucheck, "detect", "--no-tf"], reps, env)
        add(detect, "<= 0.3 s", detect.median_s <= 0.3)
        no_tf = run("gpucheck doctor --no-tf", [*gpucheck, "doctor", "--no-tf"], reps, env)
        add(no_tf, "<= 0.6 s", no_tf.median_s <= 0.6)
        empty = folder / "empty"
        venv.create(empty, with_pip=True)
        bare = run(
            "gpucheck doctor (a venv without TensorFlow)",
            [*gpucheck, "doctor", "--python", str(empty / "bin" / "python")],
            reps,
            env,
        )
        add(bare, "<= 1.5 s", bare.median_s <= 1.5)
        if not args.no_tensorflow:
            alone = run(f'python -c "{TF_ALONE}"', [sys.executable, "-c", TF_ALONE], reps, env)
            figures.append(alone)
            doctor_warm = run(
                "gpucheck doctor (proof cache warm)", [*gpucheck, "doctor"], reps, env
            )
            # proof cache cold: the other readings (file identities, pip's settings) kept, as
            # after a change to the environment; the first run ever has every cache empty
            warm_cache = folder / "cache"
            cold: list[float] = []
            first: list[float] = []
            for index in range(reps):
                kept = folder / f"proofs-cold-{index}"
                shutil.copytree(warm_cache, kept)
                shutil.rmtree(kept / "proofs", ignore_errors=True)
                cold_env = dict(env, TF_GPUCHECK_CACHE_DIR=str(kept))
                cold += run("", [*gpucheck, "doctor"], 1, cold_env, warmup=0).samples_s
                empty_env = dict(env, TF_GPUCHECK_CACHE_DIR=str(folder / f"empty-{index}"))
                first += run("", [*gpucheck, "doctor"], 1, empty_env, warmup=0).samples_s
            doctor_cold = Figure("gpucheck doctor (proof cache cold)", cold)
            doctor_first = Figure("gpucheck doctor (first run: every cache empty)", first)
            figures.append(doctor_first)
            notes.append(f"{doctor_first.label}: {doctor_first.median_s / alone.median_s:.2f}x")
            for figure in (doctor_cold, doctor_warm):
                ratio = figure.median_s / alone.median_s
                figures.append(figure)
                checks.append(
                    (f"{figure.label} <= 1.05x TensorFlow alone", ratio <= 1.05, f"{ratio:.2f}x")
                )
        for lines in (100_000,):
            log = folder / "job.log"
            log.write_text(build_log(lines), encoding="utf-8")
            for extra in ((), ("--json",)):
                label = f"gpucheck explain {' '.join(extra)} ({lines:,} lines)".replace("  ", " ")
                figure = run(label, [*gpucheck, "explain", *extra, str(log)], reps, env)
                add(figure, "<= 2 s", figure.median_s <= 2.0)
                if not extra:
                    checks.append(
                        (
                            f"{label} prints <= 2,000 lines",
                            figure.printed_lines <= 2000,
                            f"{figure.printed_lines} lines",
                        )
                    )
        big = folder / "big.log"
        with big.open("w", encoding="utf-8") as handle:
            chunk = build_log(100_000)
            for _ in range(30):
                handle.write(chunk)
        huge = run(
            "gpucheck explain (3,000,000 lines)", [*gpucheck, "explain", str(big)], 1, env, 0
        )
        add(huge, "<= 30 s", huge.median_s <= 30)
        checks.append(
            (
                "gpucheck explain (3,000,000 lines) < 300 MB",
                huge.peak_mb < 300,
                f"{huge.peak_mb:.0f} MB",
            )
        )
        big.unlink()
        wide = folder / "wide.log"
        wide.write_text("x" * 50_000_000 + "\n", encoding="utf-8")
        line = run(
            "gpucheck explain (one 50 MB line)", [*gpucheck, "explain", str(wide)], 1, env, 0
        )
        add(line, "<= 10 s", line.median_s <= 10)
    width = max(len(f.label) for f in figures)
    print(f"{'command':{width}}  median s  (min-max)")
    for figure in figures:
        spread = f"{min(figure.samples_s):.2f}-{max(figure.samples_s):.2f}"
        print(f"{figure.label:{width}}  {figure.median_s:8.3f}  ({spread})")
    print()
    for name, ok, value in checks:
        print(f"{'PASS' if ok else 'MISS'}  {name}: {value}")
    for note in notes:
        print(f"INFO  {note} of TensorFlow alone (not a target)")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "figures": [
                        {
                            "label": f.label,
                            "median_s": f.median_s,
                            "samples_s": f.samples_s,
                            "peak_mb": f.peak_mb,
                            "printed_lines": f.printed_lines,
                        }
                        for f in figures
                    ],
                    "checks": [{"check": n, "ok": o, "value": v} for n, o, v in checks],
                    "notes": notes,
                },
                indent=1,
            )
        )
    return 0 if all(ok for _n, ok, _v in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
