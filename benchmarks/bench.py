"""Figures for `gpucheck benchmark`, all in one run:

1. overhead: gpucheck's CPU run of `--workload mlp --batch-size 128` against a plain
   hand-written Keras `model.fit` of the same model (target: ratio >= 0.95);
2. wall time of the default `gpucheck bench` (target < 90 s on a 2-core machine without a GPU)
   and of `gpucheck bench --quick` (target < 30 s);
3. agreement of repeated `--quick` runs (target: within 10% on a quiet machine).

    python benchmarks/bench.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

from _timing import child_rate, timed_bench
from tf_gpucheck.bench import child_environment

# The plain snippet: the same model, compiled with Keras' defaults, fed the same synthetic
# data through model.fit; steady state = the median epoch after one warm-up epoch.
PLAIN = """
import json, time, numpy as np, tensorflow as tf
keras = tf.keras
keras.utils.set_random_seed(1234)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(512, activation="relu"),
                          keras.layers.Dense(512, activation="relu"), keras.layers.Dense(10, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
rng = np.random.default_rng(1234)
steps, batch = 50, 128
x = rng.random((steps * batch, 784), dtype=np.float32)
y = rng.integers(0, 10, size=(steps * batch,)).astype("int32")
times = []
class Clock(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None): self.t = time.perf_counter()
    def on_epoch_end(self, epoch, logs=None): times.append(time.perf_counter() - self.t)
model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
model.fit(x, y, batch_size=batch, epochs=5, verbose=0, callbacks=[Clock()])
print("RATE", json.dumps(steps * batch / sorted(times)[len(times) // 2]))
"""

SPEC = {
    "device": "cpu",
    "workloads": ["mlp"],
    "batch_size": 128,
    "steps": 50,
    "repeats": 5,
    "warmup_steps": 10,
    "jit_compile": "auto",
    "mixed_precision": None,
    "matmul_n": 2048,
}


def gpucheck_rate() -> float:
    return child_rate(SPEC, child_environment("tensorflow", "cpu"))


def plain_rate() -> float:
    out = subprocess.run(
        [sys.executable, "-c", PLAIN],
        capture_output=True,
        text=True,
        env=child_environment("tensorflow", "cpu"),
        check=True,
    ).stdout
    return float(
        next(line for line in out.splitlines() if line.startswith("RATE ")).split(" ", 1)[1]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description="figures for gpucheck benchmark")
    parser.add_argument(
        "--rounds", type=int, default=3, help="alternating rounds of the overhead comparison"
    )
    args = parser.parse_args()
    checks = []

    ours, plain = [], []
    for _ in range(args.rounds):  # alternate, so drift on the machine hits both alike
        ours.append(gpucheck_rate())
        plain.append(plain_rate())
    ratio = statistics.median(ours) / statistics.median(plain)
    print(
        f"mlp, batch 128, CPU: gpucheck {statistics.median(ours):,.0f} samples/s "
        f"(runs: {', '.join(f'{r:,.0f}' for r in ours)})"
    )
    print(
        f"                     plain model.fit {statistics.median(plain):,.0f} samples/s "
        f"(runs: {', '.join(f'{r:,.0f}' for r in plain)})"
    )
    checks.append(("gpucheck / plain model.fit >= 0.95", ratio >= 0.95, f"{ratio:.3f}"))

    default_s, _ = timed_bench([])
    print(f"gpucheck bench (default): {default_s:.1f} s")
    checks.append(("default bench < 90 s", default_s < 90, f"{default_s:.1f} s"))

    quick = [timed_bench(["--quick"]) for _ in range(3)]
    print(f"gpucheck bench --quick: {', '.join(f'{s:.1f} s' for s, _ in quick)}")
    checks.append(
        ("--quick < 30 s", max(s for s, _ in quick) < 30, f"{max(s for s, _ in quick):.1f} s")
    )
    for workload in ("mlp", "cnn"):
        rates = [
            next(
                r["samples_per_s"]
                for r in data["results"]
                if r["device"] == "cpu" and r["workload"] == workload
            )
            for _, data in quick
        ]
        spread = (max(rates) - min(rates)) / statistics.median(rates)
        print(
            f"--quick {workload} cpu samples/s: {', '.join(f'{r:,.0f}' for r in rates)} (spread {spread:.1%})"
        )
        checks.append(
            (f"--quick repeats agree within 10% ({workload})", spread <= 0.10, f"{spread:.1%}")
        )

    print()
    for name, ok, value in checks:
        print(f"{'PASS' if ok else 'MISS'}  {name}: {value}")
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
