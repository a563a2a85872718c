"""A plain `model.fit` of gpucheck's bench models, timed around the call, for comparison.

Run with KERAS_BACKEND set (jax or torch) on a machine with a GPU:
    python scripts/plain_fit.py mlp cnn
Prints one JSON line per workload: samples/s of `model.fit(x, y)` on arrays held in memory
(batch 128, 50 steps per epoch, 5 epochs after one warm-up epoch; the clock stops when fit
returns, after Keras has turned the last loss into a Python number).
"""

from __future__ import annotations

import json
import sys
import time

BATCH, STEPS, EPOCHS = 128, 50, 5


def main() -> None:
    import keras
    import numpy as np

    from tf_gpucheck._children.bench_run import build

    for workload in sys.argv[1:]:
        keras.utils.set_random_seed(1234)
        shape = (784,) if workload == "mlp" else (32, 32, 3)
        rng = np.random.default_rng(1234)
        x = rng.random((BATCH * STEPS, *shape), dtype=np.float32)
        y = rng.integers(0, 10, size=(BATCH * STEPS,)).astype(np.int32)
        model = build(keras, workload)
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0)  # warm-up: tracing, compiling
        begin = time.perf_counter()
        history = model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, verbose=0)
        elapsed = time.perf_counter() - begin
        print(
            json.dumps(
                {
                    "backend": keras.backend.backend(),
                    "workload": workload,
                    "samples_per_s": BATCH * STEPS * EPOCHS / elapsed,
                    "seconds": elapsed,
                    "last_loss": float(history.history["loss"][-1]),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
