"""Every statement doctor makes, checked against the truth on real environments drawn at random.

    python benchmarks/claims.py --seed 1 --count 30 [--keep] [--only LAYOUT] [--json OUT]
    python benchmarks/claims.py --replay recipe.json      # rebuild one printed recipe

For each environment (a recipe from benchmarks/claims_recipes.py, built for real), this runs
``python -m tf_gpucheck doctor --json --python <env python> --cwd <user folder>`` as the user
would (their variables; sometimes with the environment activated and no --python; --no-tf on
most, TensorFlow imported on a share of those that have it), reads each statement doctor makes,
and checks it by experiment (/work/claims/CONTRACT.md, "the contract"):

- where a module comes from: the target's own ``importlib.util.find_spec`` run in the user's
  folder with the user's variables;
- which distributions are installed: ``importlib.metadata`` in the target, from a folder of its
  own (the user's variables kept, their folder not on the path);
- requirements: the installer's own check (``python -m pip check``; ``uv pip check`` where the
  environment has no pip);
- which library loads: a C program with the requesting library's RUNPATH (``$ORIGIN`` expanded)
  run with the user's LD_LIBRARY_PATH, ``dlopen(soname)`` then ``dlinfo(RTLD_DI_LINKMAP)``, and
  the version from the library's own call;
- device nodes: glob;
- the printed first fix: run on a hard-linked copy of the environment (``cp -al``) in the
  user's folder with the user's variables; it works when it exits 0, doctor on the copy no longer
  reports that cause, and nothing the recipe installed at a chosen version went down. The
  wheelhouse stands in for the index only where the user's pip uses one (pip's own option
  parser, run in their setting with the fix's variables, says so). A fix that needs a download
  the wheelhouse lacks is run as ``--dry-run`` (pip: without ``--report``) against the index
  instead, with its wheels kept in ``WHEELHOUSE-dry`` and given as find-links after the user's
  own (pip takes a file found there before the same file on an index: nothing is downloaded
  twice); driver, container and other host fixes are "not checkable".

Statements come from the contract's ``observed`` lists when doctor writes them, and from the
sentences doctor writes today (see TEXT_STATEMENTS: each extractor names the text it matches),
so a run on today's main gives the "before" figure. What cannot be observed from inside (whether
the host has a GPU) is counted apart as an unobserved statement made as fact.

A seed reproduces a run: recipes come from ``random.Random(f"gpucheck-claims/{seed}/{index}")``
and every listing is sorted; the wheelhouse must hold the same wheels.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

import claims_recipes as recipes

Json = dict[str, Any]

# --- doctor, run as the user runs it --------------------------------------------------------


@dataclass
class DoctorRun:
    report: Json | None
    returncode: int
    seconds: float
    stderr_tail: str
    command: list[str]


def run_doctor(
    built: recipes.Built,
    gpucheck_python: str,
    *,
    no_tf: bool,
    activated: bool,
    target: str | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> DoctorRun:
    """``python -m tf_gpucheck doctor --json`` in the user's folder with the user's variables
    (activated: VIRTUAL_ENV and PATH of the environment, no --python)."""
    cwd = cwd or built.cwd
    variables = dict(
        env if env is not None else (built.activate_env if activated else built.user_env)
    )
    # doctor's dry runs end with it: a worker writing its answer into the environment's HOME
    # after doctor returned would race the next environment's build of the same folder
    variables["TF_GPUCHECK_PROOF_WORKERS"] = "0"
    command = [gpucheck_python, "-m", "tf_gpucheck", "doctor", "--json"]
    if no_tf:
        command.append("--no-tf")
    if not activated:
        command += ["--python", target or built.target]
    command += ["--cwd", str(cwd)]
    start = time.monotonic()
    try:
        proc = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=variables,
            cwd=cwd,
            check=False,
            timeout=600,
        )
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired:
        code, out, err = 124, "", "doctor timed out after 600 s"
    seconds = time.monotonic() - start
    try:
        report = json.loads(out)
    except ValueError:
        report = None
    return DoctorRun(
        report if isinstance(report, dict) else None,
        code,
        seconds,
        "\n".join(err.splitlines()[-5:]),
        command,
    )


# --- statements -----------------------------------------------------------------------------


@dataclass
class Statement:
    """One thing doctor states, as a claim an experiment can check."""

    kind: str
    """import, no_shadow, import_broken, distribution, distribution_absent, requirement,
    requirements_met, numpy_abi, library, library_absent, device_nodes, installer, proof, host,
    declared"""
    source: str
    """``observed`` (the contract's lists) or ``text`` (a sentence of today's doctor)."""
    check: str
    said: str
    claim: Json
    verdict: str = "unchecked"
    """true, false, unchecked (the oracle cannot do this experiment), unobserved (a statement
    about what cannot be seen from inside, made as fact)"""
    truth: str = ""

    def key(self) -> str:
        return json.dumps([self.kind, self.check, self.claim], sort_keys=True)


TF_IMPORT_MODULES = ("tensorflow", "keras", "numpy")

_TF_DISTRIBUTIONS = frozenset(
    {
        "tensorflow",
        "tensorflow-cpu",
        "tensorflow-gpu",
        "tensorflow-intel",
        "tensorflow-macos",
        "tensorflow-rocm",
        "intel-tensorflow",
        "tf-nightly",
        "tf-nightly-cpu",
        "tf-nightly-gpu",
        "tensorflow-aarch64",
        "tensorflow-cpu-aws",
        "nvidia-tensorflow",
    }
)
"""Distributions that install the ``tensorflow`` package (PyPI)."""


def _strip_init(path: str) -> str:
    return path.removesuffix("/__init__.py")


# Each extractor: (check, where: summary|details|lines, the regex it matches, what it claims).
# The regexes are the sentences doctor writes (src/tf_gpucheck/checks/layers/*.py), matched whole.

_RE = {
    # user_import ok: "`import tensorflow` from /w/work loads this environment's TensorFlow"
    "import_ok": re.compile(
        r"^`import tensorflow`(?: from (?P<cwd>.+?))? loads this environment's TensorFlow$"
    ),
    # user_import ok: "nothing shadows the environment's packages from /w/work"
    "no_shadow": re.compile(r"^nothing shadows the environment's packages(?: from (?P<cwd>.+))?$"),
    # user_import fail: "/w/work/tensorflow.py (in your folder) shadows the tensorflow package: ..."
    "shadowed": re.compile(
        r"^(?P<path>.+) \(in (?P<where>.+?)\) shadows the (?P<module>[\w.]+) package: `import [\w.]+` loads it instead$"
    ),
    # user_import fail: "PYTHONPATH brings another tensorflow: `import tensorflow` loads P, not this environment's"
    "pythonpath": re.compile(
        r"^PYTHONPATH brings another (?P<module>[\w.]+): `import [\w.]+` loads (?P<path>.+), not this environment's$"
    ),
    # user_import fail: "tensorflow 2.21.0 is installed, but its files are not: ..., so `import tensorflow` fails or gets an empty module"
    "broken": re.compile(
        r"^(?P<name>\S+) (?P<version>\S+) is installed, but its files are not: (?P<what>.+), so `import tensorflow` fails or gets an empty module$"
    ),
    # tf_requirements details: "numpy 1.23.5 does not satisfy tensorflow's requirement numpy>=1.26.0"
    "req_unmet": re.compile(
        r"^(?P<name>\S+) (?P<have>\S+) does not satisfy (?P<of>\S+)'s requirement (?P<req>.+?)(?: \(same major version\))?$"
    ),
    # tf_requirements details: "keras is not installed (tensorflow requires it)"
    "req_missing": re.compile(r"^(?P<name>\S+) is not installed \((?P<of>\S+) requires it\)$"),
    # tf_requirements details: "NumPy 2.2.6 with TensorFlow 2.15.1, which was compiled against NumPy 1.x"
    "numpy_abi": re.compile(
        r"^NumPy (?P<numpy>\S+) with TensorFlow (?P<tf>\S+), which was compiled against NumPy 1\.x$"
    ),
    # tf_requirements ok: "all 8 declared requirements of TensorFlow and Keras are met"
    "req_met": re.compile(
        r"^all (?P<n>\d+) declared requirements of TensorFlow and Keras are met$"
    ),
    # tf_requirements ok, from pip check's rules: "<by>: every requirement of TensorFlow, Keras and their packages is met"
    "req_met_by": re.compile(
        r"^(?P<by>.+): every requirement of TensorFlow, Keras and their packages is met$"
    ),
    # cuda_files details (warn): "<path>: now <owner> <version>'s, installed after <a> <v> (both list this file)"
    "file_overwritten": re.compile(
        r"^(?P<path>/\S+): now (?P<owner>\S+) (?P<version>\S+)'s, installed after (?P<before>.+) \(both list this file\)$"
    ),
    # cuda_files details (ok): "<path>: <owner> <version>"
    "file_own": re.compile(r"^(?P<path>/\S+): (?P<owner>[a-z0-9][a-z0-9._-]*) (?P<version>\S+)$"),
    # tf_install fail: "TensorFlow is not installed in this Python"
    "tf_absent": re.compile(r"^TensorFlow is not installed in this Python$"),
    # tf_install fail: "2 TensorFlow distributions are installed at once: tensorflow, tensorflow-cpu"
    "tf_many": re.compile(
        r"^(?P<n>\d+) TensorFlow distributions are installed at once: (?P<names>.+)$"
    ),
    # tf_install fail: "tensorflow-cpu is installed: it has no GPU support"
    "tf_cpu": re.compile(r"^(?P<name>\S+) is installed: it has no GPU support$"),
    # tf_install ok (and details "Installed: ..."): "tensorflow 2.21.0, tensorflow-cpu 2.21.0"
    "listing": re.compile(
        r"^(?:Installed: )?(?P<list>[A-Za-z0-9][\w.-]* [0-9][\w.+!-]*(?:, [A-Za-z0-9][\w.-]* [0-9][\w.+!-]*)*)\.?$"
    ),
    # keras ok: "Keras 3.15.1 (Keras 3, as TensorFlow 2.21 expects)" / "Keras 2.15.0 matches TensorFlow 2.15.1"
    "keras_ok": re.compile(
        r"^Keras (?P<version>\S+) (?:\(Keras 3, as TensorFlow \S+ expects\)|matches TensorFlow \S+)$"
    ),
    # keras fail: "TensorFlow 2.21.0 needs Keras 3, found 2.15.0" / "... needs Keras 2.15, found none"
    "keras_need": re.compile(r"^TensorFlow \S+ needs Keras \S+, found (?P<version>\S+)$"),
    # keras fail/ok: "TF_USE_LEGACY_KERAS is set but tf-keras is not installed" / "... tf-keras 2.15.1"
    "legacy": re.compile(r"^TF_USE_LEGACY_KERAS is set but tf-keras (?P<version>.+)$"),
    "legacy_ok": re.compile(r"^tf-keras (?P<version>\S+) \(TF_USE_LEGACY_KERAS\)$"),
    # keras_backend fail: "KERAS_BACKEND asks Keras for the jax backend, but jax is not installed: ..."
    "backend_missing": re.compile(
        r"^.+ asks Keras for the (?P<backend>\w+) backend, but (?P<needs>[\w-]+) is not installed"
    ),
    # cuda_libraries / cudnn details: "libcudart 12.5 (pip nvidia-cuda-runtime-cu12, /p/libcudart.so.12): loads"
    "library": re.compile(
        r"^(?P<name>lib[\w-]+) (?:(?P<version>[0-9][\w.]*) )?\((?P<source>\w+)(?: (?P<package>[\w.-]+))?, (?P<path>/[^)]+)\): (?P<state>.+)$"
    ),
    # cuda_libraries details: "libcudnn: not found"
    "library_absent": re.compile(r"^(?P<name>lib[\w-]+): not found$"),
    # place fail: "a docker container started without GPU access: no /dev/nvidia* device"
    "no_nodes": re.compile(r"^(?P<what>.+) started without GPU access: no /dev/nvidia\* device$"),
    # nvidia_driver fail: "no NVIDIA driver: NVML library not found; TensorFlow will run on the CPU."
    "no_nvml": re.compile(r"^no NVIDIA driver: NVML library not found"),
}


def _listing(text: str) -> list[tuple[str, str]]:
    return [tuple(item.split(" ", 1)) for item in text.split(", ")]  # type: ignore[misc]


def text_statements(finding: Json) -> list[Statement]:
    """The statements of one finding's sentences (summary, details lines), strictly: a sentence
    no extractor matches states nothing here."""
    check = str(finding.get("check") or "")
    summary = str(finding.get("summary") or "")
    details = str(finding.get("details") or "")
    lines = [line.strip() for line in details.splitlines() if line.strip()]
    out: list[Statement] = []

    def add(kind: str, said: str, **claim: Any) -> None:
        out.append(Statement(kind, "text", check, said, claim))

    if check == "user_import":
        if m := _RE["import_ok"].match(summary):
            add(
                "import",
                summary,
                module="tensorflow",
                cwd=m["cwd"],
                in_target=True,
                package_of_distribution=True,
            )
        elif m := _RE["no_shadow"].match(summary):
            add("no_shadow", summary, modules=list(TF_IMPORT_MODULES), cwd=m["cwd"])
        elif m := _RE["shadowed"].match(summary):
            add(
                "import",
                summary,
                module=m["module"],
                origin=m["path"],
                package_of_distribution=False,
            )
        elif m := _RE["pythonpath"].match(summary):
            add(
                "import",
                summary,
                module=m["module"],
                origin=m["path"],
                in_target=False,
                added_by="pythonpath",
            )
        elif m := _RE["broken"].match(summary):
            add("distribution", summary, name=m["name"], version=m["version"])
            add("import_broken", summary, module="tensorflow")
    elif check == "tf_requirements":
        for line in lines:
            if m := _RE["req_unmet"].match(line):
                add(
                    "requirement",
                    line,
                    of=m["of"],
                    name=m["name"],
                    have=m["have"],
                    requirement=m["req"],
                )
            elif m := _RE["req_missing"].match(line):
                add(
                    "requirement",
                    line,
                    of=m["of"],
                    name=m["name"],
                    have=None,
                    requirement=m["name"],
                )
            elif m := _RE["numpy_abi"].match(line):
                add("numpy_abi", line, numpy=m["numpy"], tensorflow=m["tf"])
        if _RE["req_met"].match(summary) or _RE["req_met_by"].match(summary):
            add("requirements_met", summary, of=["tensorflow*", "keras", "tf-keras"])
    elif check == "tf_install":
        if _RE["tf_absent"].match(summary):
            add(
                "distribution_absent",
                summary,
                names=sorted(_TF_DISTRIBUTIONS),
                package="tensorflow",
            )
        elif m := _RE["tf_cpu"].match(summary):
            add("distribution", summary, name=m["name"], version=None)
        elif _RE["tf_many"].match(summary):
            for line in lines:
                if line.startswith("Installed: ") or "Installed: " in line:
                    listed = line[line.index("Installed: ") :]
                    if lm := _RE["listing"].match(listed):
                        for name, version in _listing(lm["list"]):
                            add("distribution", listed, name=name, version=version)
        elif finding.get("status") == "ok" and (m := _RE["listing"].match(summary)):
            for name, version in _listing(m["list"]):
                add("distribution", summary, name=name, version=version)
    elif check == "keras":
        if m := _RE["keras_ok"].match(summary):
            add("distribution", summary, name="keras", version=m["version"])
        elif m := _RE["keras_need"].match(summary):
            if m["version"] == "none":
                add("distribution_absent", summary, names=["keras"])
            else:
                add("distribution", summary, name="keras", version=m["version"])
        elif m := _RE["legacy"].match(summary):
            if m["version"] == "is not installed":
                add("distribution_absent", summary, names=["tf-keras"])
            else:
                add("distribution", summary, name="tf-keras", version=m["version"])
        elif m := _RE["legacy_ok"].match(summary):
            add("distribution", summary, name="tf-keras", version=m["version"])
    elif check == "keras_backend":
        if m := _RE["backend_missing"].match(summary):
            add("distribution_absent", summary, names=[m["needs"]], package=m["needs"])
    elif check in ("cuda_libraries", "cudnn"):
        for line in lines:
            if m := _RE["library"].match(line):
                add(
                    "library",
                    line,
                    name=m["name"],
                    path=m["path"],
                    version=m["version"],
                    loads=m["state"] == "loads",
                )
            elif m := _RE["library_absent"].match(line):
                add("library_absent", line, name=m["name"])
    elif check == "cuda_files":
        for line in lines:
            if m := _RE["file_overwritten"].match(line):
                add("file_owner", line, path=m["path"], owner=m["owner"], overwrote=True)
            elif m := _RE["file_own"].match(line):
                add("file_owner", line, path=m["path"], owner=m["owner"], overwrote=False)
    elif check == "place":
        if m := _RE["no_nodes"].match(summary):
            add("device_nodes", summary, pattern="/dev/nvidia*", found=[])
            add("host", summary, what=f"{m['what']} started without GPU access")
    elif check == "nvidia_driver" and _RE["no_nvml"].match(summary):
        add("library_absent", summary, name="libnvidia-ml", soname="libnvidia-ml.so.1")
    return out


def statements(report: Json) -> list[Statement]:
    """Every statement of a doctor report: its ``observed`` lists (findings, causes, first fix)
    and its sentences (findings only: causes repeat them). Duplicates are counted once."""
    found: list[Statement] = []
    for finding in report.get("findings") or []:
        found += text_statements(finding)
    holders = list(report.get("findings") or []) + list(report.get("causes") or [])
    if isinstance(report.get("first_fix"), dict):
        holders.append(report["first_fix"])
    for holder in holders:
        for obs in holder.get("observed") or []:
            if isinstance(obs, dict) and obs.get("kind"):
                claim = {k: v for k, v in obs.items() if k != "kind"}
                if obs["kind"] == "installer":
                    claim["fix"] = holder.get("fix")  # what the installer was asked
                found.append(
                    Statement(
                        str(obs["kind"]),
                        "observed",
                        str(holder.get("check") or ""),
                        json.dumps(obs, sort_keys=True),
                        claim,
                    )
                )
    for holder in holders:  # what a fix's comment says a package declares
        said = str(holder.get("fix") or "")
        for claim in declared_claims(said):
            found.append(Statement("declared", "text", str(holder.get("check") or ""), said, claim))
    first = report.get("first_fix")
    if isinstance(first, dict) and isinstance(first.get("proof"), dict):
        proof = first["proof"]
        found.append(
            Statement(
                "proof",
                "observed",
                str(first.get("check") or ""),
                json.dumps(proof, sort_keys=True),
                {"status": proof.get("status"), "fix": first.get("fix")},
            )
        )
    unique: dict[str, Statement] = {}
    for item in found:
        unique.setdefault(item.key(), item)
    return list(unique.values())


_DECLARES = re.compile(r'"(?P<requirement>[^"]+)"\s+#\s*what TensorFlow (?P<version>\S+) declares')
_REQUIRES = re.compile(
    r"#\s*(?P<of>[A-Za-z0-9][\w.-]*) (?P<version>\d[\w.+!-]*) requires (?P<requirement>\S+)$"
)


def declared_claims(fix: str) -> list[Json]:
    """``pip install "ml-dtypes~=0.2.0"  # what TensorFlow 2.15.1 declares`` and
    ``...  # jax 0.6.2 requires ml_dtypes>=0.5.0``: a package of a version declares a
    requirement (its own metadata's Requires-Dist)."""
    out: list[Json] = []
    if m := _DECLARES.search(fix):
        out.append({"of": "tensorflow", "version": m["version"], "requirement": m["requirement"]})
    if m := _REQUIRES.search(fix.strip()):
        out.append({"of": m["of"], "version": m["version"], "requirement": m["requirement"]})
    return out


_REQUIRES_DIST = """
import json, sys
import importlib.metadata as m
out = {}
for d in m.distributions():
    name = (d.metadata["Name"] or "").lower().replace("_", "-").replace(".", "-")
    if name in sys.argv[1:]:
        out.setdefault(name, [d.version, list(d.requires or [])])
print(json.dumps(out))
"""


def _judge_declared(claim: Json, oracle: Oracle) -> tuple[str, str]:
    """The package the fix names, in the target as the user's setting shows it: its version is
    the one said, and its own metadata declares that requirement (marker aside)."""
    try:
        said = Requirement(str(claim.get("requirement") or ""))
    except InvalidRequirement:
        return "unchecked", "not a requirement"
    of = canonicalize_name(str(claim.get("of") or ""))
    names = sorted(_TF_DISTRIBUTIONS) if of == "tensorflow" else [of]
    proc = subprocess.run(
        [oracle.built.target, "-c", _REQUIRES_DIST, *names],
        capture_output=True,
        text=True,
        env=oracle.built.user_env,
        cwd=oracle.built.cwd,
        check=False,
        timeout=300,
    )
    try:
        found: dict[str, list[Any]] = json.loads(proc.stdout)
    except ValueError:
        return "unchecked", f"the target did not say: {proc.stderr.strip()[-200:]}"
    version = str(claim.get("version") or "")
    mine = {n: v for n, v in found.items() if v[0] == version}
    if not mine:
        return "false", f"installed: {', '.join(f'{n} {v[0]}' for n, v in found.items()) or 'none'}"
    lines = []
    for name, (_, requires) in mine.items():
        for line in requires:
            try:
                declared = Requirement(line)
            except InvalidRequirement:
                continue
            if canonicalize_name(declared.name) != canonicalize_name(said.name):
                continue
            if declared.marker is not None and "extra" in str(declared.marker):
                continue
            lines.append(f"{name} {version}: {line}")
            if declared.specifier == said.specifier:
                return "true", lines[-1]
    return "false", "; ".join(
        lines
    ) or f"{' '.join(mine)} {version} declares nothing on {said.name}"


# --- the oracle -----------------------------------------------------------------------------

PROBE = r"""
import importlib.util, json, os, site, sys
try:
    import importlib.metadata as md
except ImportError:
    md = None
mods = sys.argv[1].split(",")
cwd = os.getcwd()
real = os.path.realpath
def norm(n):
    import re
    return re.sub(r"[-_.]+", "-", n).lower()
pythonpath = [real(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
try:
    user_site = real(site.getusersitepackages())
except Exception:
    user_site = None
own_sites = [real(p) for p in site.getsitepackages([sys.prefix])] if hasattr(site, "getsitepackages") else []
base_sites = [real(p) for p in site.getsitepackages([sys.base_prefix])] if hasattr(site, "getsitepackages") else []
stdlib = real(os.path.join(sys.base_prefix, "lib"))
def pth_naming(entry):
    for folder in own_sites + base_sites + ([user_site] if user_site else []):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if not name.endswith(".pth"):
                continue
            try:
                lines = open(os.path.join(folder, name)).read().splitlines()
            except OSError:
                continue
            for line in lines:
                line = line.strip()
                if line and not line.startswith(("#", "import")) and real(os.path.join(folder, line)) == entry:
                    return os.path.join(folder, name)
    return None
def added_by(entry):
    r = real(entry or cwd)
    if entry == "" or r == real(cwd):
        return "cwd", None
    if r in pythonpath:
        return "pythonpath", None
    if user_site and r == user_site:
        return "user_site", None
    if r in own_sites:
        return "site", None
    if r in base_sites and real(sys.prefix) != real(sys.base_prefix):
        return "system_site", None
    if r.startswith(stdlib + os.sep) or r.endswith(".zip"):
        return "stdlib", None
    pth = pth_naming(r)
    if pth:
        return "pth", pth
    return "other", None
def entry_of(path):
    best = None
    for e in sys.path:
        r = real(e or cwd)
        if real(path) == r or real(path).startswith(r.rstrip(os.sep) + os.sep):
            if best is None or len(r) > len(real(best or cwd)):
                best = e
    return best
out = {"prefix": real(sys.prefix), "base_prefix": real(sys.base_prefix), "executable": sys.executable,
       "version": "%d.%d" % sys.version_info[:2], "path": sys.path, "specs": {}, "dists": {},
       "owners": {}, "tf_dists": []}
for m in mods:
    try:
        s = importlib.util.find_spec(m)
    except Exception as e:
        out["specs"][m] = {"error": "%s: %s" % (type(e).__name__, e)}
        continue
    if s is None:
        out["specs"][m] = None
        continue
    origin = s.origin if s.origin not in (None, "namespace", "built-in", "frozen") else None
    where = origin or (list(s.submodule_search_locations or []) or [None])[0]
    entry = entry_of(where) if where else None
    how, pth = added_by(entry) if entry is not None else (None, None)
    if entry is not None:
        entry = real(entry or cwd)  # "" on sys.path is the current folder
    out["specs"][m] = {"origin": real(origin) if origin else None,
                       "origin_as_found": origin,
                       "locations": [real(p) for p in (s.submodule_search_locations or [])],
                       "path_entry": entry, "added_by": how, "pth": pth,
                       "in_target": bool(where) and real(where).startswith(real(sys.prefix) + os.sep)}
want = {}
for m in mods:
    want[m + "/__init__.py"] = m
    want[m + ".py"] = m
if md is not None:
    for d in md.distributions():
        try:
            name = d.metadata["Name"]
        except Exception:
            name = None
        if not name:
            continue
        key = norm(name)
        location = real(str(d.locate_file("")))
        files = d.files or []
        owns = []
        for f in files:
            s = str(f).replace("\\", "/")
            if s in want:
                owns.append(want[s])
                out["owners"].setdefault(real(str(d.locate_file(f))), []).append(key)
        if "tensorflow" in owns and key not in out["tf_dists"]:
            out["tf_dists"].append(key)
        if key not in out["dists"]:
            out["dists"][key] = {"name": name, "version": d.version, "location": location}
out["tf_dists"].sort()
out["pip"] = importlib.util.find_spec("pip") is not None
print(json.dumps(out))
"""

ORACLE_MODULES = ("tensorflow", "keras", "numpy", "tf_keras", "jax", "torch", "google.protobuf")

DLOPEN_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* argv: soname=reader ...; prints soname TAB OK|ERR TAB realpath-or-error TAB raw version */
typedef int (*int_out)(int *);
typedef size_t (*size_fn)(void);
typedef int (*prop_fn)(int, int *);
int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    char name[512];
    snprintf(name, sizeof name, "%s", argv[i]);
    char *reader = strchr(name, '=');
    if (reader) *reader++ = 0; else reader = "";
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) { const char *e = dlerror(); printf("%s\tERR\t%s\t\n", name, e ? e : "?"); continue; }
    struct link_map *map = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || !map) { printf("%s\tERR\tdlinfo failed\t\n", name); continue; }
    char *real = realpath(map->l_name, NULL);
    char version[64] = "";
    void *f = NULL;
    if (!strcmp(reader, "cudart") && (f = dlsym(h, "cudaRuntimeGetVersion"))) {
      int v = 0; if (((int_out)f)(&v) == 0) snprintf(version, sizeof version, "%d", v);
    } else if (!strcmp(reader, "cudnn") && (f = dlsym(h, "cudnnGetVersion"))) {
      snprintf(version, sizeof version, "%zu", ((size_fn)f)());
    } else if ((!strcmp(reader, "cublas") && (f = dlsym(h, "cublasGetProperty"))) ||
               (!strcmp(reader, "cublasLt") && (f = dlsym(h, "cublasLtGetProperty")))) {
      int a = 0, b = 0, c = 0;
      if (((prop_fn)f)(0, &a) == 0 && ((prop_fn)f)(1, &b) == 0 && ((prop_fn)f)(2, &c) == 0)
        snprintf(version, sizeof version, "%d.%d.%d", a, b, c);
    }
    printf("%s\tOK\t%s\t%s\n", name, real ? real : map->l_name, version);
  }
  return 0;
}
"""


_SONAME_BY_CUDA: dict[str, dict[str, str]] = {
    "libcufft": {"11": "10", "12": "11"},
    "libcusparse": {"11": "11", "12": "12"},
    "libcusolver": {"11": "11", "12": "11"},
    "libcurand": {"11": "10", "12": "10"},
    "libnccl": {"11": "2", "12": "2"},
}
"""The soname versions of the libraries CUDA 11.8 and 12.x ship (the files of the
nvidia-*-cu11 and -cu12 wheels: libcufft.so.10 and .so.11, libcusolver.so.11, ...), which TensorFlow's
TF_CUFFT_VERSION etc. name."""


def soname_wanted(name: str, build: Mapping[str, str]) -> str | None:
    """The file name TensorFlow's dso_loader asks for (tsl/platform/default/dso_loader.cc:
    ``GetDsoHandle(name, version)`` formats lib<name>.so.<version> from the build's
    TF_CUDART_VERSION, TF_CUBLAS_VERSION and TF_CUDNN_VERSION), given the build's CUDA and cuDNN
    versions from TensorFlow's own build_info.py. The CUDA 11 runtime's soname is
    libcudart.so.11.0, from 12 on libcudart.so.<major>; cuBLAS and cuBLASLt share the CUDA major.
    None: a library whose soname version this oracle does not know (not checked)."""
    cuda = build.get("cuda_version", "")
    cudnn = build.get("cudnn_version", "")
    major = cuda.split(".")[0] if cuda else ""
    if name == "libcudart" and major:
        return f"libcudart.so.{'11.0' if major == '11' else major}"
    if name in ("libcublas", "libcublasLt") and major:
        return f"{name}.so.{major}"
    if name in _SONAME_BY_CUDA and major in _SONAME_BY_CUDA[name]:
        return f"{name}.so.{_SONAME_BY_CUDA[name][major]}"
    if name == "libcudnn" and cudnn:
        return f"libcudnn.so.{cudnn.split('.')[0]}"
    if name == "libnvidia-ml":
        return "libnvidia-ml.so.1"
    return None


def _version_text(reader: str, raw: str) -> str | None:
    """The version as the library's own call reports it, written as doctor writes it."""
    if not raw:
        return None
    if reader == "cudart":
        number = int(raw)
        return f"{number // 1000}.{number % 1000 // 10}"
    if reader == "cudnn":
        number = int(raw)
        if number >= 90000:
            return f"{number // 10000}.{number % 10000 // 100}.{number % 100}"
        return f"{number // 1000}.{number % 1000 // 100}.{number % 100}"
    return raw


def _same_version(said: str, truth: str) -> bool:
    """The same release: equal, or one names fewer components of the same release
    (12.5 and 12.5.82)."""
    a, b = said.split("."), truth.split(".")
    n = min(len(a), len(b))
    return a[:n] == b[:n]


@dataclass
class PipProblem:
    of: str
    of_version: str | None
    name: str
    requirement: str | None
    have: str | None


_PIP_CHECK = (
    # pip: "tensorflow 2.21.0 has requirement numpy>=1.26.0, but you have numpy 1.23.5."
    re.compile(
        r"^(?P<of>\S+) (?P<of_version>\S+) has requirement (?P<req>.+), but you have (?P<name>\S+) (?P<have>\S+?)\.?$"
    ),
    # pip: "tensorflow 2.21.0 requires keras, which is not installed."
    re.compile(
        r"^(?P<of>\S+) (?P<of_version>\S+) requires (?P<name>[^,\s]+), which is not installed\.?$"
    ),
    # uv: "The package `tensorflow` requires `numpy>=1.26.0`, but `1.23.5` is installed"
    re.compile(
        r"^The package `(?P<of>[^`]+)` requires `(?P<req>[^`]+)`, but `(?P<have>[^`]+)` is installed$"
    ),
    # uv: "The package `tensorflow` requires `keras>=3.12.0`, but it's not installed"
    re.compile(r"^The package `(?P<of>[^`]+)` requires `(?P<req>[^`]+)`, but it's not installed$"),
)


def parse_pip_check(text: str) -> list[PipProblem]:
    out = []
    for raw in text.splitlines():
        line = raw.strip().lstrip("-").strip()
        for pattern in _PIP_CHECK:
            m = pattern.match(line)
            if not m:
                continue
            groups = m.groupdict()
            req = groups.get("req")
            name = groups.get("name")
            if name is None and req:
                try:
                    name = Requirement(req).name
                except InvalidRequirement:
                    name = re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0]
            out.append(
                PipProblem(
                    canonicalize_name(groups["of"]),
                    groups.get("of_version"),
                    canonicalize_name(name or ""),
                    req,
                    groups.get("have"),
                )
            )
            break
    return out


def _specifier(text: str | None, name: str) -> SpecifierSet | None:
    if not text:
        return None
    try:
        return Requirement(text).specifier
    except InvalidRequirement:
        pass
    try:
        return SpecifierSet(text.removeprefix(name))
    except InvalidSpecifier:
        return None


class Oracle:
    """The truth about one built environment, by experiment; each experiment runs once."""

    def __init__(self, built: recipes.Built, scratch: Path, tools: Path) -> None:
        self.built = built
        self.scratch = scratch
        self.tools = tools
        self.neutral = scratch / "neutral"
        self.neutral.mkdir(parents=True, exist_ok=True)
        self._views: dict[str, Json] = {}
        self._pip_check: tuple[list[PipProblem], str] | None = None
        self._tf_import: tuple[int, str] | None = None
        self._dl: dict[tuple[str, str], tuple[str | None, str, str | None]] = {}
        self._named: dict[str, bool | None] = {}
        self._opener: str | None = None

    # the three settings: the user's (their folder, their variables), the distributions' (their
    # variables, a folder of its own) and the environment alone (no PYTHONPATH, no folder)

    def view(self, setting: str = "user") -> Json:
        if setting not in self._views:
            env = dict(self.built.user_env)
            cwd = self.built.cwd
            if setting != "user":
                cwd = self.neutral
            if setting == "clean":
                env.pop("PYTHONPATH", None)
            proc = subprocess.run(
                [self.built.target, "-c", PROBE, ",".join(ORACLE_MODULES)],
                capture_output=True,
                text=True,
                env=env,
                cwd=cwd,
                check=False,
                timeout=300,
            )
            try:
                self._views[setting] = json.loads(proc.stdout)
            except ValueError:
                self._views[setting] = {"error": (proc.stderr or proc.stdout)[-400:]}
        return self._views[setting]

    def spec(self, module: str, setting: str = "user") -> Json | None:
        specs = self.view(setting).get("specs") or {}
        value = specs.get(module)
        return value if isinstance(value, dict) else None

    def dists(self) -> dict[str, Json]:
        value = self.view("dists").get("dists") or {}
        return value if isinstance(value, dict) else {}

    def pip_check(self) -> tuple[list[PipProblem], str]:
        """``python -m pip check`` in the target (``uv pip check --python`` without pip), with no
        config file of the recipe's (PIP_CONFIG_FILE=os.devnull) and without PYTHONPATH."""
        if self._pip_check is None:
            env = {
                k: v for k, v in self.built.user_env.items() if not k.startswith(("PIP_", "UV_"))
            }
            # PYTHONPATH stays: the user's own `pip check` sees what their interpreter imports
            env["PIP_CONFIG_FILE"] = os.devnull
            for key in ("PIP_FIND_LINKS", "PIP_DISABLE_PIP_VERSION_CHECK", "UV_CACHE_DIR"):
                if key in self.built.user_env:
                    env[key] = self.built.user_env[key]
            if self.view("clean").get("pip"):
                command = [self.built.target, "-m", "pip", "check"]
                tool = "pip check"
            else:
                command = [str(self.tools / "uv"), "pip", "check", "--python", self.built.target]
                tool = "uv pip check"
            proc = subprocess.run(
                command,
                capture_output=True,
                text=True,
                env=env,
                cwd=self.neutral,
                check=False,
                timeout=300,
            )
            self._pip_check = (parse_pip_check(proc.stdout + "\n" + proc.stderr), tool)
        return self._pip_check

    def tf_import(self) -> tuple[int, str]:
        """The user's own ``import tensorflow`` in their folder with their variables."""
        if self._tf_import is None:
            proc = subprocess.run(
                [self.built.target, "-c", "import tensorflow"],
                capture_output=True,
                text=True,
                env=self.built.user_env,
                cwd=self.built.cwd,
                check=False,
                timeout=600,
            )
            self._tf_import = (proc.returncode, proc.stderr[-3000:])
        return self._tf_import

    def tf_build(self) -> tuple[dict[str, str], str | None]:
        """TensorFlow's build_info (as its own file states it) and the library that dlopens the
        CUDA libraries (libtensorflow_framework.so.2 next to the package TensorFlow's import
        finds in the user's setting)."""
        spec = self.spec("tensorflow")
        if not spec or not spec.get("origin_as_found"):
            return {}, None
        package = os.path.dirname(spec["origin_as_found"])
        info: dict[str, str] = {}
        try:
            text = (Path(package) / "python" / "platform" / "build_info.py").read_text()
        except OSError:
            text = ""
        for key in ("cuda_version", "cudnn_version"):
            m = re.search(rf"'{key}', '([^']*)'", text) or re.search(
                rf"['\"]{key}['\"]\s*:\s*['\"]([^'\"]*)", text
            )
            if m:
                info[key] = m.group(1)
        requester = os.path.join(package, "libtensorflow_framework.so.2")
        return info, requester if os.path.exists(requester) else None

    def tf_opener(self) -> str | None:
        """The TensorFlow library whose code runs its loader (glibc's dlopen searches the caller's
        own DT_RUNPATH, dlopen(3)), by experiment: the user's ``import tensorflow`` in their
        setting under ``LD_DEBUG=bindings``, and the file the dynamic linker binds
        ``DsoLoader::Get...DsoHandle`` to (the definition every caller gets, whichever of
        TensorFlow's libraries defines a copy). Else libtensorflow_framework.so.2."""
        if self._opener is None:
            _build, framework = self.tf_build()
            found: dict[str, int] = {}
            if framework:
                env = dict(self.built.user_env)
                env["LD_DEBUG"] = "bindings"
                pattern = re.compile(
                    r"binding file \S+ \[\d+\] to (\S+) \[\d+\]: normal symbol `\S*DsoLoader\d+Get\w+DsoHandleEv"
                )
                proc = subprocess.Popen(
                    [self.built.target, "-c", "import tensorflow"],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    env=env,
                    cwd=self.built.cwd,
                    text=True,
                    errors="replace",
                )
                assert proc.stderr is not None
                for line in proc.stderr:
                    if "DsoHandleEv" in line:
                        m = pattern.search(line)
                        if m:
                            target = os.path.realpath(m.group(1))
                            found[target] = found.get(target, 0) + 1
                proc.wait(timeout=600)
            best = max(found, key=lambda k: found[k]) if found else ""
            self._opener = best or (framework or "")
        return self._opener or None

    def tf_binaries_name(self, word: str) -> bool | None:
        """Whether any of TensorFlow's own shared objects (the ``.so`` files of the package the
        user's import finds, searched as bytes by ``grep -a -F``) contains ``word``; None: no
        TensorFlow files to read. A library TensorFlow's loader opens has its name in them
        (the loader formats ``lib<name>.so.<version>``; its stub functions name it too)."""
        if word not in self._named:
            spec = self.spec("tensorflow")
            origin = spec.get("origin_as_found") if spec else None
            files = (
                [
                    p
                    for p in glob.glob(
                        os.path.join(os.path.dirname(origin), "**", "*.so*"), recursive=True
                    )
                    if os.path.isfile(p)
                ]
                if origin
                else []
            )
            if not files:
                self._named[word] = None
            else:
                proc = subprocess.run(
                    ["grep", "-a", "-F", "-l", "-m", "1", "-e", word, *files],
                    capture_output=True,
                    text=True,
                    check=False,
                    timeout=600,
                )
                self._named[word] = bool(proc.stdout.strip())
        return self._named[word]

    def dlopen(
        self, soname: str, reader: str, requester: str | None
    ) -> tuple[str | None, str, str | None]:
        """(the file the loader picks or None, its error, the version its own call reports)."""
        key = (soname, requester or "")
        if key not in self._dl:
            runpath, kind = _runpath(requester) if requester else ("", "")
            binary = _dl_program(self.scratch.parent / "dl", runpath, kind)
            env = dict(self.built.user_env)
            proc = subprocess.run(
                [str(binary), f"{soname}={reader}"],
                capture_output=True,
                text=True,
                env=env,
                cwd=self.neutral,
                check=False,
                timeout=120,
            )
            fields = (proc.stdout.splitlines() or [""])[0].split("\t")
            if len(fields) >= 3 and fields[1] == "OK":
                self._dl[key] = (
                    fields[2],
                    "",
                    _version_text(reader, fields[3] if len(fields) > 3 else ""),
                )
            else:
                why = fields[2] if len(fields) >= 3 else f"the program failed: {proc.stderr[-200:]}"
                self._dl[key] = (None, why, None)
        return self._dl[key]


def _runpath(requester: str) -> tuple[str, str]:
    """The requester's DT_RUNPATH (or DT_RPATH) with $ORIGIN expanded to its folder."""
    out = subprocess.run(
        ["readelf", "-d", requester], capture_output=True, text=True, check=False, timeout=60
    ).stdout
    m = re.search(r"\((RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[(.*)\]", out)
    if not m:
        return "", ""
    origin = os.path.dirname(requester)
    entries = [
        e.replace("$ORIGIN", origin).replace("${ORIGIN}", origin) for e in m.group(2).split(":")
    ]
    return ":".join(dict.fromkeys(entries)), m.group(1)


def _dl_program(folder: Path, runpath: str, kind: str) -> Path:
    """The dlopen program linked with this RUNPATH (--enable-new-dtags) or RPATH, built once."""
    folder.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha256(f"{kind}|{runpath}|{DLOPEN_C}".encode()).hexdigest()[:16]
    binary = folder / f"dlopen-{name}"
    if not binary.exists():
        source = folder / "dlopen.c"
        source.write_text(DLOPEN_C)
        flags = []
        if runpath:
            dtags = "--enable-new-dtags" if kind == "RUNPATH" else "--disable-new-dtags"
            flags = [f"-Wl,{dtags}", f"-Wl,-rpath,{runpath}"]
        subprocess.run(
            ["gcc", "-O1", "-o", str(binary) + ".tmp", str(source), "-ldl", *flags],
            check=True,
            capture_output=True,
            timeout=120,
        )
        os.replace(str(binary) + ".tmp", binary)
    return binary


def _under(path: str, prefix: str) -> bool:
    real = os.path.realpath(path)
    return real == prefix or real.startswith(prefix.rstrip("/") + "/")


def judge(statement: Statement, oracle: Oracle) -> None:
    """Set ``verdict`` and ``truth`` of one statement by doing what it claims."""
    claim = statement.claim
    kind = statement.kind
    verdict, truth = "unchecked", ""
    if kind == "host":
        verdict, truth = "unobserved", "whether the host has a GPU cannot be seen from inside"
    elif kind == "import":
        verdict, truth = _judge_import(claim, oracle)
    elif kind == "no_shadow":
        wrong = []
        for module in claim.get("modules") or TF_IMPORT_MODULES:
            user, clean = oracle.spec(module, "user"), oracle.spec(module, "clean")
            u = user.get("origin") if user else None
            c = clean.get("origin") if clean else None
            if u != c:
                wrong.append(
                    f"{module}: {u} from the user's folder and variables, {c} without them"
                )
        verdict, truth = ("false", "; ".join(wrong)) if wrong else ("true", "")
    elif kind == "import_broken":
        spec = oracle.spec(claim.get("module", "tensorflow"))
        origin = spec.get("origin") if spec else None
        verdict = "true" if not origin else "false"
        truth = f"find_spec gives {origin}"
    elif kind == "distribution":
        verdict, truth = _judge_distribution(claim, oracle)
    elif kind == "distribution_absent":
        dists = oracle.dists()
        names = [canonicalize_name(n) for n in claim.get("names") or []]
        present = [
            f"{dists[n]['name']} {dists[n]['version']} ({dists[n]['location']})"
            for n in names
            if n in dists
        ]
        if claim.get("package") == "tensorflow":
            owners = oracle.view("dists").get("tf_dists") or []
            present += [
                f"{dists[o]['name']} {dists[o]['version']}"
                for o in owners
                if o in dists and o not in names
            ]
        verdict, truth = ("false", "installed: " + ", ".join(present)) if present else ("true", "")
    elif kind in ("requirement", "requirements_met"):
        verdict, truth = _judge_requirement(statement, oracle)
    elif kind == "declared":
        verdict, truth = _judge_declared(claim, oracle)
    elif kind == "numpy_abi":
        code, err = oracle.tf_import()
        said = "compiled using NumPy 1.x cannot be run in" in err
        verdict = "true" if code != 0 or said else "false"
        truth = "import tensorflow: " + (err.strip().splitlines() or ["ok"])[-1][:200]
    elif kind == "file_owner":
        verdict, truth = _judge_owner(claim, oracle)
    elif kind in ("library", "library_absent"):
        verdict, truth = _judge_library(
            claim, oracle, absent=kind == "library_absent", asked=statement.check != "nvidia_driver"
        )
    elif kind == "installer":
        verdict, truth = _judge_installer(claim, oracle)
    elif kind == "device_nodes":
        found = sorted(glob.glob(str(claim.get("pattern") or "/dev/nvidia*")))
        verdict = "true" if sorted(claim.get("found") or []) == found else "false"
        truth = f"glob: {found}"
    statement.verdict, statement.truth = verdict, truth


def _judge_installer(claim: Json, oracle: Oracle) -> tuple[str, str]:
    """The installer's own answer to the fix, asked with --dry-run in the user's folder with the
    user's variables (nothing is installed): it accepts, or refuses with this line."""
    fix = claim.get("fix")
    parts = split_fix(str(fix)) if fix else None
    built = oracle.built
    if not parts:
        return "unchecked", "no fix command to ask the installer about"
    env = dict(built.user_env)
    for part in parts:
        classified = _classify(part, env, built.w)
        if classified is None or classified.kind not in ("pip", "uv"):
            continue
        if classified.kind != str(claim.get("tool") or classified.kind):
            continue
        dry = _dry(classified)
        if dry is None:
            continue
        code, text = _run(dry, {**env, **classified.environ}, built.cwd, timeout=600)
        accepts = code == 0
        said = claim.get("accepts")
        line = str(claim.get("line") or "")
        shown = f"{classified.kind} --dry-run exits {code}: {_error_line(text)}"
        if said is not None and bool(said) != accepts:
            return "false", shown
        if not accepts and line and line.strip() not in text:
            return "false", f"the refusal does not read {line!r}; {shown}"
        return "true", shown
    return "unchecked", "no install command of that installer in the fix"


def _judge_import(claim: Json, oracle: Oracle) -> tuple[str, str]:
    module = str(claim.get("module") or "tensorflow")
    spec = oracle.spec(module, "user")
    view = oracle.view("user")
    if "error" in view:
        return "unchecked", f"the target did not run: {view['error']}"
    origin = spec.get("origin") if spec else None
    where = origin or ((spec or {}).get("locations") or [None])[0]
    problems = []
    if "origin" in claim:
        said = claim.get("origin")
        said_real = os.path.realpath(said) if said else None
        truth_paths = {p for p in (origin, where, _strip_init(origin) if origin else None) if p}
        if said_real not in truth_paths and (said_real or None) != (origin or None):
            problems.append(f"find_spec origin is {origin}, not {said}")
    if "in_target" in claim:
        in_target = bool(where) and _under(str(where), str(view.get("prefix")))
        if bool(claim["in_target"]) != in_target:
            problems.append(
                f"{where or 'nothing'} is {'' if in_target else 'not '}under the target's prefix "
                f"{view.get('prefix')}"
            )
    for key in ("path_entry", "added_by", "pth"):
        if key in claim and spec is not None and claim[key] != spec.get(key):
            problems.append(f"{key} is {spec.get(key)!r}, not {claim[key]!r}")
    if "package_of_distribution" in claim:
        owners = (view.get("owners") or {}).get(origin or "", [])
        if bool(claim["package_of_distribution"]) != bool(owners):
            problems.append(
                f"{origin} is {'a file of ' + ', '.join(owners) if owners else 'no distribution file'}"
            )
        if claim["package_of_distribution"] and module == "tensorflow" and not origin:
            problems.append("`import tensorflow` finds no module file")
    if claim.get("shadows"):
        problems += _judge_shadows(module, [str(x) for x in claim["shadows"]], oracle)
    if spec is None and ("in_target" in claim or "package_of_distribution" in claim):
        problems.append(f"find_spec({module!r}) is None in the user's setting")
    truth = f"find_spec({module!r}) in {oracle.built.cwd}: {origin or where} (entry {(spec or {}).get('path_entry')!r}, {(spec or {}).get('added_by')})"
    return ("false", "; ".join(problems) + f" [{truth}]") if problems else ("true", truth)


def _judge_shadows(module: str, shadows: list[str], oracle: Oracle) -> list[str]:
    """Each file or folder said to hide ``module`` is there, is no distribution's, and lies in a
    folder on the user's own ``sys.path`` ahead of the one the environment alone finds it in."""
    view = oracle.view("user")
    cwd = str(oracle.built.cwd)
    path = [os.path.realpath(p or cwd) for p in view.get("path") or []]
    clean = (oracle.spec(module, "clean") or {}).get("path_entry")
    ahead = path[: path.index(clean)] if clean in path else path
    owners = view.get("owners") or {}
    problems = []
    for said in shadows:
        real = os.path.realpath(said)
        folder = real[: -len("/__init__.py")] if real.endswith("/__init__.py") else real
        file = folder if folder.endswith(".py") else os.path.join(folder, "__init__.py")
        if not os.path.isfile(file):
            problems.append(f"{said}: no such module file ({file})")
        elif os.path.dirname(folder) not in ahead:
            problems.append(f"{said}: its folder is not on sys.path ahead of the environment's")
        elif file in owners:
            problems.append(f"{said} is a file of {', '.join(owners[file])}")
    return problems


def _judge_distribution(claim: Json, oracle: Oracle) -> tuple[str, str]:
    dists = oracle.dists()
    name = canonicalize_name(str(claim.get("name") or ""))
    have = dists.get(name)
    if have is None:
        return "false", f"importlib.metadata finds no {name}"
    problems = []
    version = claim.get("version")
    if version and str(version) != str(have["version"]):
        problems.append(f"version is {have['version']}, not {version}")
    location = claim.get("location")
    if location and location.startswith("/") and os.path.realpath(location) != have["location"]:
        problems.append(f"location is {have['location']}, not {location}")
    truth = f"{have['name']} {have['version']} at {have['location']}"
    return ("false", "; ".join(problems) + f" [{truth}]") if problems else ("true", truth)


def _requirement_family(name: str) -> bool:
    return name in _TF_DISTRIBUTIONS or name in ("keras", "tf-keras")


def _judge_requirement(statement: Statement, oracle: Oracle) -> tuple[str, str]:
    problems, tool = oracle.pip_check()
    relevant = [p for p in problems if _requirement_family(p.of)]
    shown = "; ".join(
        f"{p.of} {p.of_version or ''} needs {p.requirement or p.name}, has {p.have or 'none'}".replace(
            "  ", " "
        )
        for p in relevant
    )
    if statement.kind == "requirements_met":
        if relevant:
            return "false", f"{tool}: {shown}"
        return "true", f"{tool}: nothing for TensorFlow, Keras or tf-keras"
    claim = statement.claim
    of = canonicalize_name(str(claim.get("of") or ""))
    name = canonicalize_name(str(claim.get("name") or ""))
    have = claim.get("have")
    for problem in problems:
        if problem.of != of or problem.name != name:
            continue
        if (have is None) != (problem.have is None):
            continue
        if have is not None and problem.have is not None and str(have) != problem.have:
            continue
        said = _specifier(str(claim.get("requirement") or ""), name)
        truth = _specifier(problem.requirement, name)
        if have is not None and said is not None and truth is not None and said != truth:
            continue
        return (
            "true",
            f"{tool}: {problem.of} needs {problem.requirement or problem.name}, has {problem.have or 'none'}",
        )
    return "false", f"{tool} does not list {of}'s requirement on {name}" + (
        f" ({shown})" if shown else ""
    )


def _record_hash(path: str) -> str:
    """The file's sha256 as RECORD files write it (urlsafe base64, no padding)."""
    import base64

    digest = hashlib.sha256(Path(path).read_bytes()).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _judge_owner(claim: Json, oracle: Oracle) -> tuple[str, str]:
    """Whose file this is, by its content: the distribution whose RECORD lists the path with the
    hash the file has now (not by install times, which doctor reads)."""
    path = os.path.realpath(str(claim["path"]))
    if not os.path.isfile(path):
        return "false", f"{path} is not there"
    now = _record_hash(path)
    listers: dict[str, str] = {}
    # every folder of the work tree (the hidden user site ~/.local too: glob's ** skips it) and,
    # for an environment built elsewhere (--here), the target's own prefix
    roots = [str(oracle.built.w)]
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(oracle.built.target)))
    if not _under(prefix, os.path.realpath(str(oracle.built.w))) and prefix != "/usr":
        roots.append(prefix)
    records = [
        os.path.join(folder, "RECORD")
        for root in roots
        for folder, _dirs, files in os.walk(root)
        if folder.endswith(".dist-info") and "RECORD" in files
    ]
    for record in records:
        site = os.path.dirname(os.path.dirname(record))
        name = canonicalize_name(os.path.basename(os.path.dirname(record)).split("-")[0])
        for row in Path(record).read_text(encoding="utf-8", errors="replace").splitlines():
            parts = row.rsplit(",", 2)
            if len(parts) == 3 and os.path.realpath(os.path.join(site, parts[0])) == path:
                listers[str(name)] = parts[1]
    owner = canonicalize_name(str(claim["owner"]))
    matching = sorted(n for n, h in listers.items() if h == now)
    if owner not in matching:
        return (
            "false",
            f"the file's content is {matching or 'no listed'} distribution's, not {owner}'s (listed by {sorted(listers)})",
        )
    if claim.get("overwrote") and not [n for n in listers if n != owner]:
        return "false", f"no other distribution's RECORD lists {path}"
    return "true", f"its content matches {owner}'s RECORD" + (
        f"; also listed by {sorted(n for n in listers if n != owner)}" if len(listers) > 1 else ""
    )


def _judge_library(
    claim: Json, oracle: Oracle, *, absent: bool, asked: bool = True
) -> tuple[str, str]:
    soname = claim.get("soname")
    name = str(claim.get("name") or str(soname or "").split(".so")[0])
    if asked:  # the statement says TensorFlow asks for this library: do its binaries name it?
        named = oracle.tf_binaries_name(name.removeprefix("lib"))
        if named is False:
            return "false", (
                f"TensorFlow's own shared objects never contain the bytes {name.removeprefix('lib')!r}: "
                f"it cannot ask the loader for {name}"
            )
    if "path" in claim and claim.get("path") is None:
        absent = True  # an observation that the loader finds no file for it
    # whose RUNPATH the loader searches: the oracle's own reading of which TensorFlow library
    # runs the loader (binutils' nm), never the requester the statement names
    requester = oracle.tf_opener()
    if not soname:
        build, _framework = oracle.tf_build()
        soname = soname_wanted(name, build)
    said_requester = claim.get("requester")
    if (
        said_requester
        and requester
        and os.path.realpath(str(said_requester)) != os.path.realpath(requester)
    ):
        return "false", (
            f"TensorFlow's loader runs in {os.path.basename(requester)} (it defines the "
            f"Get<Name>DsoHandle functions), not {os.path.basename(str(said_requester))}"
        )
    if not soname:
        return "unchecked", f"the soname TensorFlow asks for as {name} is not known to this oracle"
    reader = {
        "libcudart": "cudart",
        "libcudnn": "cudnn",
        "libcublas": "cublas",
        "libcublasLt": "cublasLt",
    }.get(name, "")
    path, error, version = oracle.dlopen(str(soname), reader, requester)
    where = f"dlopen({soname}) with {os.path.basename(requester) if requester else 'no requester'}'s RUNPATH"
    if absent:
        if path is None:
            return "true", f"{where}: {error}"
        return "false", f"{where} loads {path} (version {version})"
    if path is None:
        return "false", f"{where}: {error}"
    problems = []
    said_path = claim.get("path")
    if said_path and os.path.realpath(str(said_path)) != path:
        problems.append(f"the loader picks {path}, not {said_path}")
    said_version = claim.get("version")
    if said_version and version and not _same_version(str(said_version), version):
        problems.append(f"its own call says {version}, not {said_version}")
    if claim.get("loads") is False:
        problems.append("it loads")
    truth = f"{where}: {path} ({version or 'no version call'})"
    return ("false", "; ".join(problems) + f" [{truth}]") if problems else ("true", truth)


# --- the first fix, run ---------------------------------------------------------------------

_PIP = re.compile(r"^pip(3(\.\d+)?)?$")
_PYTHON = re.compile(r"^python(3(\.\d+)?)?$")
_NEEDS_DOWNLOAD = re.compile(
    r"No matching distribution found|Could not find a version that satisfies|"
    r"not found in the provided package locations|not found in the cache|offline|"
    r"No solution found when resolving|"
    # uv offline, its metadata cached but not the wheel: "Failed to download `x==1`" caused by
    # "Network connectivity is disabled, but the requested data wasn't found in the cache"
    r"Failed to download|Network connectivity is disabled",
    re.IGNORECASE,
)
HOST_FIX = re.compile(
    r"\b(docker|podman|sudo|nvidia-ctk|systemctl|reboot|apt(-get)?|kubectl)\b|--gpus|nvidia-smi|driver"
)


IMPORT_CHECKS = frozenset({"tf_import", "tf_gpus", "gpu_matmul", "tf_log", "other_frameworks"})
"""Checks that see only what importing TensorFlow shows (skipped with --no-tf)."""


@dataclass
class FixResult:
    status: str
    """works, works_dry_run, fails, not_checkable, none"""
    fix: str | None
    cause: str | None
    why: str
    seconds: float = 0.0
    changed: list[str] = field(default_factory=list)
    """What the fix, run, changed: "numpy 2.2.6 -> 1.26.4", "keras (new) -> 3.12.0"."""
    size: str = ""
    """The oracle's judgment of its size: ``no_larger``, ``larger: ...`` (an accepted change the
    oracle made by its own experiment changes fewer distributions or crosses no major release of
    TensorFlow or Keras where the fix does), or "" where not judged."""


def split_fix(fix: str) -> list[list[str]] | None:
    """``a && b  # comment`` as argument lists; None when the shell syntax is not plain."""
    try:
        tokens = shlex.split(fix, comments=True)
    except ValueError:
        return None
    if any(t in ("|", ";", "||", ">", "<", "&") for t in tokens):
        return None
    parts: list[list[str]] = [[]]
    for token in tokens:
        if token == "&&":
            parts.append([])
        else:
            parts[-1].append(token)
    return [p for p in parts if p]


def _tilde(word: str, env: Mapping[str, str]) -> str:
    """``~`` or ``~/...`` at a word's start as the shell expands it (the fix prints it unquoted),
    with the user's $HOME (the copy's)."""
    home = env.get("HOME")
    if home and (word == "~" or word.startswith("~/")):
        return home + word[1:]
    return word


def _rewrite(value: str, w: Path, copy: Path) -> str:
    """``$W/...`` as ``$COPY/...`` (whole path components only)."""
    return re.sub(re.escape(str(w)) + r"(?=/|:|\s|$)", str(copy), value)


@dataclass
class Part:
    kind: str  # pip, uv, unset, export, file, venv
    argv: list[str]
    outside: bool = False
    """acts on an interpreter outside the copy: only its dry run is ever run"""
    subcommand: str = ""
    python: str | None = None
    """the interpreter it acts on, where known"""
    environ: dict[str, str] = field(default_factory=dict)
    """variables set before it on the line (``PIP_NO_INDEX=0 pip install ...``)"""


_DIST_FOLDERS = """
import json, os, sys
import importlib.metadata as m
out = {}
for name in sys.argv[1:]:
    try:
        out[name] = os.path.realpath(str(m.distribution(name).locate_file("")))
    except Exception:
        pass
print(json.dumps(out))
"""


def _dist_folders(
    python: str, names: list[str], env: Mapping[str, str], cwd: Path
) -> dict[str, str] | None:
    """Where ``python``, in the user's setting, finds each of ``names`` (``None``: it did not
    answer)."""
    code, text = _run([python, "-c", _DIST_FOLDERS, *names], env, cwd)
    try:
        line = next(x for x in reversed(text.splitlines()) if x.startswith("{"))
        found = json.loads(line) if code == 0 else None
    except (ValueError, StopIteration):
        return None
    return found if isinstance(found, dict) else None


def _shebang(script: str) -> str | None:
    try:
        with open(script, "rb") as handle:
            line = handle.readline(300).decode(errors="replace")
    except OSError:
        return None
    return line[2:].strip().split()[0] if line.startswith("#!") and line[2:].strip() else None


_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def _classify(part: list[str], env: Mapping[str, str], copy: Path) -> Part | None:
    """One ``&&`` part of a fix; ``NAME=value`` words before its command are that command's
    variables, as the shell takes them."""
    environ: dict[str, str] = {}
    while part and (assignment := _ASSIGNMENT.match(part[0])):
        environ[assignment.group(1)] = assignment.group(2)
        part = part[1:]
    if not part:
        return None
    classified = _classify_command(part, {**env, **environ}, copy)
    if classified is not None:
        classified.environ = environ
    return classified


def _classify_command(part: list[str], env: Mapping[str, str], copy: Path) -> Part | None:
    head = part[0]
    base = os.path.basename(head)
    path = env.get("PATH", "")

    def inside(exe: str) -> bool:
        return _under(exe, os.path.realpath(copy)) or os.path.abspath(exe).startswith(
            str(copy) + "/"
        )

    def resolve(exe: str) -> str | None:
        return exe if "/" in exe else shutil.which(exe, path=path)

    if head == "unset":
        return Part("unset", part[1:])
    if head == "export":
        return Part("export", part[1:])
    if head in ("mv", "rm"):
        paths = [p for p in part[1:] if not p.startswith("-")]
        if not paths or not all(os.path.abspath(p).startswith(str(copy) + "/") for p in paths):
            return None
        return Part("file", part)
    if _PYTHON.match(base) and part[1:3] == ["-m", "venv"]:
        # a fresh environment: made for real where it goes into the copy (its $HOME)
        folders = [p for p in part[3:] if not p.startswith("-")]
        exe = resolve(head)
        if exe is None or len(folders) != 1 or not inside(folders[0]):
            return None
        return Part("venv", [exe, *part[1:]], python=os.path.join(folders[0], "bin", "python"))
    if _PIP.match(base) or (_PYTHON.match(base) and part[1:3] == ["-m", "pip"]):
        exe = resolve(head)
        args = part[1:] if _PIP.match(base) else part[3:]
        sub = args[0] if args else ""
        if exe is None:
            return Part("pip", part, outside=True, subcommand=sub)
        if inside(exe):
            # a copy's bin/pip runs the original's python (its shebang): use the copy's python
            python = os.path.join(os.path.dirname(exe), "python") if _PIP.match(base) else exe
            return Part("pip", [python, "-m", "pip", *args], subcommand=sub, python=python)
        acts_on = _shebang(exe) if _PIP.match(base) else exe
        return Part("pip", [exe, *part[1:]], outside=True, subcommand=sub, python=acts_on)
    if head == "uv" and part[1:2] != ["pip"]:
        # any other uv command (uv add, uv sync, a doubled "uv uv"): run as written, in the copy
        return Part(
            "uv",
            [str(recipes.CACHE / "bin" / "uv"), *part[1:]],
            subcommand=part[1] if len(part) > 1 else "",
        )
    if head == "uv" and part[1:2] == ["pip"]:
        args = part[2:]
        chosen: str | None = None
        for i, arg in enumerate(args):
            if arg == "--python" and i + 1 < len(args):
                chosen = resolve(args[i + 1])
            elif arg.startswith("--python="):
                chosen = resolve(arg.split("=", 1)[1])
        if chosen is None:
            chosen = env.get("VIRTUAL_ENV")
        out = chosen is None or not inside(chosen) or "--system" in args
        return Part(
            "uv",
            [str(recipes.CACHE / "bin" / "uv"), "pip", *args],
            outside=out,
            subcommand=args[0] if args else "",
            python=chosen,
        )
    return None


def _dry(part: Part) -> list[str] | None:
    """The same command with --dry-run (pip: without --report, which would skip PEP 668)."""
    argv = list(part.argv)
    if part.subcommand != "install":
        return None
    at = argv.index("install")
    return [*argv[: at + 1], "--dry-run", *argv[at + 1 :]]


@dataclass(frozen=True)
class PipOptions:
    no_index: bool
    find_links: tuple[str, ...]


_PIP_OPTIONS = (
    "import json\n"
    "from pip._internal.commands import create_command\n"
    "o, _ = create_command('install').parse_args([])\n"
    "print(json.dumps([bool(o.no_index), list(o.find_links or [])]))"
)


def _pip_options(part: Part, env: Mapping[str, str], cwd: Path) -> PipOptions | None:
    """What the user's pip takes from its variables and config files (pip's own option parser,
    run by the interpreter that runs that pip, in the user's setting); None where unknown."""
    argv = part.argv
    python = argv[0] if argv[1:3] == ["-m", "pip"] else _shebang(argv[0]) or part.python
    if not python:
        return None
    code, text = _run([python, "-c", _PIP_OPTIONS], env, cwd, timeout=60)
    try:
        no_index, find_links = json.loads(text.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None
    return PipOptions(bool(no_index), tuple(str(f) for f in find_links)) if code == 0 else None


def _dry_wheels(
    part: Part,
    env: Mapping[str, str],
    options: PipOptions | None,
    built: recipes.Built,
    target: str,
) -> dict[str, str]:
    """The variables of a fix's dry run against the index: the user's own, plus, where their pip
    uses an index, the wheelhouses as find-links after their own (pip prefers a file found there
    to the same file on an index: nothing is downloaded twice, and what it resolves is the same,
    since every wheel there came from the index). The fix's requirements are downloaded there
    first (once per Python version)."""
    out = dict(env)
    if options is None or options.no_index or built.dry_wheels is None:
        return out
    wheels = built.dry_wheels
    if part.python and os.path.realpath(part.python) == os.path.realpath(target):
        specs = recipes.requirement_specs(part.argv[part.argv.index("install") :])
        wheels.ensure(built.python_minor, specs, deps="--no-deps" not in part.argv)
    out["PIP_FIND_LINKS"] = " ".join(
        [*options.find_links, str(built.wheelhouse), str(wheels.folder)]
    )
    return out


def _run(argv: list[str], env: Mapping[str, str], cwd: Path, timeout: int = 900) -> tuple[int, str]:
    try:
        proc = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            env=dict(env),
            cwd=cwd,
            check=False,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {timeout} s"
    except OSError as exc:
        return 127, str(exc)
    text = "\n".join(
        line
        for line in (proc.stdout + proc.stderr).splitlines()
        if "is ignored: it is neither" not in line
    )
    return proc.returncode, text


def _error_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("ERROR:", "error:", "×", "Error")):
            return line[:240]
    return (lines[-1] if lines else "")[:240]


PACKAGE_CHECKS = frozenset({"tf_requirements", "tf_install"})
"""Checks that read what is installed (metadata, the installer's check), whatever the import
does: a cause of theirs that appears only after a fix, the fix brought."""


def _package_causes(report: Json) -> set[str]:
    return {
        str(f["cause"])
        for f in report.get("findings") or []
        if f.get("check") in PACKAGE_CHECKS and f.get("cause") and f.get("status") == "fail"
    }


def check_fix(
    built: recipes.Built,
    report: Json,
    gpucheck_python: str,
    *,
    no_tf: bool,
    activated: bool,
    oracle: Oracle | None = None,
) -> FixResult:
    """Run the printed first fix the way the contract's section 3 says; with the ``oracle``,
    judge its size against the oracle's own smallest change."""
    first = report.get("first_fix")
    if not isinstance(first, dict) or not first.get("fix"):
        return FixResult("none", None, first.get("cause") if isinstance(first, dict) else None, "")
    fix, cause = str(first["fix"]), str(first.get("cause") or "")
    start = time.monotonic()
    parts = split_fix(fix)
    if parts is None:
        return FixResult("not_checkable", fix, cause, "not a plain command line")
    w = built.w
    copy = w.parent / "wfix"
    if copy.exists():
        shutil.rmtree(copy)
    subprocess.run(["cp", "-al", str(w), str(copy)], check=True)
    try:
        base_env = built.activate_env if activated else built.user_env
        env = {k: _rewrite(v, w, copy) for k, v in base_env.items()}
        parts = [[_tilde(_rewrite(t, w, copy), env) for t in p] for p in parts]
        classified = [_classify(p, env, copy) for p in parts]
        if any(c is None for c in classified) or HOST_FIX.search(fix.split("#", maxsplit=1)[0]):
            return FixResult(
                "not_checkable", fix, cause, "not a package, variable or file operation"
            )
        cwd = Path(_rewrite(str(built.cwd), w, copy))
        # what is installed before the fix (a recipe's later step may already have moved a
        # version the user asked for: that is not the fix's doing)
        target = _rewrite(built.target, w, copy)
        before = _versions(target, env, cwd)
        dry_only = False
        fresh = False  # the fix made a new environment: the rest is judged there
        for part in classified:
            assert part is not None
            if part.kind == "unset":
                for name in part.argv:
                    env.pop(name, None)
                continue
            if part.kind == "export":
                for item in part.argv:
                    name, _, value = item.partition("=")
                    env[name] = value
                continue
            own = {**env, **part.environ}
            if part.kind == "venv":
                code, text = _run(part.argv, own, cwd)
                if code != 0 or part.python is None or not os.path.exists(part.python):
                    return FixResult(
                        "fails",
                        fix,
                        cause,
                        f"makes no environment: exits {code}: {_error_line(text)}",
                    )
                target, fresh = part.python, True
                continue
            if part.kind == "file":
                code, text = _run(part.argv, own, cwd)
                if code != 0:
                    return FixResult(
                        "fails", fix, cause, f"{part.argv[0]} exits {code}: {_error_line(text)}"
                    )
                continue
            if part.outside and part.kind == "pip" and part.subcommand == "uninstall":
                # another interpreter (a venv's base) uninstalling what the user's setting shows
                # it: run for real only where all it finds lies in the copy (the user site there)
                names = [a for a in part.argv[part.argv.index("uninstall") + 1 :] if a[:1] != "-"]
                found = _dist_folders(part.python or part.argv[0], names, own, cwd)
                if found is None or any(
                    not _under(f, os.path.realpath(copy)) for f in found.values()
                ):
                    return FixResult(
                        "not_checkable", fix, cause, f"it uninstalls outside the copy: {found}"
                    )
                code, text = _run(part.argv, own, cwd)
                if code != 0:
                    return FixResult("fails", fix, cause, f"exits {code}: {_error_line(text)}")
                continue
            if part.outside and part.python is None and part.kind == "pip":
                return FixResult(
                    "fails", fix, cause, f"{part.argv[0]}: command not found on the user's PATH"
                )
            if part.outside or dry_only:
                dry = _dry(part)
                if dry is None:
                    return FixResult(
                        "not_checkable",
                        fix,
                        cause,
                        f"{part.subcommand} on an interpreter outside the environment",
                    )
                options = _pip_options(part, own, cwd) if part.kind == "pip" else None
                code, text = _run(dry, _dry_wheels(part, own, options, built, target), cwd)
                if code != 0 and "no such option: --dry-run" in text:
                    # pip before 22.2: the download the wheelhouse lacks cannot be asked about
                    # without making it
                    return FixResult(
                        "not_checkable",
                        fix,
                        cause,
                        "needs a download the wheelhouse lacks, and this pip has no --dry-run",
                    )
                if code != 0:
                    return FixResult(
                        "fails", fix, cause, f"the installer refuses: {_error_line(text)}"
                    )
                # the same interpreter: the same folder (every venv's python links to its base
                # interpreter, so the files themselves would make all venvs one)
                diagnosed = os.path.realpath(os.path.dirname(built.target))
                acts_on = os.path.realpath(os.path.dirname(part.python or "/nonexistent/x"))
                if part.outside and acts_on != diagnosed:
                    return FixResult(
                        "fails",
                        fix,
                        cause,
                        f"accepted, but acts on {part.python or part.argv[0]}, not {built.target}",
                    )
                dry_only = True  # the diagnosed interpreter lies outside $W (the system's)
                continue
            # the harness's own wheelhouse stands in for the index, so only where the user's pip
            # (its own option parser, in their setting, with the fix's variables) uses an index
            options = _pip_options(part, own, cwd) if part.kind == "pip" else None
            offline = dict(own)
            if options is not None and not options.no_index:
                offline["PIP_NO_INDEX"] = "1"
                offline["PIP_FIND_LINKS"] = " ".join([*options.find_links, str(built.wheelhouse)])
            elif part.kind == "pip":
                pass  # no index for this pip (or its options unknown): the command as it is
            else:
                offline["UV_OFFLINE"] = "1"
                offline["UV_FIND_LINKS"] = str(built.wheelhouse)
            code, text = _run(part.argv, offline, cwd)
            if code == 0:
                continue
            if _NEEDS_DOWNLOAD.search(text) and part.subcommand == "install":
                dry = _dry(part)
                assert dry is not None
                code, text = _run(dry, _dry_wheels(part, own, options, built, target), cwd)
                if code != 0:
                    return FixResult(
                        "fails", fix, cause, f"the installer refuses: {_error_line(text)}"
                    )
                dry_only = True
                continue
            return FixResult("fails", fix, cause, f"exits {code}: {_error_line(text)}")
        if dry_only:
            return FixResult(
                "works_dry_run",
                fix,
                cause,
                "needs a download the wheelhouse lacks; its dry run is accepted",
                time.monotonic() - start,
            )
        # the cause's check decides whether TensorFlow must be imported to see it again
        again = run_doctor(
            built,
            gpucheck_python,
            no_tf=no_tf or str(first.get("check")) not in IMPORT_CHECKS,
            activated=activated and not fresh,
            target=target,
            cwd=cwd,
            env=env,
        )
        if again.report is None:
            return FixResult(
                "fails", fix, cause, f"doctor gives no report afterwards: {again.stderr_tail}"
            )
        left = {c.get("cause") for c in again.report.get("causes") or []}
        left |= {f.get("cause") for f in again.report.get("findings") or []}
        if cause in left:
            return FixResult(
                "fails", fix, cause, "doctor still reports it afterwards", time.monotonic() - start
            )
        brought = sorted(_package_causes(again.report) - _package_causes(report))
        if brought:
            return FixResult(
                "fails",
                fix,
                cause,
                "it brings " + ", ".join(brought),
                time.monotonic() - start,
            )
        if fresh:  # what the fix installs is there (not in a folder the user's pip points to)
            there = {canonicalize_name(n) for n in _versions(target, env, cwd)}
            named = [
                Requirement(spec).name
                for part in classified
                if part is not None and part.python == target and part.subcommand == "install"
                for spec in recipes.requirement_specs(part.argv[part.argv.index("install") :])
            ]
            absent = [n for n in named if canonicalize_name(n) not in there]
            if absent:
                return FixResult(
                    "fails",
                    fix,
                    cause,
                    f"the new environment lacks {', '.join(absent)}",
                    time.monotonic() - start,
                )
        # a fresh environment leaves the user's own as it was: nothing of theirs goes down,
        # except a version that breaks what an installed distribution declares (putting it back
        # in that range is the smallest change there is)
        breaking = {p.name for p in oracle.pip_check()[0] if p.have} if oracle else set()
        lower = [] if fresh else _went_down(built, target, env, cwd, before, breaking)
        if lower:
            return FixResult(
                "fails",
                fix,
                cause,
                "took down what the user chose: " + ", ".join(lower),
                time.monotonic() - start,
            )
        changed = [] if fresh else _changes(before, _versions(target, env, cwd))
        sized = oracle is not None and not fresh and cause in _FAMILIES_SIZED
        size = _size(built, oracle, changed) if oracle is not None and sized else ""
        return FixResult("works", fix, cause, "", time.monotonic() - start, changed, size)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def _versions(target: str, env: Mapping[str, str], cwd: Path) -> dict[str, str]:
    """Each distribution's version as ``target`` sees it (the oracle's own probe)."""
    proc = subprocess.run(
        [target, "-c", PROBE, "tensorflow"],
        capture_output=True,
        text=True,
        env=dict(env),
        cwd=cwd,
        check=False,
        timeout=300,
    )
    try:
        dists = json.loads(proc.stdout).get("dists") or {}
    except ValueError:
        return {}
    return {
        str(name): str(info["version"])
        for name, info in dists.items()
        if isinstance(info, dict) and info.get("version")
    }


def _went_down(
    built: recipes.Built,
    target: str,
    env: Mapping[str, str],
    cwd: Path,
    before: Mapping[str, str],
    breaking: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """The versions the user asked for that the fix lowered (from what was there before it),
    below the version the user chose: what another environment lent through ``PYTHONPATH`` may
    be newer than the user's own choice, and the user's choice is no loss. ``breaking``: the
    distributions the oracle's pip check finds outside what another declares, which may go."""
    after = _versions(target, env, cwd)
    out = []
    for name, chosen in sorted(built.explicit.items()):
        key = canonicalize_name(name)
        if key in breaking:
            continue
        was, now = before.get(key), after.get(key)
        try:
            if was and now and Version(now) < Version(was) and Version(now) < Version(chosen):
                out.append(f"{name} {was} -> {now}")
        except InvalidVersion:
            continue
    return out


def _changes(before: Mapping[str, str], after: Mapping[str, str]) -> list[str]:
    """Each distribution whose version the fix changed, added or removed."""
    out = []
    for name in sorted(set(before) | set(after)):
        was, now = before.get(name), after.get(name)
        if was != now:
            out.append(f"{name} {was or '(new)'} -> {now or '(removed)'}")
    return out


_MAJOR_WATCHED = re.compile(r"^(tensorflow(-\w+)?|tf-nightly|keras|tf-keras)$")


def _majors(changed: Sequence[str]) -> list[str]:
    """The changes that cross a major release of TensorFlow or Keras (Keras 2 to 3): code written
    for one major does not run on the other. A distribution added or removed crosses none."""
    out = []
    for line in changed:
        name, _, move = line.partition(" ")
        was, _, now = move.partition(" -> ")
        if not _MAJOR_WATCHED.match(name):
            continue
        try:
            if was == "(new)" or now == "(removed)":
                continue  # nothing was there to cross from, or nothing is left
            if Version(was).major != Version(now).major:
                out.append(line)
        except InvalidVersion:
            continue
    return out


_HOST_CAUSES = frozenset({"container_no_gpu", "no_nvidia_driver", "no_nvidia_gpu"})
"""What this machine lacks and no fix in the environment changes."""

_FAMILIES_SIZED = frozenset(
    {"numpy_incompatible", "protobuf_incompatible", "tf_requirement_unmet", "keras_mismatch"}
)


def _size(built: recipes.Built, oracle: Oracle, changed: list[str]) -> str:
    """The oracle's own smallest change: one install of every requirement its pip check finds
    unmet, as declared, into a copy (the harness's wheelhouse for the index, no setting of the
    user's), accepted where it leaves no unmet requirement its pip check did not already list
    and none of those it meant; compared with what the fix changed (majors crossed first, then
    how many distributions). "" where the oracle has no such change to compare."""
    problems, _tool = oracle.pip_check()
    wanted = [p.requirement or p.name for p in problems]
    if not wanted:
        return ""
    w = built.w
    copy = w.parent / "wsmall"
    if copy.exists():
        shutil.rmtree(copy)
    subprocess.run(["cp", "-al", str(w), str(copy)], check=True)
    try:
        env = {
            k: _rewrite(v, w, copy)
            for k, v in built.user_env.items()
            if not k.startswith(("PIP_", "UV_"))
        }
        env["PIP_CONFIG_FILE"] = os.devnull
        env["PIP_NO_INDEX"] = "1"
        env["PIP_FIND_LINKS"] = str(built.wheelhouse)
        env["UV_OFFLINE"] = "1"
        env["UV_FIND_LINKS"] = str(built.wheelhouse)
        target = _rewrite(built.target, w, copy)
        cwd = Path(_rewrite(str(built.cwd), w, copy))
        before = _versions(target, env, cwd)
        if oracle.view("clean").get("pip"):
            argv = [target, "-m", "pip", "install", *wanted]
            check = [target, "-m", "pip", "check"]
        else:
            uv = str(oracle.tools / "uv")
            argv = [uv, "pip", "install", "--python", target, *wanted]
            check = [uv, "pip", "check", "--python", target]
        code, _text = _run(argv, env, cwd)
        if code != 0:
            return ""
        _code, text = _run(check, env, cwd)
        left = parse_pip_check(text)
        if any(p in left for p in problems) or any(p not in problems for p in left):
            return ""
        smallest = _changes(before, _versions(target, env, cwd))
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    ours = (len(_majors(changed)), len(changed))
    theirs = (len(_majors(smallest)), len(smallest))
    if ours <= theirs:
        return "no_larger"
    return (
        f"larger: the fix changes {len(changed)} ({len(_majors(changed))} across a "
        f"major release); installing {' '.join(wanted)} changes {len(smallest)}: "
        + ", ".join(smallest)
    )


# --- the first cause, against the oracle's ---------------------------------------------------

ORACLE_CAUSES = frozenset(
    {
        "tf_not_installed",
        "tf_install_broken",
        "module_shadowed",
        "pythonpath_foreign",
        "multiple_tf_distributions",
        "tf_cpu_only_build",
        "numpy_incompatible",
        "protobuf_incompatible",
        "tf_requirement_unmet",
        "keras_mismatch",
        "keras_backend_missing",
        "container_no_gpu",
        "no_nvidia_driver",
    }
)
"""The causes this oracle can establish by experiment (others: "the oracle cannot say")."""

CPU_DISTRIBUTIONS = frozenset({"tensorflow-cpu", "tf-nightly-cpu", "tensorflow-cpu-aws"})


def oracle_causes(oracle: Oracle) -> dict[str, str]:
    """Each cause the experiments show, with what shows it."""
    out: dict[str, str] = {}
    built = oracle.built
    tf_dists = list(oracle.view("dists").get("tf_dists") or [])
    user = oracle.spec("tensorflow", "user")
    clean = oracle.spec("tensorflow", "clean")
    if not tf_dists and not (user and user.get("origin")):
        out["tf_not_installed"] = (
            "no distribution has tensorflow/__init__.py and find_spec finds none"
        )
    for setting, found in (("clean", clean), ("user", user)):
        # listed where it is looked for (a PYTHONPATH folder's record is not the environment's)
        listed = list(oracle.view(setting).get("tf_dists") or [])
        if listed and not (found and found.get("origin")):
            out["tf_install_broken"] = (
                f"{', '.join(listed)} listed ({setting}), find_spec finds no tensorflow file"
            )
    for module in TF_IMPORT_MODULES:
        u, c = oracle.spec(module, "user"), oracle.spec(module, "clean")
        if u and u.get("origin") and u.get("origin") != (c or {}).get("origin"):
            owners = (oracle.view("user").get("owners") or {}).get(u["origin"], [])
            if not owners:
                out["module_shadowed"] = f"{module}: {u['origin']} ({u.get('added_by')})"
            elif u.get("added_by") == "pythonpath" and not u.get("in_target"):
                # a folder of the user's only PYTHONPATH brings (a --target install) is their
                # layout: a fault where it hides the environment's own, where it is another
                # environment's site-packages, or where the import fails
                other = _environment_of(str(u.get("path_entry") or ""))
                if c and c.get("origin"):
                    out["pythonpath_foreign"] = (
                        f"{module}: {u['origin']} through PYTHONPATH, over {c['origin']}"
                    )
                elif other:
                    out["pythonpath_foreign"] = (
                        f"{module}: {u['origin']} through PYTHONPATH, the site-packages of {other}"
                    )
                elif oracle.tf_import()[0] != 0:
                    out["pythonpath_foreign"] = (
                        f"{module}: {u['origin']} through PYTHONPATH, and `import tensorflow` fails"
                    )
    if len(tf_dists) > 1:
        out["multiple_tf_distributions"] = ", ".join(tf_dists)
    if tf_dists and set(tf_dists) <= CPU_DISTRIBUTIONS:
        out["tf_cpu_only_build"] = ", ".join(tf_dists)
    problems, tool = oracle.pip_check()
    for p in problems:
        if p.of not in _TF_DISTRIBUTIONS:
            continue
        code = {
            "numpy": "numpy_incompatible",
            "protobuf": "protobuf_incompatible",
            "keras": "keras_mismatch",
            "tf-keras": "keras_mismatch",
        }.get(p.name, "tf_requirement_unmet")
        out.setdefault(
            code, f"{tool}: {p.of} needs {p.requirement or p.name}, has {p.have or 'none'}"
        )
    dists = oracle.dists()
    env = built.user_env
    tf_version = next((dists[d]["version"] for d in tf_dists if d in dists), None)
    legacy = env.get("TF_USE_LEGACY_KERAS", "").lower() in ("1", "true", "yes")
    try:
        keras3_era = tf_version is not None and Version(tf_version).release[:2] >= (2, 16)
    except InvalidVersion:
        keras3_era = False
    if legacy and keras3_era and "tf-keras" not in dists:
        out["keras_mismatch"] = "TF_USE_LEGACY_KERAS=1 and importlib.metadata finds no tf-keras"
    backend = env.get("KERAS_BACKEND", "")
    keras = dists.get("keras")
    keras3 = (
        keras is not None
        and keras["version"].split(".")[0].isdigit()
        and int(keras["version"].split(".")[0]) >= 3
    )
    if backend in ("jax", "torch") and keras3 and oracle.spec(backend, "user") is None:
        out["keras_backend_missing"] = f"KERAS_BACKEND={backend}, find_spec({backend!r}) is None"
    if not glob.glob("/dev/nvidia*"):
        if os.path.exists("/.dockerenv") or os.path.exists("/run/.containerenv"):
            out["container_no_gpu"] = "no /dev/nvidia* in a container (/.dockerenv)"
        path, _, _ = oracle.dlopen("libnvidia-ml.so.1", "", None)
        if path is None:
            out["no_nvidia_driver"] = "dlopen(libnvidia-ml.so.1) fails"
    return out


def _environment_of(entry: str) -> str | None:
    """The interpreter whose own site-packages ``entry`` is (``<prefix>/lib/pythonX.Y/
    site-packages``), asked: its ``site.getsitepackages()`` lists the folder."""
    if not entry:
        return None
    folder = Path(entry)
    if len(folder.parents) < 3:
        return None
    prefix = folder.parents[2]
    for exe in sorted(glob.glob(str(prefix / "bin" / "python3*"))):
        try:
            proc = subprocess.run(
                [exe, "-c", "import json, site; print(json.dumps(site.getsitepackages()))"],
                capture_output=True,
                text=True,
                check=False,
                timeout=60,
            )
            found = json.loads(proc.stdout or "[]")
        except (OSError, ValueError, subprocess.TimeoutExpired):
            continue
        if any(os.path.realpath(f) == os.path.realpath(entry) for f in found):
            return exe
    return None


def compare_cause(doctor_cause: str | None, truth: Mapping[str, str]) -> str:
    if doctor_cause is None:
        return "missed" if set(truth) - {"container_no_gpu", "no_nvidia_driver"} else "agrees"
    if doctor_cause in truth:
        return "agrees"
    if doctor_cause in ORACLE_CAUSES:
        return "disagrees"
    return "oracle_cannot_say"


# --- one environment, a run -----------------------------------------------------------------


@dataclass
class EnvResult:
    index: int
    recipe: Json
    commands: list[str]
    build_seconds: float
    base_reused: bool
    failed_steps: list[str]
    doctor_seconds: float
    doctor_exit: int
    doctor_error: str
    no_tf: bool
    activated: bool
    statements: list[Statement]
    fix: FixResult
    doctor_cause: str | None
    oracle_causes: dict[str, str]
    cause_verdict: str
    oracle_seconds: float
    seconds: float
    doctor_command: list[str] = field(default_factory=list)
    requirement_fix: FixResult | None = None
    """Where the first cause is another (a container without a GPU comes first here), the fix
    doctor gives for its first cause of TensorFlow's requirements, run the same way: what the
    size of a change is judged on."""

    def as_json(self) -> Json:
        data = asdict(self)
        data["statements"] = [asdict(s) for s in self.statements]
        data["fix"] = asdict(self.fix)
        data["requirement_fix"] = asdict(self.requirement_fix) if self.requirement_fix else None
        return data

    @classmethod
    def from_json(cls, data: Json) -> EnvResult:
        fields = dict(data)
        fields["statements"] = [Statement(**s) for s in data["statements"]]
        fields["fix"] = FixResult(**data["fix"])
        sized = data.get("requirement_fix")
        fields["requirement_fix"] = FixResult(**sized) if sized else None
        return cls(**fields)

    def sized(self) -> FixResult | None:
        """The fix whose size was judged: the first, else the requirement one."""
        if self.fix.size:
            return self.fix
        return self.requirement_fix if self.requirement_fix and self.requirement_fix.size else None


def check_environment(
    index: int, recipe: Json, builder: recipes.Builder, gpucheck_python: str, *, fixes: bool = True
) -> EnvResult:
    start = time.monotonic()
    built = builder.build(recipe)
    failed = [
        f"{' '.join(r.command)[:160]} -> {r.returncode}: {r.output_tail.splitlines()[-1] if r.output_tail else ''}"
        for r in built.steps
        if r.returncode != 0
    ]
    no_tf = bool(recipe["doctor"]["no_tf"])
    activated = bool(recipe["user"].get("activate"))
    doctor = run_doctor(built, gpucheck_python, no_tf=no_tf, activated=activated)
    t_oracle = time.monotonic()
    oracle = Oracle(built, builder.root / "scratch", builder.tools)
    found = statements(doctor.report) if doctor.report else []
    for statement in found:
        judge(statement, oracle)
    truth = oracle_causes(oracle)
    oracle_seconds = time.monotonic() - t_oracle
    first = (doctor.report or {}).get("first_fix")
    doctor_cause = first.get("cause") if isinstance(first, dict) else None
    if doctor.report is None:
        fix = FixResult("none", None, None, "doctor gave no JSON")
    elif fixes:
        fix = check_fix(
            built, doctor.report, gpucheck_python, no_tf=no_tf, activated=activated, oracle=oracle
        )
    else:
        fix = FixResult("not_checked", None, doctor_cause, "--no-fixes")
    requirement_fix = None
    if fixes and doctor.report is not None and doctor_cause not in _FAMILIES_SIZED:
        # the first cause once what only the host can change (no GPU device, no driver here)
        # is set aside: where that is one of TensorFlow's requirements, its fix runs too
        later = next(
            (c for c in doctor.report.get("causes") or [] if c.get("cause") not in _HOST_CAUSES),
            None,
        )
        if later is not None and later.get("cause") in _FAMILIES_SIZED and later.get("fix"):
            as_first = {**doctor.report, "first_fix": later}
            requirement_fix = check_fix(
                built, as_first, gpucheck_python, no_tf=no_tf, activated=activated, oracle=oracle
            )
    for statement in found:
        if statement.kind == "proof":
            status = statement.claim.get("status")
            if status == "refused":
                statement.verdict, statement.truth = (
                    "false",
                    "a refused fix is printed as the first fix",
                )
            elif status == "proven" and fix.status in ("works", "works_dry_run"):
                statement.verdict, statement.truth = "true", fix.status
            elif status == "proven" and fix.status == "fails" and "refuses" in fix.why:
                statement.verdict, statement.truth = "false", fix.why
    return EnvResult(
        index=index,
        recipe=recipe,
        commands=recipes.commands(recipe),
        build_seconds=built.seconds,
        base_reused=built.base_reused,
        failed_steps=failed,
        doctor_seconds=doctor.seconds,
        doctor_exit=doctor.returncode,
        doctor_error="" if doctor.report else doctor.stderr_tail,
        no_tf=no_tf,
        activated=activated,
        statements=found,
        fix=fix,
        doctor_cause=doctor_cause,
        oracle_causes=truth,
        cause_verdict=compare_cause(doctor_cause, truth) if doctor.report else "no_report",
        oracle_seconds=oracle_seconds,
        seconds=time.monotonic() - start,
        doctor_command=doctor.command,
        requirement_fix=requirement_fix,
    )


def check_here(
    target: str, cwd: Path, gpucheck_python: str, scratch: Path, *, no_tf: bool = False
) -> EnvResult:
    """Every statement doctor makes about an environment that already exists (a real machine's,
    a GPU machine's), judged by the same experiments in the user's folder with the variables of
    this process. Nothing is built and nothing is changed: the first fix is not run (its
    installer's dry run is, where doctor states what the installer said)."""
    start = time.monotonic()
    user_env = dict(os.environ)
    recipe: Json = {
        "layout": "here",
        "python": "",
        "target": target,
        "cwd": str(cwd),
        "doctor": {"no_tf": no_tf},
        "user": {},
    }
    built = recipes.Built.existing(recipe, scratch / "w", target, cwd, user_env)
    doctor = run_doctor(built, gpucheck_python, no_tf=no_tf, activated=False)
    t_oracle = time.monotonic()
    oracle = Oracle(built, scratch / "scratch", recipes.CACHE / "bin")
    found = statements(doctor.report) if doctor.report else []
    for statement in found:
        judge(statement, oracle)
    truth = oracle_causes(oracle)
    first = (doctor.report or {}).get("first_fix")
    doctor_cause = first.get("cause") if isinstance(first, dict) else None
    fix = FixResult(
        "not_checked",
        first.get("fix") if isinstance(first, dict) else None,
        doctor_cause,
        "an existing environment: its first fix is not run",
    )
    return EnvResult(
        index=0,
        recipe=recipe,
        commands=[],
        build_seconds=0.0,
        base_reused=False,
        failed_steps=[],
        doctor_seconds=doctor.seconds,
        doctor_exit=doctor.returncode,
        doctor_error="" if doctor.report else doctor.stderr_tail,
        no_tf=no_tf,
        activated=False,
        statements=found,
        fix=fix,
        doctor_cause=doctor_cause,
        oracle_causes=truth,
        cause_verdict=compare_cause(doctor_cause, truth) if doctor.report else "no_report",
        oracle_seconds=time.monotonic() - t_oracle,
        seconds=time.monotonic() - start,
        doctor_command=doctor.command,
    )


def summarize(results: Sequence[EnvResult]) -> Json:
    by_kind: dict[str, Counter[str]] = {}
    for result in results:
        for s in result.statements:
            by_kind.setdefault(s.kind, Counter())[s.verdict] += 1
    checked = sum(c["true"] + c["false"] for c in by_kind.values())
    fixes = Counter(r.fix.status for r in results)
    causes = Counter(r.cause_verdict for r in results)

    def stats(values: list[float]) -> Json:
        if not values:
            return {}
        return {
            "median": round(statistics.median(values), 1),
            "mean": round(statistics.mean(values), 1),
            "max": round(max(values), 1),
        }

    return {
        "environments": len(results),
        "doctor_without_json": sum(1 for r in results if r.doctor_error),
        "statements_checked": checked,
        "statements_by_source": dict(
            sorted(
                Counter(
                    s.source
                    for r in results
                    for s in r.statements
                    if s.verdict in ("true", "false")
                ).items()
            )
        ),
        "false_statements": sum(c["false"] for c in by_kind.values()),
        "unobserved_statements": sum(c["unobserved"] for c in by_kind.values()),
        "unchecked_statements": sum(c["unchecked"] for c in by_kind.values()),
        "by_kind": {k: dict(sorted(v.items())) for k, v in sorted(by_kind.items())},
        "first_fixes": dict(sorted(fixes.items())),
        "requirement_fixes": dict(
            sorted(Counter(r.requirement_fix.status for r in results if r.requirement_fix).items())
        ),
        "first_fix_size": dict(
            sorted(
                Counter(
                    sized.size.split(":")[0] for r in results if (sized := r.sized()) is not None
                ).items()
            )
        ),
        "first_cause": dict(sorted(causes.items())),
        "seconds": {
            "total": stats([r.seconds for r in results]),
            "build": stats([r.build_seconds for r in results]),
            "doctor": stats([r.doctor_seconds for r in results]),
            "oracle": stats([r.oracle_seconds for r in results]),
            "fix": stats([r.fix.seconds for r in results if r.fix.seconds]),
        },
    }


def print_report(
    results: Sequence[EnvResult], summary: Json, out: Callable[[str], None] = print
) -> None:
    out("")
    out(
        f"environments built: {summary['environments']}  (doctor gave no JSON: {summary['doctor_without_json']})"
    )
    out(
        f"statements checked: {summary['statements_checked']}  by source: {summary['statements_by_source']}"
    )
    out(f"false statements: {summary['false_statements']}")
    out(
        f"unobserved statements made as fact: {summary['unobserved_statements']}  "
        f"(not checkable by this oracle: {summary['unchecked_statements']})"
    )
    out("")
    out(f"{'kind':20} {'true':>6} {'false':>6} {'unchecked':>10} {'unobserved':>11}")
    for kind, counts in summary["by_kind"].items():
        out(
            f"{kind:20} {counts.get('true', 0):>6} {counts.get('false', 0):>6} "
            f"{counts.get('unchecked', 0):>10} {counts.get('unobserved', 0):>11}"
        )
    false = [(r, s) for r in results for s in r.statements if s.verdict == "false"]
    if false:
        out("\nfalse statements (each with the recipe that rebuilds its environment):")
    for result, s in false:
        out(f"\n  env {result.index} [{result.recipe['layout']}] {s.check} ({s.kind}, {s.source}):")
        out(f"    said:  {s.said}")
        out(f"    truth: {s.truth}")
        out(f"    recipe: {json.dumps(result.recipe, sort_keys=True)}")
    fixes = summary["first_fixes"]
    out("\nfirst fixes: " + ", ".join(f"{k} {v}" for k, v in fixes.items()))
    later = summary.get("requirement_fixes") or {}
    if later:
        out(
            "requirement fixes run where another cause came first: "
            + ", ".join(f"{k} {v}" for k, v in later.items())
        )
    sizes = summary.get("first_fix_size") or {}
    out(
        "requirement fixes (the first, else the first of a requirement cause) against the "
        "oracle's smallest change: "
        + (", ".join(f"{k} {v}" for k, v in sizes.items()) or "none judged")
    )
    for r in results:
        sized = r.sized()
        if sized is not None and sized.size.startswith("larger"):
            out(
                f"  env {r.index} [{r.recipe['layout']}] {sized.cause}: {sized.fix}\n      -> {sized.size}"
            )
        if r.requirement_fix is not None and r.requirement_fix.status == "fails":
            out(
                f"  env {r.index} [{r.recipe['layout']}] (requirement fix) {r.requirement_fix.cause}: "
                f"{r.requirement_fix.fix}\n      -> {r.requirement_fix.why}"
            )
        if r.fix.status == "fails":
            out(
                f"  env {r.index} [{r.recipe['layout']}] {r.fix.cause}: {r.fix.fix}\n      -> {r.fix.why}"
            )
    out(
        "first cause vs the oracle's: "
        + ", ".join(f"{k} {v}" for k, v in summary["first_cause"].items())
    )
    for r in results:
        if r.cause_verdict in ("disagrees", "missed"):
            out(
                f"  env {r.index} [{r.recipe['layout']}] doctor: {r.doctor_cause}; oracle: {sorted(r.oracle_causes)}"
            )
    sec = summary["seconds"]
    out(
        "time per env (s): "
        + "; ".join(
            f"{k} median {v['median']} mean {v['mean']} max {v['max']}" for k, v in sec.items() if v
        )
    )


_FINGERPRINT = """
import hashlib, os, sys
import tf_gpucheck
root = os.path.dirname(tf_gpucheck.__file__)
h = hashlib.sha256()
for folder, dirs, files in sorted(os.walk(root)):
    dirs.sort()
    for name in sorted(files):
        if name.endswith((".py", ".yaml", ".json", ".txt")):
            h.update(os.path.relpath(os.path.join(folder, name), root).encode())
            with open(os.path.join(folder, name), "rb") as f:
                h.update(f.read())
print(tf_gpucheck.__version__ + "+" + h.hexdigest()[:16])
"""


def fingerprint(gpucheck_python: str) -> str:
    """The gpucheck that runs doctor, by its version and a hash of its files: a resumed run must
    run the very same code."""
    out = subprocess.run(
        [gpucheck_python, "-c", _FINGERPRINT], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def write_json(
    path: Path, args: argparse.Namespace, results: Sequence[EnvResult], summary: Json | None = None
) -> None:
    data = {
        "seed": args.seed,
        "count": len(results),
        "gpucheck_python": args.gpucheck_python,
        "gpucheck_fingerprint": args.fingerprint,
        "summary": summary or summarize(results),
        "environments": [r.as_json() for r in results],
    }
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True, default=str))
    tmp.replace(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--start", type=int, default=0, help="index of the first environment")
    parser.add_argument("--only", help=f"one layout: {', '.join(sorted(recipes.LAYOUTS))}")
    parser.add_argument("--light", action="store_true", help="no TensorFlow: small wheels only")
    parser.add_argument("--tf-pool", choices=("default", "all"), default="default")
    parser.add_argument("--keep", action="store_true", help="keep every environment (kept/NNNN)")
    parser.add_argument("--json", type=Path, help="write every environment and statement here")
    parser.add_argument("--replay", type=Path, help="build the recipe(s) of this JSON file")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on with the run in --json: its environments are kept and not built again "
        "(the same seed and the very same gpucheck, or it stops)",
    )
    parser.add_argument(
        "--report", type=Path, help="print the report of a --json file (of an interrupted run too)"
    )
    parser.add_argument("--workdir", type=Path, help="where to build (default: a temporary folder)")
    parser.add_argument("--wheelhouse", type=Path, default=recipes.CACHE / "wheels")
    parser.add_argument(
        "--gpucheck-python",
        default=sys.executable,
        help="the Python whose tf_gpucheck runs doctor (default: this one)",
    )
    parser.add_argument("--no-fixes", action="store_true", help="do not run the first fixes")
    parser.add_argument(
        "--here",
        metavar="PYTHON",
        help="judge doctor's statements about this existing interpreter (in --cwd, default the "
        "current folder, with this process's variables): nothing is built or run as a fix",
    )
    parser.add_argument("--cwd", type=Path, help="the user's folder for --here")
    parser.add_argument(
        "--max-bases",
        type=int,
        default=8,
        help="environments kept for reuse, per job (1.5-2 GB each)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="environments built and checked at once, each job in a folder of its own (job-K)",
    )
    args = parser.parse_args(argv)
    if args.report:
        done = [EnvResult.from_json(e) for e in json.loads(args.report.read_text())["environments"]]
        print_report(done, summarize(done))
        return 0
    if args.here:
        scratch = Path(tempfile.mkdtemp(prefix="gpucheck-claims-here-"))
        try:
            runs = [
                check_here(
                    args.here,
                    (args.cwd or Path.cwd()).resolve(),
                    args.gpucheck_python,
                    scratch,
                    no_tf=no_tf,
                )
                for no_tf in (True, False)
            ]
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        for result in runs:
            result.index = int(not result.no_tf)
            result.recipe["layout"] = "here --no-tf" if result.no_tf else "here"
            for s in result.statements:
                print(f"{s.verdict:10} {s.kind:16} {s.said[:90]}\n{'':27}{s.truth[:160]}")
        args.seed = None
        args.fingerprint = fingerprint(args.gpucheck_python)
        if args.json:
            write_json(args.json, args, runs)
        print_report(runs, summarize(runs))
        return 1 if any(s.verdict == "false" for r in runs for s in r.statements) else 0
    available = tuple(sorted(recipes.pythons(), key=lambda v: tuple(int(p) for p in v.split("."))))
    pool = recipes.DEFAULT_POOL
    if args.tf_pool == "all":
        pool = tuple(sorted((py, d, v) for (d, v), pys in recipes.TF_WHEELS.items() for py in pys))
    grammar = recipes.Grammar(pool=pool, light=args.light, available_pythons=available)
    if args.replay:
        loaded = json.loads(args.replay.read_text())
        items = loaded if isinstance(loaded, list) else [loaded]
        todo = [(int(r.get("index", i)), r) for i, r in enumerate(items)]
    else:
        todo = [
            (i, recipes.draw(args.seed, i, grammar, args.only))
            for i in range(args.start, args.start + args.count)
        ]
    args.fingerprint = fingerprint(args.gpucheck_python)
    resumed: list[EnvResult] = []
    if args.resume:
        if not args.json or not args.json.exists():
            parser.error("--resume needs the --json file of the run to go on with")
        before = json.loads(args.json.read_text())
        if (
            before.get("seed") != args.seed
            or before.get("gpucheck_fingerprint") != args.fingerprint
        ):
            parser.error(
                f"{args.json} is seed {before.get('seed')} with gpucheck "
                f"{before.get('gpucheck_fingerprint')}; this is seed {args.seed} with "
                f"{args.fingerprint}: not the same run"
            )
        resumed = [EnvResult.from_json(e) for e in before["environments"]]
        done_indices = {r.index for r in resumed}
        todo = [(i, r) for i, r in todo if i not in done_indices]
        print(f"resuming: {len(resumed)} environments kept, {len(todo)} to go", file=sys.stderr)
    root = args.workdir or Path(tempfile.mkdtemp(prefix="gpucheck-claims-"))
    root.mkdir(parents=True, exist_ok=True)
    jobs = max(1, args.jobs)
    wheels = recipes.Wheelhouse(args.wheelhouse, recipes.pythons())
    builders = [
        recipes.Builder(
            root if jobs == 1 else root / f"job-{k}",
            args.wheelhouse,
            max_bases=args.max_bases,
            wheels=wheels,
        )
        for k in range(jobs)
    ]
    lock = threading.Lock()
    print(
        f"run root {root}; gpucheck from {args.gpucheck_python}; wheelhouse {args.wheelhouse}; "
        f"{jobs} job(s)",
        file=sys.stderr,
    )
    results: list[EnvResult] = list(resumed)
    wall = time.monotonic()

    def one(index: int, recipe: Json, builder: recipes.Builder) -> None:
        result = check_environment(
            index, recipe, builder, args.gpucheck_python, fixes=not args.no_fixes
        )
        if args.keep:
            kept = root / "kept" / f"{index:04d}"
            kept.parent.mkdir(exist_ok=True)
            shutil.move(str(builder.w), kept)
            (kept / "recipe.json").write_text(json.dumps(recipe, indent=1, sort_keys=True))
        false = sum(1 for s in result.statements if s.verdict == "false")
        with lock:
            results.append(result)
            results.sort(key=lambda r: r.index)
            print(
                f"env {index:4} {recipe['layout']:18} py{recipe['python']:5} "
                f"{'tf ' if not result.no_tf else '   '}{'act ' if result.activated else '    '}"
                f"statements {len(result.statements):3} false {false:2} "
                f"cause {result.doctor_cause!s:26} fix {result.fix.status:14} {result.seconds:6.1f} s",
                file=sys.stderr,
                flush=True,
            )
            if args.json:  # after every environment: an interrupted run keeps what it did
                write_json(args.json, args, results)

    pending = list(todo)
    unmeasured: list[int] = []
    affine: dict[int, set[str]] = {id(b): set() for b in builders}

    def worker(builder: recipes.Builder) -> None:
        """Takes the next environment whose first TensorFlow install this job made before (its
        base is here: a hard-linked copy instead of a new install), else one no other job made,
        else the next. Environments finish out of order; the JSON is kept in index order."""
        while True:
            with lock:
                if not pending:
                    return
                keys = [builder.prefix(recipe) for _, recipe in pending]
                mine = affine[id(builder)]
                theirs = set().union(*(v for k, v in affine.items() if k != id(builder)))
                pick = next((i for i, k in enumerate(keys) if k is not None and k in mine), None)
                if pick is None:
                    pick = next((i for i, k in enumerate(keys) if k not in theirs), 0)
                index, recipe = pending.pop(pick)
                key = keys[pick]
                if key is not None:
                    mine.add(key)
            try:
                one(index, recipe, builder)
            except Exception as exc:  # the harness's own failure: not a measurement
                with lock:
                    unmeasured.append(index)
                    print(
                        f"env {index:4} not measured: {type(exc).__name__}: {exc} "
                        "(--resume builds it again)",
                        file=sys.stderr,
                        flush=True,
                    )

    try:
        if jobs == 1:
            worker(builders[0])
        else:
            with ThreadPoolExecutor(max_workers=jobs) as executor:
                for future in [executor.submit(worker, b) for b in builders]:
                    future.result()
    finally:
        for builder in builders:
            if builder.w.exists():
                shutil.rmtree(builder.w, ignore_errors=True)
        if not args.keep and args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    summary = summarize(results)
    summary["wall_seconds"] = round(time.monotonic() - wall, 1)
    summary["wheelhouse_download_seconds"] = round(wheels.seconds, 1)
    print_report(results, summary)
    print(
        f"wall {summary['wall_seconds']} s (wheelhouse downloads {summary['wheelhouse_download_seconds']} s)"
    )
    if unmeasured:
        print(
            f"not measured (the harness failed, see above; --resume builds them again): "
            f"{sorted(unmeasured)}"
        )
    if args.json:
        write_json(args.json, args, results, summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
