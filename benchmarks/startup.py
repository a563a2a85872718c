"""Start-up and doctor's wall time, next to what TensorFlow itself takes, in the same run.

    python benchmarks/startup.py [--repeats N] [--budget SECONDS]

Targets:
- `gpucheck --help` under 0.15 s; `gpucheck detect --no-tf` under 0.3 s;
- `gpucheck doctor --proof-budget 0` (the installer's policy is asked, offline; nothing is
  resolved against the index) within 1.05x of
  `python -c "import tensorflow as tf; tf.config.list_physical_devices('GPU')"`: every probe
  runs while TensorFlow imports;
- `gpucheck doctor` (its fixes resolved against the index within `--proof-budget`) never more
  than that budget beyond it.
"""

from __future__ import annotations

import argparse
import sys

from _timing import gpucheck_command, print_table, time_command

TF_ALONE = "import tensorflow as tf; tf.config.list_physical_devices('GPU')"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--budget", type=float, default=15.0, help="doctor's --proof-budget")
    args = parser.parse_args()
    gpucheck = gpucheck_command()
    help_ = time_command("gpucheck --help", [*gpucheck, "--help"], args.repeats)
    no_tf = time_command("gpucheck detect --no-tf", [*gpucheck, "detect", "--no-tf"], args.repeats)
    bare = time_command(f'python -c "{TF_ALONE}"', [sys.executable, "-c", TF_ALONE], args.repeats)
    offline = time_command(
        "gpucheck doctor --proof-budget 0",
        [*gpucheck, "doctor", "--proof-budget", "0"],
        args.repeats,
    )
    proven = time_command(
        f"gpucheck doctor --proof-budget {args.budget:g}",
        [*gpucheck, "doctor", "--proof-budget", f"{args.budget:g}"],
        max(1, args.repeats // 2),
    )
    print_table([help_, no_tf, bare, offline, proven])
    ratio = offline.median_s / bare.median_s
    beyond = proven.median_s - bare.median_s
    checks = [
        ("--help < 0.15 s", help_.median_s < 0.15, f"{help_.median_s:.3f} s"),
        ("detect --no-tf < 0.3 s", no_tf.median_s < 0.3, f"{no_tf.median_s:.3f} s"),
        ("doctor --proof-budget 0 <= 1.05x TensorFlow alone", ratio <= 1.05, f"{ratio:.2f}x"),
        (
            f"doctor --proof-budget {args.budget:g} <= TensorFlow alone + {args.budget:g} s",
            beyond <= args.budget,
            f"+{beyond:.1f} s",
        ),
    ]
    print()
    for name, ok, value in checks:
        print(f"{'PASS' if ok else 'MISS'}  {name}: {value}")
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
