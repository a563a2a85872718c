"""Facts a pasted text states about the machine it came from: versions, GPUs, OS, WSL.

:func:`extract` reads what people paste into an issue (nvidia-smi's table, TensorFlow's log,
pip's output, a traceback, a Python banner) and returns only what the text states plainly.
It is conservative: when two lines state different values for the same fact, the fact is
``None`` (no fact rather than a wrong fact); a value stated less precisely elsewhere (``3.10``
next to ``3.10.13``) is not a contradiction. What a tool printed (``pip list``, nvidia-smi, an
issue template's field) outranks what prose says: where printed values exist, they alone
decide. Each fact remembers the line it came from and the words that stated it.

The structured output is read here; the patterns for template fields, prose and package
listings are data (``knowledge/facts.yaml``, read by :mod:`tf_gpucheck.reading.factrules`).
Prose is read only in a paste (up to ``logscan.PASTE_LINES`` lines): a program's long log has none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tf_gpucheck.probes.packages import TENSORFLOW_DISTRIBUTIONS
from tf_gpucheck.reading import factrules, gpunames
from tf_gpucheck.reading.needs import NEEDABLE, needed
from tf_gpucheck.reading.stated import OS, StatedFacts

__all__ = ["OS", "StatedFacts", "extract"]

_V = r"\d+\.\d+(?:\.\d+)*"

# nvidia-smi's header: "| NVIDIA-SMI 535.171.04   Driver Version: 535.171.04   CUDA Version: 12.2 |"
_SMI_HEADER = re.compile(
    rf"NVIDIA-SMI (?P<smi>{_V})\s+Driver Version: (?P<driver>{_V})(?:\s+CUDA Version: (?P<cuda>{_V}))?"
)
# nvidia-smi's GPU rows: "|   0  Tesla T4            Off  | 00000000:00:0C.0 Off |"
_SMI_GPU = re.compile(r"^\|\s+(?P<index>\d+)\s+(?P<name>\S.*?)\s+(?:On|Off|WDDM|TCC)\s+\|")
# TensorFlow: "Created device ... -> device: 0, name: X, pci bus id: Y, compute capability: 8.6"
# (also "Created TensorFlow device ... -> physical GPU (device: 0, name: ...", "Ignoring visible
# gpu device (device: 0, name: ...").
_TF_DEVICE = re.compile(
    r"device: (?P<index>\d+), name: (?P<name>[^,]+), pci bus id: [^,]+, "
    r"compute capability: (?P<cc>\d+\.\d+)"
)
# TF 2.1-2.4: "pciBusID: 0000:01:00.0 name: GeForce GTX 1080 Ti computeCapability: 6.1"
_TF_FOUND = re.compile(r"pciBusID: \S+ name: (?P<name>.+?) computeCapability: (?P<cc>\d+\.\d+)")
# TF 1.x-2.0: "name: GeForce RTX 2080 Ti major: 7 minor: 5 memoryClockRate(GHz): 1.545"
_TF_FOUND_OLD = re.compile(r"name: (?P<name>.+?) major: (?P<major>\d+) minor: (?P<minor>\d+)")
_TF_FOUND_INDEX = re.compile(r"Found device (?P<index>\d+) with properties")
# XLA: "StreamExecutor device (0): NVIDIA GeForce RTX 5060 Ti, Compute Capability 12.0"
_XLA_DEVICE = re.compile(
    r"StreamExecutor device \((?P<index>\d+)\): (?P<name>.+?), Compute Capability (?P<cc>\d+\.\d+)"
)

_VERSION_TAIL = r"[A-Za-z0-9.+!_-]*"
"""What may follow a version's numbers (``rc1``, ``.dev20201108``, ``+nv23.03``): never the
prose around it ("1.14.0下默认使用cpu")."""
_TF_DISTS = (
    r"(?:tensorflow|tensorflow-cpu|tensorflow-gpu|tensorflow-intel|tensorflow_cpu|tensorflow_intel)"
)
_PIP_INSTALLED = re.compile(rf"(?:^|\s){_TF_DISTS}-(?P<v>\d+\.\d+\.\d+{_VERSION_TAIL})")
_PIP_FREEZE = re.compile(rf"^{_TF_DISTS}==(?P<v>\d+\.\d+\.\d+{_VERSION_TAIL})\s*$")
_PIP_LIST = re.compile(rf"^{_TF_DISTS}\s+(?P<v>\d+\.\d+\.\d+{_VERSION_TAIL})\s*$")
_PIP_SHOW_NAME = re.compile(r"^Name: (?P<name>[A-Za-z0-9][\w.-]*)\s*$")
_PIP_SHOW_VERSION = re.compile(rf"^Version: (?P<v>\d+\.\d+\.\d+{_VERSION_TAIL})\s*$")
_TF_VERSION_STATED = re.compile(
    r"^[\s*#>-]*(?i:tensorflow version)[^:\n]*:\s*"
    r"(?:(?:tensorflow|tf)(?:-gpu|-cpu)?\s*[=\s]=?\s*)?v?(?P<v>\d+\.\d+\.\d+[\w.+-]*)"
)
# An issue template's heading on one line and its answer on the next (blank lines dropped): "###
# Tensorflow Version" / "2.12.0", "### Python version" / "3.11", "### OS Platform..." / "Windows 11".
_HEADING = re.compile(
    r"^#*\s*(?P<what>(?i:tensorflow version|python version|os platform and distribution))\s*$"
)
_BARE_VERSION = re.compile(r"^v?(?P<v>\d+\.\d+(?:\.\d+[\w.+-]*)?)\s*$")
_OS_STATED = re.compile(r"^[\s*#>-]*(?i:os platform and distribution)[^:\n]*:\s*(?P<v>\S.*)$")
_REPL_VERSION = re.compile(r"^(?:>>> )?(?:print\()?(?:tf|tensorflow)\.__version__\)?\s*$")
_QUOTED_VERSION = re.compile(r"^'?(?P<v>\d+\.\d+\.\d+(?:-?rc\d+)?)'?\s*$")

_PY_BANNER = re.compile(r"^Python (?P<v>\d+\.\d+\.\d+)\b")
_PY_STATED = re.compile(
    r"^[\s*#>-]*(?i:python version)\W*(?:Python\s*)?(?P<v>\d+\.\d+(?:\.\d+)?)\b"
)
_PY_POSIX_PATH = re.compile(r"/lib/python(?P<v>\d+\.\d+)/(?:site|dist)-packages/")
_PY_WIN_PATH = re.compile(r"[\\/]Python(?P<major>[23])(?P<minor>\d{1,2})(?:-32)?[\\/]", re.I)
_PY_PIP = re.compile(r"^pip \S+ from .+ \(python (?P<v>\d+\.\d+)\)\s*$")
_PY_WHEEL_TAG = re.compile(r"-cp(?P<major>3)(?P<minor>\d{1,2})-cp3\d{1,2}m?-")

_OS_WINDOWS = re.compile(
    r"[A-Za-z]:\\(?:[^\\\n]+\\)+(?:site-packages|Lib)\\|\bon win32\b|\bwin_amd64\b|\b\w+64_\d+\.dll\b"
)
_OS_LINUX = re.compile(
    r"/(?:lib|lib64)/python\d\.\d+/(?:site|dist)-packages/|\bon linux\b|manylinux|"
    r"\blib\w+\.so(?:\.\d+)+\b|\bLinux-\d+\.\d+"
)
_OS_DARWIN = re.compile(r"\bon darwin\b|\bmacosx_\d+_\d+|/Library/Frameworks/Python|\.dylib\b")
_WSL = re.compile(
    r"microsoft-standard-WSL2|/usr/lib/wsl/lib|\\\\wsl(?:\$|\.localhost)\\|\b\d+\.\d+\.\d+-\d+-Microsoft\b",
    re.I,
)
_WSL_IS_LINUX = re.compile(r"microsoft-standard-WSL2|/usr/lib/wsl/lib", re.I)

_CVD_SHELL = re.compile(
    r"(?:^|[\s;(])(?:export\s+|set\s+|%env\s+)?CUDA_VISIBLE_DEVICES=(?P<v>\"[^\"]*\"|'[^']*'|[^\s;]*)"
)
_CVD_PY = re.compile(
    r"environ\[[\"']CUDA_VISIBLE_DEVICES[\"']\]\s*=\s*(?P<q>[\"'])(?P<v>.*?)(?P=q)"
)
_CVD_ENV_DUMP = re.compile(r"^\s*CUDA_VISIBLE_DEVICES: (?P<v>\S*)\s*$")

_BUILD_CUDA = re.compile(r"['\"]cuda_version['\"]\s*[:,]\s*['\"](?P<v>\d+(?:\.\d+)*)['\"]")
_BUILD_CUDNN = re.compile(r"['\"]cudnn_version['\"]\s*[:,]\s*['\"](?P<v>\d+(?:\.\d+)*)['\"]")
_CUDNN_COMPILED = re.compile(r"but source was compiled with: (?P<v>\d+\.\d+\.\d+)")
_SELFCHECK_CUDA = re.compile(r"Download and install CUDA (?P<v>\d+\.\d+) from this URL")
_SELFCHECK_CUDNN = re.compile(r"downloading cuDNN (?P<v>\d+(?:\.\d+)*) from this URL")


# Every pattern above needs one of these words in its line (or in the line before, for the
# answers under a heading): a line without any is skipped, which keeps a 100,000-line job log
# fast. Plain substring tests on the lower-cased line (one regular expression with many
# alternatives is far slower). tests/reading/test_textfacts.py checks that skipping changes no answer.
_KEYWORDS = (
    "nvidia-smi",
    "successfully installed",
    "tensorflow",
    "__version__",
    "python",
    "-cp3",
    "cuda_version",
    "cudnn_version",
    "compiled with",
    "from this url",
    "os platform",
    ":\\",
    "win32",
    "win_amd64",
    ".dll",
    "/lib",
    "linux",
    ".so",
    "darwin",
    "macosx",
    "/library/",
    ".dylib",
    "wsl",
    "microsoft",
    "cuda_visible_devices",
    "device: ",
    "streamexecutor device",
    "pcibusid",
    "major:",
    "found device",
)


_MAYBE_SEEN: dict[str, bool] = {}


def _maybe(line: str) -> bool:
    known = _MAYBE_SEEN.get(line)  # job logs repeat their lines
    if known is not None:
        return known
    low = line.lower()
    answer = line.startswith(("pip ", "|", "Version: ")) or any(word in low for word in _KEYWORDS)
    if len(_MAYBE_SEEN) < 100_000:
        _MAYBE_SEEN[line] = answer
    return answer


class _Collector:
    """Candidate values per fact, with the line each came from, how strongly it was stated and
    the words that stated it."""

    def __init__(self) -> None:
        self.values: dict[str, list[tuple[str, int]]] = {}
        self.strength: dict[tuple[str, str, int], int] = {}
        self.words: dict[tuple[str, int], str] = {}

    def add(
        self, fact: str, value: str, index: int, strength: int = 2, words: str | None = None
    ) -> None:
        value = factrules.tidy(fact, value)
        if fact == "tf_version" and not factrules.TF_MAJOR.match(value):
            return  # no TensorFlow release has that number ("tensorflow-gpu 4.0"): another's
        self.values.setdefault(fact, []).append((value, index))
        self.strength[(fact, value, index)] = strength
        if words is not None:
            self.words.setdefault((fact, index), words)

    def agreed(self, fact: str, prefix_ok: bool = False) -> tuple[str, int] | None:
        """The value every candidate of the strongest kind agrees on (the most precise one,
        where ``prefix_ok``)."""
        candidates = self.values.get(fact, [])
        if not candidates:
            return None
        strongest = max(self.strength.get((fact, v, i), 2) for v, i in candidates)
        candidates = [
            (v, i) for v, i in candidates if self.strength.get((fact, v, i), 2) == strongest
        ]
        best, best_index = candidates[0]
        for value, index in candidates[1:]:
            if value == best:
                continue
            if prefix_ok and _same_version(value, best):
                if _precision(value) > _precision(best):
                    best, best_index = value, index
                continue
            return None
        return best, best_index

    def how(self, fact: str, value: str, index: int) -> str:
        return "printed" if self.strength.get((fact, value, index), 2) >= 2 else "said"


class _Heard(_Collector):
    """What one line (after its previous one) states, kept in order to be added again wherever
    the same pair of lines recurs."""

    def __init__(self) -> None:  # none of the collector's tables: only what was said
        self.said: list[tuple[str, str, int, str | None]] = []

    def add(
        self, fact: str, value: str, index: int, strength: int = 2, words: str | None = None
    ) -> None:
        self.said.append((fact, value, strength, words))


def _same_version(a: str, b: str) -> bool:
    """``3.10`` and ``3.10.13``, ``2.0.0`` and its pre-release ``2.0.0-beta1``: one release line,
    said less precisely in one place (two different pre-releases are two statements)."""
    (short, rest), (long, _) = sorted(map(_numbers, (a, b)), key=lambda n: (len(n[0]), n[1] != ""))
    return long[: len(short)] == short and not rest


def _precision(version: str) -> tuple[int, bool]:
    numbers, rest = _numbers(version)
    return len(numbers), rest != ""


def _numbers(version: str) -> tuple[list[str], str]:
    numbers = re.match(r"\d+(?:\.\d+)*", version)
    head = numbers.group() if numbers else ""
    return head.split(".") if head else [], version[len(head) :]


_INLINE_CODE = re.compile(r"`([^`\s][^`]{0,60})`")
"""Markdown's inline code around a word or a value (`2.1.0`, `pip install tensorflow`): the
words inside are read as if written without the marks."""


def extract(lines: Sequence[str], *, skip_plain: bool = True) -> StatedFacts:
    """The facts these lines state (pass pasted text through ``normalise`` first).

    ``skip_plain`` skips lines that no pattern can match (tests turn it off to compare)."""
    from tf_gpucheck.reading.logscan import PASTE_LINES, classify

    found = _Collector()
    gpus: dict[int, tuple[str, str | None, int]] = {}
    unindexed: list[tuple[str, str | None, int]] = []
    found_index: int | None = None
    previous = ""
    previous_maybe = False
    rules = factrules.load() if len(lines) <= PASTE_LINES else None
    seen: dict[tuple[str, str], tuple[tuple[str, str, int, str | None], ...]] = {}
    heard = _Heard()
    refused = frozenset(  # the wheels pip refused, as its rule (pip_unsupported_wheel) reads them
        line.library
        for line in classify([t for t in lines if "not a supported wheel" in t])
        if line.rule is not None and line.rule.id == "pip_unsupported_wheel" and line.library
    )
    for index, pasted in enumerate(lines):
        # "tf version is `2.1.0`": Markdown's code marks dropped
        line = _INLINE_CODE.sub(r"\1", pasted) if "`" in pasted else pasted
        if rules is not None:
            _stated(found, rules, line, previous, index, unindexed)
        maybe = not skip_plain or _maybe(line)
        if not maybe and not previous_maybe:
            previous = line
            continue
        previous_maybe = maybe
        pair = (previous, line)
        said = seen.get(pair)  # a job log repeats its lines: each pair is read once
        if said is None:
            heard.said = []
            _versions(heard, line, previous, index, refused)
            _platform(heard, line, previous, index)
            said = tuple(heard.said)
            if len(seen) < 100_000:
                seen[pair] = said
        for what, told, strength, words in said:
            found.add(what, told, index, strength, words)
        # GPUs
        if "device" not in line and "pciBusID" not in line and "major:" not in line:
            if line.startswith("|"):
                row = _SMI_GPU.match(line)
                if row and not row["name"].endswith("..."):
                    _add_gpu(gpus, int(row["index"]), row["name"], None, index)
            previous = line
            continue
        device = _TF_DEVICE.search(line) or _XLA_DEVICE.search(line)
        if device:
            _add_gpu(gpus, int(device["index"]), device["name"].strip(), device["cc"], index)
        found_header = _TF_FOUND_INDEX.search(line)
        if found_header:
            found_index = int(found_header["index"])
        stated = _found_device(line)
        if stated:
            name, cc = stated
            if found_index is not None:
                _add_gpu(gpus, found_index, name, cc, index)
                found_index = None
            else:
                unindexed.append((name, cc, index))
        row = _SMI_GPU.match(line)
        if row and not row["name"].endswith("..."):
            _add_gpu(gpus, int(row["index"]), row["name"], None, index)
        previous = line

    facts: dict[str, object] = {}
    evidence: list[tuple[str, int]] = []
    spans: list[tuple[str, str, str]] = []

    def settle(fact: str, prefix_ok: bool, key: str | None = None) -> str | None:
        agreed = found.agreed(key or fact, prefix_ok)
        if not agreed:
            return None
        value, line_index = agreed
        facts[fact] = value
        evidence.append((fact, line_index))
        words = found.words.get((key or fact, line_index), lines[line_index].strip())
        spans.append((fact, words, found.how(key or fact, value, line_index)))
        return value

    for fact, prefix_ok in (
        ("tf_version", True),
        ("python_version", True),
        ("driver_version", False),
        ("cuda_driver_version", False),
        ("cuda_build_version", True),
        ("cudnn_build_version", True),
        ("os", False),
        ("cuda_visible_devices", False),
        ("cuda_version", True),
        ("cudnn_version", True),
        ("arch", False),
        ("gpu_requested", False),
        ("cuda_image", False),
        ("tf_build", False),
    ):
        settle(fact, prefix_ok)
    # several places can be true at once (Jupyter inside a container, a container in a pod):
    # the most specific one says what "no GPU" means there
    for place in PLACE_PRIORITY:
        if any(value == place for value, _ in found.values.get("place", ())):
            facts["place"] = place
            index = next(i for value, i in found.values["place"] if value == place)
            evidence.append(("place", index))
            spans.append(("place", found.words.get(("place", index), lines[index].strip()), "said"))
            break
    wsl = found.values.get("is_wsl")
    if wsl:
        facts["is_wsl"] = True
        evidence.append(("is_wsl", wsl[0][1]))
        spans.append(
            ("is_wsl", found.words.get(("is_wsl", wsl[0][1]), lines[wsl[0][1]].strip()), "said")
        )
        if "os" not in facts and found.agreed("os_wsl"):
            facts["os"] = "Linux"
            evidence.append(("os", found.values["os_wsl"][0][1]))
    packages = []
    for key in sorted(k for k in found.values if k.startswith("package:")):
        name = key.removeprefix("package:")
        version = settle(key, True)
        if version:
            packages.append((name, version))
    env = []
    for key in sorted(k for k in found.values if k.startswith("env:")):
        value = settle(key, False)
        if value is not None:
            env.append((key.removeprefix("env:"), value))
    needed = []
    for fact in sorted(NEEDABLE):
        value = settle(f"{fact}_needed", True)
        if value:
            needed.append((fact, value))
    listed = [gpus[i] for i in sorted(gpus)]
    for gpu in unindexed:
        if not any(_same_gpu(gpu[0], known) for known, _, _ in listed):
            listed.append(gpu)
    capability = found.agreed("compute_capability")
    if capability and len(listed) == 1 and listed[0][1] is None:
        listed[0] = (listed[0][0], capability[0], listed[0][2])
    if listed:
        evidence.append(("gpus", listed[0][2]))
    return StatedFacts(
        tf_version=_str(facts.get("tf_version")),
        python_version=_str(facts.get("python_version")),
        driver_version=_str(facts.get("driver_version")),
        cuda_driver_version=_str(facts.get("cuda_driver_version")),
        cuda_build_version=_str(facts.get("cuda_build_version")),
        cudnn_build_version=_str(facts.get("cudnn_build_version")),
        # a name with no stated compute capability gets NVIDIA's (knowledge/gpus.yaml)
        gpus=tuple((name, cc or gpunames.capability_of(name)) for name, cc, _ in listed),
        os=_os(facts.get("os")),
        is_wsl=True if facts.get("is_wsl") else None,
        cuda_visible_devices=_str(facts.get("cuda_visible_devices")),
        cuda_version=_str(facts.get("cuda_version")),
        cudnn_version=_str(facts.get("cudnn_version")),
        packages=tuple(packages),
        env=tuple(env),
        place=_str(facts.get("place")),
        arch=_str(facts.get("arch")),
        gpu_requested=_str(facts.get("gpu_requested")),
        cuda_image=_str(facts.get("cuda_image")),
        tf_build=_str(facts.get("tf_build")),
        needed=tuple(needed),
        evidence=tuple(evidence),
        spans=tuple(spans),
    )


def _same_gpu(a: str, b: str) -> bool:
    """ "RTX 3090" and "NVIDIA GeForce RTX 3090" name one GPU."""
    short, long = sorted(
        (re.sub(r"[\s-]+", "", a.lower()), re.sub(r"[\s-]+", "", b.lower())), key=len
    )
    return short in long


_FIELD_FACTS = {"keras_version": "package:keras", "numpy_version": "package:numpy"}
PLACE_PRIORITY = ("colab", "kaggle", "kubernetes", "slurm", "docker", "jupyter")
_SAID, _PRINTED = factrules.STRENGTH_RANK["said"], factrules.STRENGTH_RANK["printed"]


def _stated(
    found: _Collector,
    rules: factrules.FactRules,
    line: str,
    previous: str,
    index: int,
    gpus: list[tuple[str, str | None, int]],
) -> None:
    """The facts of ``knowledge/facts.yaml`` in one line of a paste (fields, prose, listings)."""
    answer = None
    field = None
    start = previous.lstrip()[:1]
    heading = (
        rules.field_heading.match(previous)
        if start == "#"
        else rules.field_label.match(previous)
        if start in ("-", "*", "+") and previous.rstrip(" *").endswith(":")
        else None
    )
    if heading and not line.lstrip().startswith("#"):
        field, answer = factrules.field_of(heading, rules), line
    else:
        inline = rules.field_inline.match(line) if ":" in line or "=" in line else None
        if inline:
            field, answer = factrules.field_of(inline, rules), inline["answer"]
    if field is not None and answer is not None:
        for fact in field.facts:
            value = factrules.read_answer(fact, answer)
            if value is None:
                continue
            if fact == "gpu":
                gpus.append((value, None, index))
            elif fact == "os":
                found.add("os", value, index, _PRINTED, answer.strip())
                if factrules.is_wsl(answer):
                    found.add("is_wsl", "True", index, _PRINTED, answer.strip())
            else:
                found.add(_FIELD_FACTS.get(fact, fact), value, index, _PRINTED, answer.strip())
    low = line.lower()
    if not rules.key_search.search(low):
        return
    for pattern in rules.patterns:
        if not any(key in low for key in pattern.keys):
            continue
        installed_seen = False
        for match in pattern.pattern.finditer(line):
            value = pattern.value if pattern.value is not None else match["v"]
            strength = factrules.STRENGTH_RANK[pattern.strength_at(line, match.start())]
            words = match.group(0).strip()
            if pattern.fact == "package":
                name = factrules.package_name(match["name"])
                value = value.rstrip("_*")  # Markdown's emphasis around a pin: _pip install x==1.2_
                found.add(f"package:{name}", value.removesuffix(".x"), index, strength, words)
                if name in TENSORFLOW_DISTRIBUTIONS:
                    found.add("tf_version", value, index, strength, words)
            elif pattern.fact == "env":
                found.add(f"env:{match['name']}", value.strip("\"'"), index, strength, words)
            elif pattern.fact in ("keras_version", "numpy_version"):
                found.add(_FIELD_FACTS[pattern.fact], value, index, strength, words)
            elif pattern.fact == "gpu":
                if not line.startswith("|"):  # nvidia-smi's rows are read above (names cut short)
                    gpus.append((value.strip(), None, index))
            elif pattern.fact == "wsl":
                found.add("is_wsl", "True", index, strength, words)
                found.add("os_wsl", "Linux", index, strength, words)
            elif pattern.fact in NEEDABLE and needed(rules, line, match):
                found.add(f"{pattern.fact}_needed", value, index, strength, words)
                continue  # the installed one may follow in the same line ("... and I have 10.1")
            elif not installed_seen:
                found.add(pattern.fact, value, index, strength, words)
                installed_seen = True
            if pattern.fact in NEEDABLE:
                continue  # one installed value per line; a needed one may still follow
            if pattern.fact not in ("package", "env", "gpu"):
                break  # one value per line and pattern


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _os(value: object) -> OS | None:
    if value == "Linux":
        return "Linux"
    if value == "Windows":
        return "Windows"
    if value == "Darwin":
        return "Darwin"
    return None


def _add_gpu(
    gpus: dict[int, tuple[str, str | None, int]], index: int, name: str, cc: str | None, line: int
) -> None:
    known = gpus.get(index)
    if known is None:
        gpus[index] = (name, cc, line)
    elif known[1] is None and cc is not None:
        # a TensorFlow line names the compute capability nvidia-smi's table does not
        gpus[index] = (name if len(name) >= len(known[0]) else known[0], cc, known[2])


def _found_device(line: str) -> tuple[str, str] | None:
    """(name, compute capability) from the properties TF 1.x-2.4 print after "Found device"."""
    properties = _TF_FOUND.search(line)
    if properties:
        return properties["name"].strip(), properties["cc"]
    old = _TF_FOUND_OLD.search(line)
    if old:
        return old["name"].strip(), f"{old['major']}.{old['minor']}"
    return None


def _versions(
    found: _Collector, line: str, previous: str, index: int, refused: frozenset[str] = frozenset()
) -> None:
    low = line.lower()  # each group of patterns only where its words are
    if "nvidia-smi" in low:
        header = _SMI_HEADER.search(line)
        if header:
            found.add("driver_version", header["driver"], index)
            if header["cuda"]:
                found.add("cuda_driver_version", header["cuda"], index)
    if "tensorflow" in low:
        if line.startswith("Successfully installed "):
            for installed in _PIP_INSTALLED.finditer(line):
                found.add("tf_version", installed["v"], index)
        for pattern in (_PIP_FREEZE, _PIP_LIST, _TF_VERSION_STATED):
            match = pattern.search(line)
            if match:
                found.add("tf_version", match["v"], index)
    if previous:
        version = _PIP_SHOW_VERSION.match(line)
        shown = _PIP_SHOW_NAME.match(previous) if version else None
        if version and shown:  # pip show: "Name: tensorflow-gpu" then "Version: 1.15.4"
            name = factrules.package_name(shown["name"])
            found.add(f"package:{name}", version["v"], index)
            if name in TENSORFLOW_DISTRIBUTIONS:
                found.add("tf_version", version["v"], index)
        quoted = _QUOTED_VERSION.match(line)
        if quoted and _REPL_VERSION.match(previous):
            found.add("tf_version", quoted["v"], index)
        heading = _HEADING.match(previous)
        bare = _BARE_VERSION.match(line) if heading else None
        if heading and bare:
            what = heading["what"].lower()
            if what.startswith("tensorflow") and bare["v"].count(".") >= 2:
                found.add("tf_version", bare["v"], index)
            elif what.startswith("python"):
                found.add("python_version", bare["v"], index)

    if "python" in low or line.startswith("pip "):
        for pattern in (_PY_BANNER, _PY_STATED, _PY_POSIX_PATH, _PY_PIP):
            match = pattern.search(line)
            if match:
                found.add("python_version", match["v"], index)
        match = _PY_WIN_PATH.search(line)
        if match:
            found.add("python_version", f"{match['major']}.{match['minor']}", index)
    # "...-cp38-...whl is not a supported wheel on this platform": that wheel is not this Python's,
    # nor is the same file named on another line (the command that fetched it)
    if "-cp3" in line and "not a supported wheel" not in low:
        match = _PY_WHEEL_TAG.search(line)
        if match and not any(file in line for file in refused):
            found.add("python_version", f"{match['major']}.{match['minor']}", index)

    if not any(w in low for w in ("cuda_version", "cudnn_version", "compiled with", "this url")):
        return
    for pattern, fact in (
        (_BUILD_CUDA, "cuda_build_version"),
        (_SELFCHECK_CUDA, "cuda_build_version"),
        (_BUILD_CUDNN, "cudnn_build_version"),
        (_CUDNN_COMPILED, "cudnn_build_version"),
        (_SELFCHECK_CUDNN, "cudnn_build_version"),
    ):
        match = pattern.search(line)
        if match:
            found.add(fact, match["v"], index)


def _stated_os(found: _Collector, value: str, index: int) -> None:
    """An answer to "OS Platform and Distribution": names a system, maybe WSL."""
    if re.search(r"\bWSL", value):
        found.add("is_wsl", "True", index)
        found.add("os_wsl", "Linux", index)
        found.add("os", "Linux", index)
    elif re.match(r"(?i)windows\b", value):
        found.add("os", "Windows", index)
    elif re.match(
        r"(?i)(?:linux|ubuntu|debian|centos|fedora|rhel|red hat|arch|opensuse|rocky)\b", value
    ):
        found.add("os", "Linux", index)
    elif re.match(r"(?i)(?:macos|mac os|os x|darwin)\b", value):
        found.add("os", "Darwin", index)


def _platform(found: _Collector, line: str, previous: str, index: int) -> None:
    stated = _OS_STATED.search(line)
    if stated:
        _stated_os(found, stated["v"], index)
    heading = _HEADING.match(previous)
    if heading and heading["what"].lower().startswith("os"):
        _stated_os(found, line, index)
    low = line.lower()  # each pattern only where its words are: these run on every line
    if (":\\" in line or "win" in low or ".dll" in low) and _OS_WINDOWS.search(line):
        found.add("os", "Windows", index)
    if ("/lib" in line or "linux" in low or ".so" in line) and _OS_LINUX.search(line):
        found.add("os", "Linux", index)
    if any(w in low for w in ("darwin", "macosx", "/library/", ".dylib")) and _OS_DARWIN.search(
        line
    ):
        found.add("os", "Darwin", index)
    if ("wsl" in low or "microsoft" in low) and _WSL.search(line):
        found.add("is_wsl", "True", index)
        if _WSL_IS_LINUX.search(line):
            found.add("os_wsl", "Linux", index)
    if "cuda_visible_devices" not in low:
        return
    for pattern in (_CVD_PY, _CVD_SHELL, _CVD_ENV_DUMP):
        match = pattern.search(line)
        if match:
            found.add("cuda_visible_devices", match["v"].strip("\"'"), index)
            break
