"""`gpucheck fix` on real environments: does it heal each, how long it takes, what it changes.

    python benchmarks/fix.py

Builds each environment of tests/fix/test_fix.py in a temporary folder (real venvs with their own
pip or uv; TensorFlow as its real metadata, NumPy/Keras/CUDA wheels real), runs
`gpucheck fix --no-tf --yes --json` on it in a subprocess as a user would, and prints a table:
the environment, the cause expected, whether fix healed it (the cause gone from the diagnosis
afterwards, no new failure), the seconds `fix` took (pip's downloads included: the pip cache
and the local wheelhouse make repeated runs faster), and what changed. The last rows check that
nothing changes where nothing can be proven (no package index) or where the user's Python is
the system's (PEP 668).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fix.test_fix import CUPTI_OFF_PIN, numpy2_venv, tf221_with_pip, uv_numpy2_venv

from tf_gpucheck.fix.environment import read_environment

Build = Callable[[Path], Path]


def numpy2_tf215(where: Path) -> Path:
    return numpy2_venv(where)


def numpy2_tf210(where: Path) -> Path:
    return numpy2_venv(where, "2.10.1", ">=1.20")


def keras2_tf221(where: Path) -> Path:
    return tf221_with_pip(where, ("keras", "2.15.0"))


def cupti_pin(where: Path) -> Path:
    return tf221_with_pip(where, *CUPTI_OFF_PIN)


def uv_numpy2(where: Path) -> Path:
    python = uv_numpy2_venv(where)
    if python is None:
        raise RuntimeError("uv is not installed")
    return python


CASES: list[tuple[str, str, Build, bool, dict[str, str]]] = [
    ("NumPy 2 under TF 2.15", "numpy_incompatible", numpy2_tf215, True, {}),
    ("NumPy 2 under TF 2.10", "numpy_incompatible", numpy2_tf210, True, {}),
    ("Keras 2 under TF 2.21", "keras_mismatch", keras2_tf221, True, {}),
    ("CUPTI wheel off the and-cuda pin", "and_cuda_pins_unmet", cupti_pin, False, {}),
    ("uv venv without pip, NumPy 2", "numpy_incompatible", uv_numpy2, True, {}),
    ("no package index (must change nothing)", "numpy_incompatible", numpy2_tf215, True,
     {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "", "PIP_INDEX_URL": "http://127.0.0.1:9/simple"}),
]  # fmt: skip


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory(prefix="gpucheck-fix-bench-") as tmp:
        for number, (name, cause, build, allow_cpu, env) in enumerate(CASES):
            where = Path(tmp) / f"env{number}"
            try:
                python = build(where)
            except (RuntimeError, subprocess.CalledProcessError, OSError) as exc:
                rows.append((name, cause, f"not built: {exc}", "", ""))
                continue
            before = read_environment(str(python)).versions()
            start = time.perf_counter()
            result = subprocess.run(
                [sys.executable, "-m", "tf_gpucheck", "fix", "--no-tf", "--yes", "--json",
                 *(["--allow-cpu"] if allow_cpu else []), "--python", str(python),
                 "--cwd", str(where)],
                capture_output=True, text=True, check=False,
                env={**os.environ, **env, "GPUCHECK_STATE_DIR": str(Path(tmp) / "state")},
            )  # fmt: skip
            seconds = time.perf_counter() - start
            after = read_environment(str(python)).versions()
            try:
                data = json.loads(result.stdout)
            except ValueError:
                rows.append(
                    (
                        name,
                        cause,
                        f"no JSON (exit {result.returncode})",
                        f"{seconds:.1f}",
                        result.stderr[-200:],
                    )
                )
                continue
            causes = data.get("causes") or {}
            healed = cause in causes.get("healed", []) and not causes.get("new")
            if env:  # the no-index row: nothing may change
                verdict = "unchanged" if after == before and not data["applied"] else "CHANGED"
            else:
                verdict = "yes" if healed else "NO"
            changed = "; ".join(data.get("changes") or []) or ("(none)" if after == before else "?")
            rows.append((name, cause, verdict, f"{seconds:.1f}", changed))
    widths = [max(len(str(r[i])) for r in [*rows, HEAD]) for i in range(5)]
    for row in [HEAD, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)))
    count = sum(1 for r in rows[:-1] if r[2] == "yes")
    print(f"\nhealed {count} of {len(rows) - 1}; the no-index row: {rows[-1][2]}")


HEAD = ("environment", "cause", "healed", "seconds", "what changed")

if __name__ == "__main__":
    main()
