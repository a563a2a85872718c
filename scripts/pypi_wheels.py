"""Write knowledge/wheels.yaml: for each package of the TensorFlow family, which CPython versions
and platforms PyPI has wheels of (over all its releases, and for its newest release), read from
PyPI's JSON API (https://pypi.org/pypi/<name>/json, the files each release uploaded).

    python scripts/pypi_wheels.py [--check]

`explain` judges "No matching distribution found for <package>" (from versions: none) against
this table: pip saw no wheel for the interpreter and platform at all, so a Python the package
never had a wheel for, or a platform it never had one for, is why. --check fetches again and
fails when the file differs (a new release with wheels for a new Python).
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import urllib.request
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "tf_gpucheck" / "knowledge" / "wheels.yaml"

PACKAGES = (
    "tensorflow-addons",
    "tensorflow-text",
    "tensorflow-io",
    "tensorflow-io-gcs-filesystem",
    "tensorflow-data-validation",
    "tensorflow-transform",
    "tensorflow-serving-api",
    "tensorflow-metal",
    "tensorflow-macos",
    "tensorflow-directml",
    "tensorflow-directml-plugin",
    "tensorflow-decision-forests",
    "tensorflow-recommenders-addons",
    "tensorflow-model-analysis",
    "tensorflow-quantum",
    "tensorflow-federated",
    "tensorflow-compression",
    "tensorflow-intel",
    "tensorflow-aarch64",
    "tfx-bsl",
    "tflite-runtime",
)
"""Packages people install beside TensorFlow whose wheels are built per Python and platform (the
names reports quote in "No matching distribution found for ..."); TensorFlow's own releases are
in compat_matrix.yaml."""

_WHEEL = re.compile(
    r"^(?P<name>.+?)-(?P<version>[^-]+)(?:-\d[^-]*)?-(?P<py>[^-]+)-(?P<abi>[^-]+)-(?P<plat>[^-]+)\.whl$"
)


def platform_of(tag: str) -> list[str]:
    """The platforms of a wheel's platform tag (``macosx_11_0_universal2`` is both Macs)."""
    out = []
    for part in tag.split("."):
        if part == "any":
            return ["any"]
        if part.startswith(("manylinux", "linux", "musllinux")):
            out.append("linux_aarch64" if part.endswith("aarch64") else "linux")
        elif part.startswith("macosx"):
            if part.endswith(("universal2", "universal")):
                out += ["macos", "macos_arm64"]
            else:
                out.append("macos_arm64" if part.endswith("arm64") else "macos")
        elif part == "win_amd64":
            out.append("windows")
        elif part == "win32":
            out.append("windows_32bit")
    return out


def pythons_of(tag: str) -> list[str]:
    """``cp39`` -> 3.9; ``py3`` and ``py2.py3`` -> ``3`` / ``2`` (any minor)."""
    out = []
    for part in tag.split("."):
        m = re.fullmatch(r"cp(\d)(\d+)", part)
        if m:
            out.append(f"{m.group(1)}.{m.group(2)}")
        elif re.fullmatch(r"py(\d)", part):
            out.append(part[2])
    return out


def _key(python: str) -> tuple[int, ...]:
    return tuple(int(x) for x in python.split("."))


def table(name: str) -> dict[str, object]:
    url = f"https://pypi.org/pypi/{name}/json"
    with urllib.request.urlopen(url, timeout=60) as answer:
        data = json.load(answer)
    every: dict[str, set[str]] = {}
    newest: dict[str, set[str]] = {}
    releases = data.get("releases", {})
    final = [
        v
        for v, files in releases.items()
        if files and not re.search(r"[a-z]", v.split("+")[0].lstrip("v"))
    ]
    from packaging.version import Version

    last = max(final, key=Version) if final else None
    for version, files in releases.items():
        for f in files:
            if f.get("yanked") or f.get("packagetype") != "bdist_wheel":
                continue
            m = _WHEEL.match(f["filename"])
            if not m:
                continue
            for plat in platform_of(m.group("plat")):
                for py in pythons_of(m.group("py")):
                    every.setdefault(plat, set()).add(py)
                    if version == last:
                        newest.setdefault(plat, set()).add(py)

    def ordered(d: dict[str, set[str]]) -> dict[str, list[str]]:
        return {p: sorted(v, key=_key) for p, v in sorted(d.items())}

    return {
        "source": url,
        "newest": last,
        "wheels": ordered(every),
        "newest_wheels": ordered(newest),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the file is not current")
    args = parser.parse_args()
    packages = {name: table(name) for name in PACKAGES}
    body = {
        "fetched": datetime.date.today().isoformat(),
        "how": "python scripts/pypi_wheels.py (PyPI's JSON API: every release's uploaded wheels)",
        "packages": packages,
    }
    if args.check:
        old = yaml.safe_load(OUT.read_text(encoding="utf-8"))
        if old["packages"] != packages:
            print(f"{OUT.relative_to(ROOT)} is not current: run python scripts/pypi_wheels.py")
            return 1
        return 0
    head = (
        "# Which CPython versions and platforms PyPI has wheels of, per package of the TensorFlow\n"
        "# family: `wheels` over all releases, `newest_wheels` for the newest final release.\n"
        "# Platforms: linux (x86_64), linux_aarch64, macos (x86_64), macos_arm64, windows (64-bit),\n"
        "# windows_32bit, any (a pure-Python wheel; its pythons are '2' or '3', any minor).\n"
        "# Made by scripts/pypi_wheels.py; each package's source is the JSON it was read from.\n"
    )
    OUT.write_text(
        head + yaml.safe_dump(body, sort_keys=False, width=100, default_flow_style=None),
        encoding="utf-8",
    )
    print(f"wrote {OUT.relative_to(ROOT)}: {len(packages)} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
