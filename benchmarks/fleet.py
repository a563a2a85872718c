"""How long `gpucheck fleet` takes to judge a synthetic fleet, and whether the cost grows linearly.

    python benchmarks/fleet.py [--nodes 250,500,1000,2000] [--repeats 3]

The fleet is made from two real recordings in tests/data/snapshots/: the 2-core VM without a
driver (real-cpu-only-tf-2.21-no-driver.json) and the two-A100 scenario derived from it. Each
node gets its own host name and SLURM labels; 1 in 20 nodes has no driver, 1 in 50 an older
driver, and the free memory differs from node to node. The whole command runs as a user runs
it (`gpucheck fleet DIR --json`, a fresh process: start-up, reading, judging, JSON out).

Target (issue 13): 1,000 nodes in under 3 s on a 2-core machine, growing linearly.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

from _timing import gpucheck_command, time_command
from tf_gpucheck.snapshot import NodeInfo, Snapshot, load_snapshot

SNAPSHOTS = Path(__file__).resolve().parent.parent / "tests" / "data" / "snapshots"
TARGET_S = 3.0


def synthetic_node(i: int, good: Snapshot, no_driver: Snapshot) -> Snapshot:
    name = f"gpu{i:04d}"
    base = no_driver if i % 20 == 7 else good
    node = NodeInfo(
        hostname=name,
        labels={"SLURMD_NODENAME": name, "SLURM_JOB_ID": "4242", "SLURM_NODEID": str(i)},
    )
    nvml = base.nvml
    if nvml.gpus:
        gpus = tuple(
            dataclasses.replace(g, memory_used_bytes=(i * 37 + g.index * 11) % 64 * 1024**3)
            for g in nvml.gpus
        )
        nvml = dataclasses.replace(nvml, gpus=gpus)
        if i % 50 == 3:
            nvml = dataclasses.replace(
                nvml, driver_version="535.104.05", cuda_driver_version="12.2"
            )
    return dataclasses.replace(base, node=node, nvml=nvml)


def write_fleet(folder: Path, count: int) -> None:
    good = load_snapshot(SNAPSHOTS / "two-a100.json")
    no_driver = load_snapshot(SNAPSHOTS / "real-cpu-only-tf-2.21-no-driver.json")
    for i in range(1, count + 1):
        (folder / f"gpu{i:04d}.json").write_text(synthetic_node(i, good, no_driver).to_json())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="250,500,1000,2000")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(n) for n in args.nodes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="gpucheck-fleet-") as tmp:
        for count in sizes:
            folder = Path(tmp) / str(count)
            folder.mkdir()
            write_fleet(folder, count)
            argv = [*gpucheck_command(), "fleet", str(folder), "--json"]
            timing = time_command(f"fleet {count} nodes", argv, args.repeats)
            rows.append((count, timing.median_s, timing.spread))
    start_up = time_command("gpucheck --help", [*gpucheck_command(), "--help"], args.repeats)
    print(f"{'nodes':>6}  {'median s':>9}  {'range s':>13}  {'ms per node':>11}")
    for count, median, spread in rows:
        per_node = (median - start_up.median_s) / count * 1e3
        print(f"{count:>6}  {median:>9.3f}  {spread:>13}  {per_node:>11.2f}")
    print(f"(start-up, `gpucheck --help`: {start_up.median_s:.3f} s; per node excludes it)")
    verdict = 0
    if 1000 in (count for count, _, _ in rows):
        thousand = next(median for count, median, _ in rows if count == 1000)
        ok = thousand < TARGET_S
        verdict |= 0 if ok else 1
        print(
            f"\n{'PASS' if ok else 'MISS'}  1,000 nodes in {thousand:.2f} s (target < {TARGET_S} s)"
        )
    if len(rows) > 1:
        costs = [(median - start_up.median_s) / count for count, median, _ in rows]
        ratio = max(costs) / min(costs)
        print(
            f"linear: the per-node cost varies {ratio:.2f}x from {rows[0][0]} to {rows[-1][0]} nodes"
        )
    return verdict


if __name__ == "__main__":
    sys.exit(main())
