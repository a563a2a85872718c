"""The oracle of benchmarks/claims.py: the truth of each claim and the causes, established by its
own experiments in the target (its importlib, the installer's own check, the dynamic loader, the
RECORD files), never from gpucheck's tables or code."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

import claims_recipes as recipes
from claims_statements import _TF_DISTRIBUTIONS, TF_IMPORT_MODULES, Statement, _strip_init

Json = dict[str, Any]

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
    from claims_fixes import _classify, _dry, _error_line, _run, split_fix  # it runs fixes' parts

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


LEGACY_KERAS_MISSING = "TF_USE_LEGACY_KERAS=1 and importlib.metadata finds no tf-keras"
"""Why the oracle says keras_mismatch where no pip check line says it: tf.keras is then tf-keras
(TensorFlow 2.16+), and it is not installed."""


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
        if p.have is None and code in ("numpy_incompatible", "protobuf_incompatible"):
            # not installed at all: no version to be incompatible; causes.yaml's
            # tf_requirement_unmet is "a package TensorFlow or Keras declares ... is missing"
            code = "tf_requirement_unmet"
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
        out["keras_mismatch"] = LEGACY_KERAS_MISSING
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
