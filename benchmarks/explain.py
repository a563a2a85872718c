"""Wall time of `gpucheck explain` on a long training log, and where the time goes.

    python benchmarks/explain.py [--lines N] [--repeats N] [--distinct]

Target (issue: explain): a 100,000-line log (a long training job's stderr) is explained in
under 2 s. The log is built from this project's real recordings (tests/data/logs/real: TensorFlow
2.10/2.15/2.21 start-up logs, Keras training output, a NumPy 2 import traceback, pip), repeated
in turn until it has N lines, so it holds the mix a real job log holds: mostly training noise
with the occasional line that matters. Such a log repeats its lines, and each distinct line is
read once; `--distinct` makes every line different (each ends in its number), the worst case.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from itertools import cycle
from pathlib import Path

from _timing import gpucheck_command, print_table, time_command

REAL = Path(__file__).resolve().parents[1] / "tests" / "data" / "logs" / "real"


def build_log(lines: int, distinct: bool = False) -> str:
    sources = sorted(p for p in REAL.iterdir() if p.suffix in (".stderr", ".stdout"))
    chunks = [p.read_text(encoding="utf-8", errors="replace").splitlines() for p in sources]
    out: list[str] = []
    for chunk in cycle(chunks):
        out.extend(chunk)
        if len(out) >= lines:
            out = out[:lines]
            if distinct:  # no two lines alike (each ends in its number), as no real log is
                out = [f"{line} {number}" for number, line in enumerate(out, 1)]
            return "\n".join(out) + "\n"
    raise AssertionError("unreachable")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--distinct",
        action="store_true",
        help="every line different (the worst case: nothing is read twice)",
    )
    args = parser.parse_args()
    text = build_log(args.lines, args.distinct)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "job.log"
        log.write_text(text, encoding="utf-8")
        size_mib = log.stat().st_size / 2**20
        whole = time_command(
            f"gpucheck explain ({args.lines:,} lines, {size_mib:.1f} MiB)",
            [*gpucheck_command(), "explain", "--json", str(log)],
            args.repeats,
        )
        start = time.perf_counter()
        help_ = time_command("gpucheck --help (start-up)", [*gpucheck_command(), "--help"], 3)
        del start
    print_table([whole, help_])

    from tf_gpucheck.explain import explain
    from tf_gpucheck.matrix import load_matrix
    from tf_gpucheck.reading import logscan, textfacts, textlines

    matrix = load_matrix()
    phases = {}
    begin = time.perf_counter()
    lines = textlines.normalise(text)
    phases["normalise"] = time.perf_counter() - begin
    begin = time.perf_counter()
    logscan.classify(lines)
    phases["classify"] = time.perf_counter() - begin
    begin = time.perf_counter()
    textfacts.extract(lines)
    phases["stated facts"] = time.perf_counter() - begin
    begin = time.perf_counter()
    explain(text, matrix)
    phases["explain (all of it, in-process)"] = time.perf_counter() - begin
    print()
    for name, seconds in phases.items():
        print(f"{name:<34} {seconds:6.3f} s")
    ok = whole.median_s < 2.0
    print(
        f"\n{'PASS' if ok else 'MISS'}  explain of {args.lines:,} lines < 2 s: {whole.median_s:.2f} s"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
