"""Doctor run as the user runs it, and what it states, read from its JSON report as claims an
experiment can check (benchmarks/claims.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


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
