"""Read the declared requirements (Requires-Dist) of each TensorFlow release from PyPI.

    python scripts/record_requires.py 2.0.0 2.1.0 ... > requires.json

For each version, pip resolves `tensorflow==VERSION` alone (`--no-deps`, `--dry-run`) for a
Linux x86_64 CPython and writes its report; the wheel's own METADATA (PEP 658, no download) gives
the requirements. Only the ones gpucheck judges are kept (numpy, protobuf, keras, ml-dtypes,
tf-keras, typing-extensions, h5py, tensorboard). The matrix's `requires:` rows were written
from this script's output.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

KEEP = {
    "numpy",
    "protobuf",
    "keras",
    "ml-dtypes",
    "ml_dtypes",
    "tf-keras",
    "typing-extensions",
    "typing_extensions",
    "h5py",
}
PYTHON_FOR = {
    "1.0": "35",
    "1.1": "35",
    "1.2": "36",
    "1.3": "36",
    "1.4": "36",
    "1.5": "36",
    "1.6": "36",
    "1.7": "36",
    "1.8": "36",
    "1.9": "36",
    "1.10": "36",
    "1.11": "36",
    "1.12": "36",
    "1.13": "37",
    "1.14": "37",
    "1.15": "37",
    "2.0": "37",
    "2.1": "37",
    "2.2": "38",
    "2.3": "38",
    "2.4": "38",
    "2.5": "39",
    "2.6": "39",
    "2.7": "39",
    "2.8": "310",
    "2.9": "310",
    "2.10": "310",
    "2.11": "310",
    "2.12": "311",
    "2.13": "311",
    "2.14": "311",
    "2.15": "311",
    "2.16": "312",
    "2.17": "312",
    "2.18": "312",
    "2.19": "312",
    "2.20": "313",
    "2.21": "313",
}


def requires(version: str) -> list[str]:
    minor = ".".join(version.split(".")[:2])
    py = PYTHON_FOR[minor]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--dry-run",
                "--no-deps",
                "--ignore-installed",
                "--only-binary",
                ":all:",
                "--platform",
                "manylinux_2_27_x86_64",
                "--platform",
                "manylinux2014_x86_64",
                "--platform",
                "manylinux2010_x86_64",
                "--python-version",
                py,
                "--report",
                str(report),
                f"tensorflow=={version}",
            ],
            check=True,
            capture_output=True,
        )
        metadata = json.loads(report.read_text())["install"][0]["metadata"]
    out = []
    for line in metadata.get("requires_dist", []):
        name = (
            line.split(";")[0]
            .split("(")[0]
            .split("<")[0]
            .split(">")[0]
            .split("=")[0]
            .split("!")[0]
            .split("~")[0]
            .strip()
            .lower()
        )
        if name in KEEP and "extra ==" not in line:
            out.append(line)
    return out


if __name__ == "__main__":
    print(json.dumps({v: requires(v) for v in sys.argv[1:]}, indent=1))
