"""Figures for `gpucheck benchmark --backend`, all in one run:

1. overhead on JAX: gpucheck's CPU run of `--backend jax --workload mlp --batch-size 128`
   against a plain hand-written Keras `model.fit` of the same model on the JAX backend, in
   alternating rounds (target: ratio >= 0.95). The plain script runs twice per round: with
   Keras' default `shuffle=True`, and with `shuffle=False` (the faster of the two); the target
   is held against the faster;
2. cross-run agreement: N runs of `gpucheck bench --quick -w mlp --device cpu --backend B`
   for each backend: the spread ((max - min) / median) of raw samples/s, of the share of the
   run's matmul ceiling, and of the ceiling-normalised throughput (the model's GFLOP/s over the
   matmul GFLOP/s measured right around each timed window: what `--baseline` compares);
3. wall time of each of those runs and of `gpucheck bench --quick --backend all --device cpu`.

    python benchmarks/backends.py [--rounds N] [--runs N] [--backends tensorflow,jax,torch]

The machine is shared and noisy: every figure comes with the runs it was taken from.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

from _timing import child_rate, timed_bench
from tf_gpucheck.bench import child_environment

# The plain snippet: the same model, compiled with Keras' defaults, fed the same kind of
# synthetic data through model.fit(x, y); steady state = the median epoch after a warm-up epoch.
PLAIN = """
import json, sys, time, numpy as np, keras
keras.utils.set_random_seed(1234)
model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(512, activation="relu"),
                          keras.layers.Dense(512, activation="relu"), keras.layers.Dense(10, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
rng = np.random.default_rng(1234)
steps, batch, shuffle = 50, 128, sys.argv[1] == "shuffle"
x = rng.random((steps * batch, 784), dtype=np.float32)
y = rng.integers(0, 10, size=(steps * batch,)).astype("int32")
times = []
class Clock(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None): self.t = time.perf_counter()
    def on_epoch_end(self, epoch, logs=None): times.append(time.perf_counter() - self.t)
model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=shuffle)
model.fit(x, y, batch_size=batch, epochs=5, verbose=0, shuffle=shuffle, callbacks=[Clock()])
print("RATE", json.dumps(steps * batch / sorted(times)[len(times) // 2]), keras.backend.backend())
"""

SPEC = {
    "device": "cpu",
    "backend": "jax",
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
    return child_rate(SPEC, child_environment("jax", "cpu"))


def plain_rate(shuffle: bool) -> float:
    out = subprocess.run(
        [sys.executable, "-c", PLAIN, "shuffle" if shuffle else "in-order"],
        capture_output=True,
        text=True,
        env=child_environment("jax", "cpu"),
        check=True,
    ).stdout
    line = next(line for line in out.splitlines() if line.startswith("RATE "))
    _, rate, backend = line.split(" ")
    assert backend == "jax", backend
    return float(rate)


def spread(values: list[float]) -> float:
    return (max(values) - min(values)) / statistics.median(values)


def _runs(values: list[float], fmt: str) -> str:
    return ", ".join(format(v, fmt) for v in values)


def main() -> int:
    parser = argparse.ArgumentParser(description="figures for gpucheck benchmark --backend")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the overhead comparison")
    parser.add_argument("--runs", type=int, default=4, help="--quick runs per backend")
    parser.add_argument("--backends", default="tensorflow,jax,torch")
    args = parser.parse_args()
    checks = []

    ours: list[float] = []
    shuffled: list[float] = []
    in_order: list[float] = []
    for _ in range(args.rounds):  # alternate, so drift on the machine hits all three alike
        ours.append(gpucheck_rate())
        shuffled.append(plain_rate(shuffle=True))
        in_order.append(plain_rate(shuffle=False))
    faster = max(statistics.median(shuffled), statistics.median(in_order))
    ratio = statistics.median(ours) / faster
    print("overhead: mlp, batch 128, CPU, Keras on JAX (median of the runs; runs in brackets)")
    print(
        f"  gpucheck bench --backend jax     {statistics.median(ours):>9,.0f} samples/s ({_runs(ours, ',.0f')})"
    )
    print(
        f"  plain model.fit(x, y)            {statistics.median(shuffled):>9,.0f} samples/s ({_runs(shuffled, ',.0f')})"
    )
    print(
        f"  plain model.fit(shuffle=False)   {statistics.median(in_order):>9,.0f} samples/s ({_runs(in_order, ',.0f')})"
    )
    print(f"  ratio against the faster plain run: {ratio:.3f}")
    checks.append(("jax: gpucheck / plain model.fit >= 0.95", ratio >= 0.95, f"{ratio:.3f}"))

    print()
    print(f"cross-run agreement: {args.runs} x `gpucheck bench --quick -w mlp --device cpu`")
    for backend in args.backends.split(","):
        raw: list[float] = []
        share: list[float] = []
        paired: list[float] = []
        walls: list[float] = []
        for _ in range(args.runs):
            wall, data = timed_bench(
                ["--quick", "-w", "mlp", "--device", "cpu", "--backend", backend]
            )
            row = next(
                r
                for r in data["results"]
                if r["workload"] == "mlp" and r["device"] == "cpu" and r["backend"] == backend
            )
            if row["status"] != "ok":
                print(f"  {backend}: {row['status']}: {row['reason']}")
                break
            raw.append(row["samples_per_s"])
            share.append(row["share_of_ceiling"])
            paired.append(row["ceiling_normalised"])
            walls.append(wall)
        if not raw:
            continue
        print(f"  {backend}: wall {_runs(walls, '.1f')} s")
        print(f"    raw samples/s             {_runs(raw, ',.0f')}: spread {spread(raw):.0%}")
        print(f"    share of the run's ceiling {_runs(share, '.3f')}: spread {spread(share):.0%}")
        print(
            f"    ceiling-normalised         {_runs(paired, '.3f')}: spread {spread(paired):.0%}"
            "  (what --baseline compares)"
        )
        checks.append(
            (
                f"{backend}: ceiling-normalised agrees better than raw samples/s",
                spread(paired) < spread(raw),
                f"{spread(paired):.0%} vs {spread(raw):.0%}",
            )
        )

    wall, data = timed_bench(["--quick", "--backend", "all", "--device", "cpu"])
    print()
    print(f"gpucheck bench --quick --backend all --device cpu: {wall:.1f} s")
    for ranking in data["rankings"]:
        side = ", ".join(
            f"{b} {r:,.0f}"
            for b, r in zip(ranking["backends"], ranking["samples_per_s"], strict=True)
        )
        print(f"  {ranking['device']} {ranking['workload']}: {side} samples/s")
    for row in data["results"]:
        if row["status"] == "ok" and row["workload"] != "matmul":
            print(
                f"  {row['backend']}/{row['device']}/{row['workload']}: share of ceiling "
                f"{row['share_of_ceiling']:.2f}"
            )
        elif row["status"] == "ok":
            print(
                f"  {row['backend']}/{row['device']} matmul ceiling: {row['gflops']:,.0f} GFLOP/s"
            )
    print()
    for name, ok, value in checks:
        print(f"{'PASS' if ok else 'MISS'}  {name}: {value}")
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
