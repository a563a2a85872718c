"""Start-up time of the gpucheck CLI, next to a bare `import tensorflow` in the same run.

    python benchmarks/startup.py [--repeats N]
Targets: `gpucheck --help` under 0.3 s; `gpucheck detect --no-tf` under 0.3 s (issue: start-up;
was 0.6 s); `gpucheck detect` within 1.3x of `python -c "import tensorflow"`.

"""

from __future__ import annotations

import argparse
import sys

from _timing import gpucheck_command, print_table, time_command


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    gpucheck = gpucheck_command()
    help_ = time_command("gpucheck --help", [*gpucheck, "--help"], args.repeats)
    no_tf = time_command("gpucheck detect --no-tf", [*gpucheck, "detect", "--no-tf"], args.repeats)
    detect = time_command("gpucheck detect", [*gpucheck, "detect"], args.repeats)
    bare = time_command(
        'python -c "import tensorflow"', [sys.executable, "-c", "import tensorflow"], args.repeats
    )
    print_table([help_, no_tf, detect, bare])
    ratio = detect.median_s / bare.median_s
    checks = [
        ("--help < 0.3 s", help_.median_s < 0.3, f"{help_.median_s:.3f} s"),
        ("detect --no-tf < 0.3 s", no_tf.median_s < 0.3, f"{no_tf.median_s:.3f} s"),
        ("detect <= 1.3x import tensorflow", ratio <= 1.3, f"{ratio:.2f}x"),
    ]
    print()
    for name, ok, value in checks:
        print(f"{'PASS' if ok else 'MISS'}  {name}: {value}")
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
