"""Write src/tf_gpucheck/knowledge/pythons.yaml: the day each CPython release came out, read from
its release-schedule PEP, and the first day PyPI had a final tensorflow wheel for each CPython
minor on each platform, read from PyPI's JSON API (the upload time of each release's files).

    git clone https://github.com/python/peps /tmp/peps
    python scripts/python_dates.py --peps /tmp/peps [--check]

`explain` dates a text by the Python it states: "(from versions: none)" from an interpreter that
came out after PyPI had TensorFlow's wheels for its minor is not that Python's fault, whatever day
the text was written, but its platform's (a 32-bit build, another OS or CPU). --check fails when
the file differs from what the sources say now.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "tf_gpucheck" / "knowledge" / "pythons.yaml"

SCHEDULES = {
    "3.5": 478,
    "3.6": 494,
    "3.7": 537,
    "3.8": 569,
    "3.9": 596,
    "3.10": 619,
    "3.11": 664,
    "3.12": 693,
    "3.13": 719,
    "3.14": 745,
}
"""Each CPython minor's release-schedule PEP (python/peps: peps/pep-NNNN.rst)."""

_RELEASED = re.compile(r"^\s*-\s*(?P<v>3\.\d+\.\d+)(?: final)?:\s*(?P<when>.+?)\s*$")
_ISO = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_WHEEL = re.compile(r"-cp(?P<major>3)(?P<minor>\d+)-")


def _day(text: str) -> str | None:
    """2019-03-25 from "2019-03-25", "Monday, 2019-10-14" or "Sunday, June 26, 2016"."""
    iso = _ISO.search(text)
    if iso:
        return iso.group(1)
    words = re.sub(r"^[A-Za-z]+day,\s*", "", text).split("(")[0].strip()
    try:
        return datetime.datetime.strptime(words, "%B %d, %Y").date().isoformat()
    except ValueError:
        return None


def releases(peps: Path, as_of: str) -> dict[str, str]:
    """Every final CPython release of SCHEDULES and its day (none later than ``as_of``: a
    schedule's days ahead of its checkout are plans)."""
    out: dict[str, str] = {}
    for minor, number in SCHEDULES.items():
        text = (peps / "peps" / f"pep-{number:04d}.rst").read_text(encoding="utf-8")
        for line in text.splitlines():
            match = _RELEASED.match(line)
            if not match or not match["v"].startswith(f"{minor}."):
                continue
            day = _day(match["when"])
            if day and day <= as_of and match["v"] not in out:
                out[match["v"]] = day
    return dict(sorted(out.items(), key=lambda kv: [int(p) for p in kv[0].split(".")]))


def first_wheels(data: dict[str, object]) -> dict[str, dict[str, list[str]]]:
    """Per CPython minor and platform (linux x86_64, macos, windows): the first day a final
    tensorflow release uploaded a wheel for it, and that release."""
    from packaging.version import InvalidVersion, Version

    first: dict[str, dict[str, list[str]]] = {}
    for version, files in data["releases"].items():  # type: ignore[attr-defined]
        try:
            if Version(version).is_prerelease:
                continue
        except InvalidVersion:
            continue
        for f in files:
            name, day = f["filename"], f["upload_time"][:10]
            match = _WHEEL.search(name)
            if not match or f.get("yanked"):
                continue
            if "win_amd64" in name:
                platform = "windows"
            elif "macosx" in name:
                platform = "macos"
            elif "x86_64" in name and "linux" in name:
                platform = "linux"
            else:
                continue
            minor = f"{match['major']}.{match['minor']}"
            seen = first.setdefault(minor, {}).get(platform)
            if seen is None or day < seen[0]:
                first[minor][platform] = [day, version]
    return {
        k: dict(sorted(v.items()))
        for k, v in sorted(first.items(), key=lambda kv: int(kv[0].split(".")[1]))
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peps", type=Path, required=True, help="a checkout of python/peps")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    as_of = (
        subprocess.run(
            ["git", "-C", str(args.peps), "log", "-1", "--format=%cs"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        or datetime.date.today().isoformat()
    )
    url = "https://pypi.org/pypi/tensorflow/json"
    with urllib.request.urlopen(url, timeout=60) as response:
        data = json.load(response)
    document = {
        "how": "python scripts/python_dates.py --peps <a checkout of python/peps>",
        "sources": {
            "released": f"python/peps, peps/pep-NNNN.rst (the release schedule of each minor: "
            f"{', '.join(f'{m} PEP {n}' for m, n in SCHEDULES.items())}), as of {as_of}",
            "tensorflow_first_wheel": f"{url} (each final release's files, their upload_time)",
        },
        "released": releases(args.peps, as_of),
        "tensorflow_first_wheel": first_wheels(data),
    }
    head = (
        "# When each CPython release came out, and the first day PyPI had a final tensorflow\n"
        "# wheel for each CPython minor per platform ([day, release]). Made by\n"
        "# scripts/python_dates.py; `explain` dates a text by the Python it states.\n"
    )
    text = head + yaml.safe_dump(document, sort_keys=False, width=100, default_flow_style=None)
    if args.check:
        same = OUT.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{OUT} differs from its sources")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(document['released'])} CPython releases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
