"""The standard install of each TensorFlow release, judged by doctor on this machine: what it
says beyond the missing GPU and driver.

    python benchmarks/and_cuda_releases.py [--python python3.11] [--keep] [RELEASE ...]

For each release (default: the last patch of 2.12 to 2.21) a fresh venv gets
`pip install "tensorflow[and-cuda]==RELEASE"` (2.12 and 2.13 have no and-cuda extra: pip installs
plain TensorFlow and says so), then `gpucheck doctor --json --proof-budget 0` runs on it from an
empty folder; every `fail` and `warn` is printed except the GPU and driver this machine does not
have (`container_no_gpu`, `no_nvidia_driver`, `no_nvidia_gpu`). Each venv is removed after its
run (about 3 GB each) unless `--keep`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RELEASES = (
    "2.12.1",
    "2.13.1",
    "2.14.1",
    "2.15.1",
    "2.16.2",
    "2.17.1",
    "2.18.1",
    "2.19.1",
    "2.20.0",
    "2.21.0",
)
MACHINE = frozenset({"container_no_gpu", "no_nvidia_driver", "no_nvidia_gpu"})
"""What this machine lacks: no GPU device, no driver."""


def judge(release: str, python: str, root: Path, keep: bool) -> dict[str, Any]:
    env = root / f"tf{release}"
    start = time.monotonic()
    subprocess.run([python, "-m", "venv", str(env)], check=True)
    pip = [str(env / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    installed = subprocess.run(
        [*pip, f"tensorflow[and-cuda]=={release}"], capture_output=True, text=True, check=False
    )
    built_s = time.monotonic() - start
    if installed.returncode != 0:
        return {"release": release, "install": installed.stderr.strip().splitlines()[-1:]}
    with tempfile.TemporaryDirectory() as folder:
        doctor = subprocess.run(
            [sys.executable, "-m", "tf_gpucheck", "doctor", "--json", "--proof-budget", "0",
             "--python", str(env / "bin" / "python")],
            capture_output=True, text=True, check=False, cwd=folder,
        )  # fmt: skip
    report = json.loads(doctor.stdout)
    said = [
        f"[{f['status']}] {f['check']}: {f.get('cause')}: {f['summary']}"
        for f in report["findings"]
        if f["status"] in ("fail", "warn") and f.get("cause") not in MACHINE
    ]
    if not keep:
        shutil.rmtree(env, ignore_errors=True)
    return {"release": release, "exit": doctor.returncode, "beyond": said, "built_s": built_s}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("releases", nargs="*", default=list(RELEASES))
    parser.add_argument("--python", default="python3.11")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--root", default=None, help="where the venvs go (default: a temp folder)")
    args = parser.parse_args()
    root = Path(args.root or tempfile.mkdtemp(prefix="gpucheck-releases-"))
    root.mkdir(parents=True, exist_ok=True)
    clean = 0
    for release in args.releases:
        result = judge(release, args.python, root, args.keep)
        beyond = result.get("beyond")
        if beyond is None:
            print(f"{release}: the install failed: {result.get('install')}")
            continue
        clean += not beyond
        print(f"{release}: {len(beyond)} beyond the missing GPU and driver (exit {result['exit']})")
        for line in beyond:
            print(f"    {line}")
        sys.stdout.flush()
    print(f"\n{clean} of {len(args.releases)} releases: nothing beyond the missing GPU and driver")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
