"""Run in the target interpreter: its installed distributions and where it installs.

Prints one JSON object: ``prefix``, ``base_prefix``, ``in_venv``, ``stdlib``,
``externally_managed`` (PEP 668's marker file in the stdlib folder), ``site_dirs`` (the folders
pip installs into, the user site included when it exists), ``pip`` (its version, or null), and
``dists``: one entry per ``*.dist-info`` / ``*.egg-info`` folder in those dirs with its
``name``, ``version``, ``installer`` (the INSTALLER file: pip, uv, conda), ``info`` (the folder)
and ``files`` (the absolute paths RECORD lists, for the names given as arguments only).

Reads folders only: no gpucheck import, no import of the packages themselves; the syntax of
Python 2.7 and 3.5+ (the target may be old).
"""

import json
import os
import site
import sys
import sysconfig

try:  # only for the type comments; the typing module exists from Python 3.5
    from typing import Any, Dict, List
except ImportError:  # pragma: no cover - Python 2.7 without the typing backport
    Any = Dict = List = None  # type: ignore[assignment,misc]


def _site_dirs():
    # type: () -> List[str]
    dirs = []
    paths = sysconfig.get_paths()
    for key in ("purelib", "platlib"):
        path = paths.get(key)
        if path and path not in dirs:
            dirs.append(path)
    try:
        user = site.getusersitepackages()
    except Exception:  # a site module without it (old virtualenv)
        user = None
    if user and os.path.isdir(user) and user not in dirs:
        dirs.append(user)
    return [d for d in dirs if os.path.isdir(d)]


def _header(folder):
    # type: (str) -> Dict[str, str]
    for name in ("METADATA", "PKG-INFO"):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            fields = {}
            with open(path, "rb") as handle:
                for raw in handle:
                    line = raw.decode("utf-8", "replace").rstrip("\r\n")
                    if not line:
                        break
                    key, _, value = line.partition(":")
                    if key in ("Name", "Version") and key not in fields:
                        fields[key] = value.strip()
            return fields
    return {}


def _read(path):
    # type: (str) -> Any
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace").strip()
    except (IOError, OSError):
        return None


def _normal(name):
    # type: (str) -> str
    return "".join("-" if c in "_." else c for c in name.lower())


def _files(folder):
    # type: (str) -> List[str]
    record = _read(os.path.join(folder, "RECORD"))
    if record is None:
        return []
    base = os.path.dirname(folder)
    out = []
    for line in record.splitlines():
        path = line.rsplit(",", 2)[0].strip('"')
        if path:
            out.append(os.path.normpath(os.path.join(base, path)))
    return out


def main():
    # type: () -> None
    wanted = {_normal(a) for a in sys.argv[1:]}
    dists = []
    for directory in _site_dirs():
        for entry in sorted(os.listdir(directory)):
            if not entry.endswith((".dist-info", ".egg-info")) or entry.startswith("~"):
                continue  # "~umpy-2.0.2.dist-info": pip's uninstall stash, not installed
            folder = os.path.join(directory, entry)
            fields = _header(folder) if os.path.isdir(folder) else {}
            if not fields.get("Name"):
                continue
            name = _normal(fields["Name"])
            dists.append(
                {
                    "name": name,
                    "version": fields.get("Version", ""),
                    "installer": _read(os.path.join(folder, "INSTALLER")),
                    "info": folder,
                    "files": _files(folder) if name in wanted else [],
                }
            )
    stdlib = sysconfig.get_paths().get("stdlib") or ""
    base_prefix = getattr(sys, "base_prefix", getattr(sys, "real_prefix", sys.prefix))
    pip = None
    for directory in _site_dirs():
        for dist in dists:
            if dist["name"] == "pip" and dist["info"].startswith(directory):
                pip = dist["version"]
    json.dump(
        {
            "prefix": sys.prefix,
            "base_prefix": base_prefix,
            "in_venv": sys.prefix != base_prefix,
            "stdlib": stdlib,
            "externally_managed": bool(stdlib)
            and os.path.isfile(os.path.join(stdlib, "EXTERNALLY-MANAGED")),
            "site_dirs": _site_dirs(),
            "pip": pip,
            "dists": dists,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
