"""Wall time of `gpucheck doctor` next to the bare TensorFlow snippet it replaces, in one run.

    python benchmarks/doctor.py [--repeats N]

Target (issue: start-up): doctor within 1.05x of
`python -c "import tensorflow as tf; tf.config.list_physical_devices('GPU')"`; the probes run
concurrently with the TensorFlow child, so the TensorFlow import dominates.
"""

from __future__ import annotations

import argparse
import sys

from _timing import gpucheck_command, print_table, time_command

SNIPPET = "import tensorflow as tf; tf.config.list_physical_devices('GPU')"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    doctor = time_command("gpucheck doctor", [*gpucheck_command(), "doctor"], args.repeats)
    bare = time_command(
        "python -c <list_physical_devices>", [sys.executable, "-c", SNIPPET], args.repeats
    )
    print_table([doctor, bare])
    ratio = doctor.median_s / bare.median_s
    ok = ratio <= 1.05
    print(f"\n{'PASS' if ok else 'MISS'}  doctor <= 1.05x the bare snippet: {ratio:.2f}x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
