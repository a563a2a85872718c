"""Read what each released TensorFlow Linux wheel's own binaries ask the loader for.

    python scripts/read_tf_wheels.py [VERSION ...] [--out tests/data/tf_wheels]

For each release (default: every compat_matrix.yaml row from 2.12 on): ``pip download --no-deps``
its Linux x86_64 wheel, read from the files inside it (nothing is imported or loaded):

- ``tensorflow/python/platform/build_info.py``: the build's CUDA, cuDNN and compute capabilities;
- each of TensorFlow's own libraries (``libtensorflow_framework.so.*``, ``libtensorflow_cc.so.*``,
  ``python/_pywrap_tensorflow_internal.so``): DT_NEEDED, RUNPATH/RPATH, and the
  ``Get<Name>DsoHandle`` functions its dynamic symbols name (tsl's dso_loader: one per library
  TensorFlow can dlopen) and those it defines (its code runs the loader, so its RUNPATH is the one
  the dynamic loader searches);
- METADATA's ``and-cuda`` requirements;

writes ``tests/data/tf_wheels/tensorflow-VERSION.json`` (with this command and the wheel's name,
size and sha256) and deletes the wheel. ``tests/test_tf_wheels.py`` holds compat_matrix.yaml's
library facts against these readings.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tf_gpucheck.matrix import load_matrix  # noqa: E402
from tf_gpucheck.probes.elf import read_dynamic  # noqa: E402
from tf_gpucheck.probes.tensorflow import parse_build_info  # noqa: E402

_OWN_LIBRARIES = re.compile(
    r"^tensorflow/(libtensorflow_framework\.so[.\d]*|libtensorflow_cc\.so[.\d]*|"
    r"python/_pywrap_tensorflow_internal\.so)$"
)
PYTHONS = ("3.11", "3.10", "3.9", "3.8", "3.12", "3.7")


def download(version: str, folder: Path) -> Path:
    for python in PYTHONS:
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
            *(f"--platform=manylinux_2_{n}_x86_64" for n in (28, 27, 17, 12)),
            "--python-version",
            python,
            "-d",
            str(folder),
            f"tensorflow=={version}",
        ]
        if subprocess.run(command, capture_output=True, check=False).returncode == 0:
            wheels = sorted(folder.glob(f"tensorflow-{version}-*.whl"))
            if wheels:
                return wheels[0]
    raise SystemExit(f"no Linux x86_64 wheel of tensorflow {version} could be downloaded")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _and_cuda(metadata: str) -> list[str]:
    lines = [
        line.split(":", 1)[1].strip()
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and 'extra == "and-cuda"' in line
    ]
    return sorted(line.split(";", 1)[0].strip() for line in lines)


def read_wheel(wheel: Path) -> dict[str, object]:
    files: dict[str, object] = {}
    build_info: dict[str, object] = {}
    and_cuda: list[str] = []
    with zipfile.ZipFile(wheel) as archive, tempfile.TemporaryDirectory() as scratch:
        for info in archive.infolist():
            name = info.filename
            if name == "tensorflow/python/platform/build_info.py":
                build_info = parse_build_info(archive.read(info).decode("utf-8")) or {}
            elif name.endswith(".dist-info/METADATA"):
                and_cuda = _and_cuda(archive.read(info).decode("utf-8"))
            elif _OWN_LIBRARIES.match(name):
                extracted = archive.extract(info, scratch)
                dynamic = read_dynamic(extracted, symbols=True)
                Path(extracted).unlink()
                if dynamic is None:
                    files[name] = None
                    continue
                files[name] = {
                    "size": info.file_size,
                    "soname": dynamic.soname,
                    "needed": list(dynamic.needed),
                    "runpath": list(dict.fromkeys(dynamic.runpath)),
                    "rpath": list(dict.fromkeys(dynamic.rpath)),
                    "dso_handles": sorted(dynamic.dso_handles),
                    "defines_handles": None
                    if dynamic.defines_handles is None
                    else sorted(dynamic.defines_handles),
                }
    return {"build_info": build_info, "and_cuda": and_cuda, "files": files}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="*")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "tf_wheels")
    args = parser.parse_args()
    versions = args.versions or [
        row.version for row in load_matrix().tensorflow if row.minor >= (2, 12)
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    for version in versions:
        with tempfile.TemporaryDirectory() as folder:
            wheel = download(version, Path(folder))
            reading = {
                "command": f"python scripts/read_tf_wheels.py {version}",
                "wheel": wheel.name,
                "wheel_size": wheel.stat().st_size,
                "wheel_sha256": _sha256(wheel),
                **read_wheel(wheel),
            }
            shutil.rmtree(folder, ignore_errors=True)
        target = args.out / f"tensorflow-{version}.json"
        target.write_text(json.dumps(reading, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        handles = sorted(
            {h for f in reading["files"].values() if f for h in f["dso_handles"]}  # type: ignore[attr-defined]
        )
        print(f"{version}: {wheel.name}: {', '.join(handles)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
