"""Report the interpreter, its environment and its installed distributions as JSON on stdout.

Runs in the target interpreter. It must run on every Python a TensorFlow 2.x release supported
(2.7 and 3.5 to 3.13), so it is written in the syntax they share (no f-strings, no annotations)
and reads distributions from the ``*.dist-info`` and ``*.egg-info`` folders on ``sys.path``
itself: ``importlib.metadata`` only exists from Python 3.8. Facts only: gpucheck classifies them.
"""

from __future__ import print_function

import json
import os
import platform
import re
import sys

try:  # only for the type comments; the typing module exists from Python 3.5
    from typing import Any, Dict, List, Optional, Tuple
except ImportError:  # pragma: no cover - Python 2.7 without the typing backport
    Any = Dict = List = Optional = Tuple = None  # type: ignore[assignment,misc]

# shared libraries, plus the XLA tools that the nvidia-cuda-nvcc wheels ship
_LIB_FILE = re.compile(
    r"(^|/)lib[^/]*\.so(\.[0-9.]+)?$|\.dll$|/bin/ptxas(\.exe)?$|libdevice\.10\.bc$"
)
# modules whose import gpucheck follows from the user's folder (found, never executed)
_MODULES = ("tensorflow", "keras", "numpy")
# variables that change what `import tensorflow` / `import keras` do
_IMPORT_ENV = (
    "KERAS_BACKEND",
    "TF_USE_LEGACY_KERAS",
    "KERAS_HOME",
    "PYTHONNOUSERSITE",
    "PYTHONPATH",
    "PYTHONSAFEPATH",
)
_DIST_DIR = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+?)(-py\d.*)?\.(dist|egg)-info$")


def _normalise(name):
    # type: (str) -> str
    return re.sub(r"[-_.]+", "-", name).lower()


def _read(path):
    # type: (str) -> Optional[str]
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except (IOError, OSError):
        return None


def _headers(text):
    # type: (str) -> Tuple[Optional[str], Optional[str], List[str]]
    """Name, Version and Requires-Dist from a METADATA / PKG-INFO text (RFC 822 headers)."""
    name = version = None
    requires = []
    for line in text.splitlines():
        if not line.strip():
            break  # the body (description) starts after the first blank line
        key, _, value = line.partition(":")
        key = key.strip().lower()
        value = value.strip()
        if key == "name" and name is None:
            name = value
        elif key == "version" and version is None:
            version = value
        elif key == "requires-dist":
            requires.append(value)
    return name, version, requires


def _egg_requires(text):
    # type: (Optional[str]) -> List[str]
    """requires.txt of an egg-info folder: plain lines, then "[extra]" or "[:marker]" sections."""
    out = []
    section = ""
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        if not section:
            out.append(line)
            continue
        extra, _, marker = section.partition(":")
        conditions = []
        if extra:
            conditions.append('extra == "%s"' % extra)
        if marker:
            conditions.append("(%s)" % marker)
        out.append("%s; %s" % (line, " and ".join(conditions)))
    return out


def _files(folder, site):
    # type: (str, str) -> List[str]
    """Installed files of a distribution, as absolute paths (RECORD, or installed-files.txt)."""
    record = _read(os.path.join(folder, "RECORD"))
    paths = []
    if record is not None:
        for line in record.splitlines():
            path = line.split(",")[0].strip().strip('"')
            if path:
                paths.append(os.path.normpath(os.path.join(site, path)))
        return paths
    listing = _read(os.path.join(folder, "installed-files.txt"))
    for line in (listing or "").splitlines():
        if line.strip():
            paths.append(os.path.normpath(os.path.join(folder, line.strip())))
    return paths


def _mtime(path):
    # type: (str) -> Optional[float]
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def _distribution(site, entry, where):
    # type: (str, str, str) -> Optional[Dict[str, Any]]
    folder = os.path.join(site, entry)
    match = _DIST_DIR.match(entry)
    is_dir = os.path.isdir(folder)
    if is_dir:
        metadata = _read(
            os.path.join(folder, "METADATA" if entry.endswith(".dist-info") else "PKG-INFO")
        )
    else:  # a distutils egg-info file
        metadata = _read(folder)
    name, version, requires = _headers(metadata or "")
    if not name and match:
        name = match.group("name")
    if not version and match:
        version = match.group("version")
    if not name or not version:
        return None
    normalised = _normalise(name)
    dist = {
        "name": normalised,
        "version": version,
        "requires": None,
        "libs": None,
        "location": where,
        # pip (and uv) write REQUESTED for what the user asked for by name, not for dependencies
        "requested": os.path.exists(os.path.join(folder, "REQUESTED")) if is_dir else None,
        "installed_at": _mtime(folder),
    }  # type: Dict[str, Any]
    # every distribution's requirements: doctor checks them by pip check's rules (a pip check
    # run costs seconds of pip's start-up; these files are already read)
    if entry.endswith(".egg-info") and is_dir:
        requires = _egg_requires(_read(os.path.join(folder, "requires.txt")))
    dist["requires"] = requires
    if normalised.startswith("nvidia-") and is_dir:
        libs = [p for p in _files(folder, site) if _LIB_FILE.search(p.replace("\\", "/"))]
        dist["libs"] = sorted(libs)
    return dist


def distributions(path, places=None):
    # type: (List[str], Optional[Dict[str, str]]) -> List[Dict[str, Any]]
    """Every distribution on ``path`` (sys.path); the first of a name wins, as at import time."""
    found = []
    seen = set()
    places = places if places is not None else _places()
    pth = _pth_entries()
    for site in path:
        if not site or not os.path.isdir(site):
            continue
        try:
            # the folder's own order, as importlib.metadata (and pip) read it: where a name has
            # two records in one folder (pip --target --upgrade leaves the old one), theirs wins
            entries = os.listdir(site)
        except OSError:
            continue
        here = {}  # type: Dict[str, Dict[str, Any]]
        for entry in entries:
            if not entry.endswith((".dist-info", ".egg-info")):
                continue
            dist = _distribution(site, entry, _where(site, places))
            if dist is not None and dist["name"] in here:
                # a second record of one name in one folder: which one an installer reads
                # depends on the installer (its metadata backend), so it is said
                here[dist["name"]].setdefault("twins", []).append(dist["version"])
                continue
            if dist is None or dist["name"] in seen:
                continue
            here[dist["name"]] = dist
            if dist["location"] == "other" and _norm(site) in pth:
                dist["pth"] = pth[_norm(site)]  # the .pth file that put its folder on sys.path
            seen.add(dist["name"])
            found.append(dist)
    return sorted(found, key=lambda d: d["name"])


def _user_site():
    # type: () -> Optional[str]
    try:
        import site

        if getattr(site, "ENABLE_USER_SITE", False):
            return site.getusersitepackages()
    except Exception:  # an embedded or stripped interpreter
        pass
    return None


def _norm(path):
    # type: (str) -> str
    return os.path.normcase(os.path.abspath(path or "."))


def _places():
    # type: () -> Dict[str, str]
    """Each folder of sys.path by what put it there: the environment's own site-packages, the
    user site, the base interpreter's (--system-site-packages), a PYTHONPATH entry."""
    places = {}  # type: Dict[str, str]
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry:
            places[_norm(entry)] = "pythonpath"
    user = _user_site()
    if user:
        places.setdefault(_norm(user), "user_site")
    base = getattr(sys, "base_prefix", None) or getattr(sys, "real_prefix", None) or sys.prefix
    for entry in sys.path:
        key = _norm(entry)
        if key in places or not entry:
            continue
        if key.startswith(_norm(sys.prefix) + os.sep):
            places[key] = "site" if "-packages" in key else "stdlib"
        elif base != sys.prefix and key.startswith(_norm(base) + os.sep):
            places[key] = "system_site" if "-packages" in key else "stdlib"
    return places


def _where(folder, places):
    # type: (str, Dict[str, str]) -> str
    return places.get(_norm(folder), "other")


def _find(name, path):
    # type: (str, List[str]) -> Optional[str]
    """The file or folder ``import name`` would load with ``sys.path`` set to ``path``: the
    interpreter's own import system (its ``sys.meta_path`` finders, so the finders that ``.pth``
    files and editable installs add answer too, and its path finder over ``path``), found
    without running the module. Nothing global changes: in gpucheck's own interpreter this runs
    while other threads import (a ``sys.path`` swapped meanwhile made their imports fail), and
    a module this process already imported is looked for, not taken from ``sys.modules``."""
    try:
        from importlib.machinery import PathFinder
    except ImportError:  # Python 2.7
        return _find_27(name, path)
    spec = None
    for finder in list(sys.meta_path):
        try:
            if finder is PathFinder:
                spec = PathFinder.find_spec(name, list(path))
            else:
                find_spec = getattr(finder, "find_spec", None)
                spec = find_spec(name, None) if find_spec is not None else None
        except Exception:  # a broken path entry or finder: not found from here
            return None
        if spec is not None:
            break
    if spec is None:
        return None
    if spec.origin and spec.origin not in ("namespace", "built-in", "frozen"):
        return spec.origin
    locations = list(spec.submodule_search_locations or [])
    return locations[0] if locations else None


def _find_27(name, path):
    # type: (str, List[str]) -> Optional[str]
    import imp

    try:
        handle, pathname, description = imp.find_module(name, path)
    except ImportError:
        return None
    if handle:
        handle.close()
    if description[2] == imp.PKG_DIRECTORY:  # a package: its __init__, as 3.x's origin
        for init in ("__init__.py", "__init__.pyc"):
            if os.path.exists(os.path.join(pathname, init)):
                return os.path.join(pathname, init)
    return pathname


def _pth_entries():
    # type: () -> Dict[str, str]
    """Each folder a ``.pth`` file put on sys.path, and that file (site.py reads the ``.pth``
    files of every site folder: a line that is not an ``import`` is a folder, relative to the
    site folder, added when it exists)."""
    sites = []  # type: List[str]
    try:
        import site

        sites = list(getattr(site, "getsitepackages", list)())
        user = _user_site()
        if user:
            sites.append(user)
    except Exception:
        pass
    for entry in sys.path:
        if entry and entry.endswith(("site-packages", "dist-packages")) and entry not in sites:
            sites.append(entry)
    found = {}  # type: Dict[str, str]
    for folder in sites:
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".pth"))
        except OSError:
            continue
        for pth in names:
            text = _read(os.path.join(folder, pth)) or ""
            for raw in text.splitlines():
                line = raw.strip()
                if not line or line.startswith(("#", "import ", "import\t")):
                    continue
                key = _norm(os.path.join(folder, line))
                found.setdefault(key, os.path.join(folder, pth))
    return found


def _inside(path, prefix):
    # type: (Optional[str], str) -> Optional[bool]
    """Whether ``path`` lies under ``prefix`` once links are resolved (a venv's files lie under
    its prefix; another environment's, the user site's or a folder on PYTHONPATH do not)."""
    if not path:
        return None
    real = os.path.normcase(os.path.realpath(path))
    root = os.path.normcase(os.path.realpath(prefix))
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _environment_folder(entry):
    # type: (Optional[str]) -> Optional[bool]
    """Whether a sys.path entry is an environment's own package folder (a ``site-packages`` or
    ``dist-packages``, or a folder with a venv's ``pyvenv.cfg`` or conda's ``conda-meta`` up to
    three levels above it), rather than a folder of the user's (``pip install --target DIR``)."""
    if not entry:
        return None
    folder = os.path.realpath(entry)
    if os.path.basename(folder) in ("site-packages", "dist-packages"):
        return True
    for _ in range(4):
        if os.path.exists(os.path.join(folder, "pyvenv.cfg")) or os.path.isdir(
            os.path.join(folder, "conda-meta")
        ):
            return True
        folder = os.path.dirname(folder)
    return False


def _entry_of(origin, path):
    # type: (Optional[str], List[str]) -> Optional[str]
    """The sys.path entry ``origin`` was found through: the first one that holds it."""
    if not origin:
        return None
    site = _norm(_site_of(origin))
    for entry in path:
        if _norm(entry) == site:
            return entry or "."
    return None


def _keras_config():
    # type: () -> Tuple[Optional[str], Optional[str]]
    """keras.json (``$KERAS_HOME`` or ``~/.keras``) and the backend it names."""
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    path = os.path.join(home, "keras.json")
    text = _read(path)
    if text is None:
        return None, None
    try:
        backend = json.loads(text).get("backend")
    except (ValueError, AttributeError):
        return path, None
    return path, backend if isinstance(backend, str) else None


def _adds_cwd():
    # type: () -> bool
    """Whether the user's own ``python`` puts their folder first on sys.path (``python -c``, the
    REPL, ``python script.py`` in it): not with ``-I`` or ``PYTHONSAFEPATH`` (Python 3.11+)."""
    flags = sys.flags
    return not (getattr(flags, "isolated", 0) or getattr(flags, "safe_path", False))


def imports(cwd):
    # type: (Optional[str]) -> Dict[str, Any]
    """How the user's own ``python`` in ``cwd`` imports TensorFlow and Keras, and how the
    environment alone would (their folder and PYTHONPATH left out)."""
    places = _places()
    pth = _pth_entries()
    user_path = list(sys.path)
    if cwd and _adds_cwd():
        places.setdefault(_norm(cwd), "cwd")
        user_path.insert(0, cwd)  # `python -c`, the REPL, a notebook: their folder first
    clean = [p for p in sys.path if places.get(_norm(p)) not in ("pythonpath", "cwd")]
    modules = []
    for name in _MODULES:
        origin = _find(name, user_path)
        clean_origin = _find(name, clean)
        entry = _entry_of(origin, user_path)
        place = _origin_place(origin, name, places)
        added_by = place
        pth_file = None
        if entry is not None and _norm(entry) in pth and place in ("other", None):
            added_by, pth_file = "pth", pth[_norm(entry)]
        elif origin is not None and entry is None:
            added_by = "finder"  # a meta-path finder (an editable install) answered
        modules.append(
            {
                "name": name,
                "origin": origin,
                "where": place,
                "clean_origin": clean_origin,
                "clean_where": _origin_place(clean_origin, name, places),
                "distribution": _packaged(origin, name),
                "owners": _owners(origin, name),
                "path_entry": entry,
                "added_by": added_by,
                "pth": pth_file,
                "in_target": _inside(origin, sys.prefix),
                "entry_environment": _environment_folder(entry),
                "shadows": _shadows(name, user_path, clean_origin, places),
            }
        )
    config, backend = _keras_config()
    return {
        "cwd": cwd,
        "cwd_on_path": bool(cwd and _adds_cwd()),
        "pythonpath": [e for e in os.environ.get("PYTHONPATH", "").split(os.pathsep) if e],
        "user_site_enabled": bool(_user_site()),
        "env": {k: os.environ[k] for k in _IMPORT_ENV if k in os.environ},
        "keras_config": config,
        "keras_config_backend": backend,
        "modules": modules,
    }


def _shadows(name, path, clean_origin, places):
    # type: (str, List[str], Optional[str], Dict[str, str]) -> List[str]
    """Every file or folder of the user's own that ``import name`` would load before the
    environment's package, in ``sys.path`` order: each entry ahead of the one the environment's
    own is found through, asked alone (renaming the first leaves the next one found)."""
    found = []  # type: List[str]
    stop = _norm(_site_of(clean_origin)) if clean_origin else None
    for entry in path:
        if stop is not None and _norm(entry) == stop:
            break
        if places.get(_norm(entry)) not in ("cwd", "pythonpath", None):
            continue  # the environment's own folders, the user site, the standard library
        origin = _find(name, [entry])
        if (
            origin is not None
            and os.path.isfile(origin)  # a folder alone is a namespace portion: it hides nothing
            and origin not in found
            and _norm(_site_of(origin)) == _norm(entry)  # not a finder's answer
            and _packaged(origin, name) is False
        ):
            found.append(origin)
    return found


def _site_of(origin):
    # type: (str) -> str
    """The folder on sys.path that holds a module's file or package folder."""
    if os.path.basename(origin) == "__init__.py":
        return os.path.dirname(os.path.dirname(origin))
    return os.path.dirname(origin)


def _packaged(origin, name):
    # type: (Optional[str], str) -> Optional[bool]
    """Whether an installed distribution provides it (an installed package), or nothing does (a
    user's own file or folder)."""
    owners = _owners(origin, name)
    return None if owners is None else bool(owners)


def _owners(origin, name):
    # type: (Optional[str], str) -> Optional[List[str]]
    """The distributions beside the module whose RECORD lists its file (``keras/__init__.py``)
    or whose top_level.txt names it: ``keras-nightly`` for ``keras``; two where a later install
    wrote over the other's files. ``None``: not found, or its folder could not be listed."""
    if origin is None:
        return None
    index = _top_level_index(_site_of(origin))
    if index is None:
        return None
    return list(index.get(name, ()))


_TOP_LEVEL = {}  # type: Dict[str, Optional[Dict[str, List[str]]]]


def _top_level_index(site):
    # type: (str) -> Optional[Dict[str, List[str]]]
    """Every top-level module of a site folder -> the distributions that install it, read once
    per folder: each metadata folder's top_level.txt, else the top-level names its RECORD lists
    (a package's ``NAME/__init__.py``, a module's ``NAME.py``)."""
    key = os.path.normcase(os.path.abspath(site))
    if key in _TOP_LEVEL:
        return _TOP_LEVEL[key]
    try:
        entries = sorted(os.listdir(site))
    except OSError:
        _TOP_LEVEL[key] = None
        return None
    index = {}  # type: Dict[str, List[str]]
    for entry in entries:
        if not entry.endswith((".dist-info", ".egg-info")):
            continue
        folder = os.path.join(site, entry)
        match = _DIST_DIR.match(entry)
        dist = _normalise(match.group("name")) if match else entry
        top = _read(os.path.join(folder, "top_level.txt"))
        names = set(top.split()) if top is not None else set()
        record = _read(os.path.join(folder, "RECORD")) if top is None else None
        for line in (record or "").splitlines():
            path = line.split(",", 1)[0]
            parts = path.split("/")
            if len(parts) == 2 and parts[1] == "__init__.py":
                names.add(parts[0])
            elif len(parts) == 1 and path.endswith(".py"):
                names.add(path[:-3])
        for module in names:
            index.setdefault(module, []).append(dist)
    _TOP_LEVEL[key] = index
    return index


def _origin_place(origin, name, places):
    # type: (Optional[str], str, Dict[str, str]) -> Optional[str]
    if origin is None:
        return None
    return places.get(_norm(_site_of(origin)), "other")


def _installer(dists):
    # type: (List[Dict[str, Any]]) -> Optional[str]
    """pip when the environment has it, else uv when uv made it (pyvenv.cfg says ``uv = ...``)."""
    if any(d["name"] == "pip" for d in dists):
        return "pip"
    config = _read(os.path.join(sys.prefix, "pyvenv.cfg")) or ""
    for line in config.splitlines():
        if line.partition("=")[0].strip() == "uv":
            return "uv"
    return None


def _has(name):
    # type: (str) -> bool
    """A standard-library module is there (Debian splits venv's ensurepip into python3-venv)."""
    return _find(name, sys.path) is not None


def _base_executable(prefix):
    # type: (str) -> Optional[str]
    """The interpreter a virtual environment was made from, as the environment itself names it
    (``sys._base_executable`` where it differs, else its pyvenv.cfg: ``executable``,
    virtualenv's ``base-executable``, or ``home`` with this version's name), when that file
    exists: what runs pip outside the environment (a venv's pip leaves the user site alone)."""
    named = getattr(sys, "_base_executable", None)
    if named and _norm(named) != _norm(sys.executable) and os.path.isfile(named):
        return str(named)
    config = {}  # type: Dict[str, str]
    for line in (_read(os.path.join(prefix, "pyvenv.cfg")) or "").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            config[key.strip().lower()] = value.strip()
    found = [config.get("executable"), config.get("base-executable")]
    home = config.get("home")
    if home:
        major, minor = sys.version_info[:2]
        found += [
            os.path.join(home, "python%d.%d" % (major, minor)),
            os.path.join(home, "python%d" % major),
        ]
    for candidate in found:
        if candidate and os.path.isfile(candidate) and _norm(candidate) != _norm(sys.executable):
            return candidate
    return None


def _base_pip():
    # type: () -> Tuple[bool, bool]
    """(the base interpreter has pip, it is marked externally managed): what the venv sees of
    its base, its site-packages on sys.path (``--system-site-packages``) and its standard
    library's EXTERNALLY-MANAGED file (PEP 668)."""
    places = _places()
    base = [p for p in sys.path if places.get(_norm(p)) in ("system_site", "user_site", "stdlib")]
    marked = False
    try:
        import sysconfig

        stdlib = sysconfig.get_path("stdlib")
        marked = bool(stdlib) and os.path.isfile(os.path.join(stdlib, "EXTERNALLY-MANAGED"))
    except Exception:
        pass
    return _find("pip", base) is not None, marked


def collect(cwd=None):
    # type: (Optional[str]) -> Dict[str, Any]
    prefix = sys.prefix
    base_prefix = getattr(sys, "base_prefix", None) or getattr(sys, "real_prefix", None) or prefix
    if os.path.isdir(os.path.join(prefix, "conda-meta")):
        kind = "conda"
    elif prefix != base_prefix or hasattr(sys, "real_prefix"):
        kind = "venv"
    else:
        kind = "system"
    dists = distributions(sys.path)
    base_executable = _base_executable(prefix) if kind == "venv" else None
    base_pip, base_marked = _base_pip() if base_executable else (None, None)
    return {
        "python_version": platform.python_version(),
        "python_executable": sys.executable,
        "prefix": prefix,
        "base_prefix": base_prefix,
        "base_executable": base_executable,
        "base_pip": base_pip,
        "base_externally_managed": base_marked,
        "kind": kind,
        "user_site": _user_site(),
        "sys_platform": sys.platform,
        "platform_system": platform.system(),
        "platform_machine": platform.machine(),
        "distributions": dists,
        "installer": _installer(dists),
        "makes_venvs": _has("venv") and _has("ensurepip"),
        "imports": imports(cwd),
    }


if __name__ == "__main__":
    sys.path = [
        p
        for p in sys.path
        if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))
    ]
    facts = collect(sys.argv[2] if len(sys.argv) > 2 else None)
    if len(sys.argv) > 1:  # a file: whatever a sitecustomize prints on stdout cannot spoil it
        with open(sys.argv[1], "w") as handle:
            json.dump(facts, handle)
    else:
        json.dump(facts, sys.stdout)
