"""The patterns that read facts people state, from ``knowledge/facts.yaml``.

Two kinds: issue-template *fields* (``### Tensorflow Version`` with the answer on the next line,
or ``- TensorFlow version: 2.4.0``), whose answer is read by the fact's own value reader; and
*patterns* that find a fact in a line (prose, or a tool's output such as ``pip list``). Each
pattern says how strongly its match states the fact: ``printed`` (a tool printed it, or a
template field holds it) or ``said`` (prose). :mod:`tf_gpucheck.reading.textfacts` applies them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Literal

from tf_gpucheck import knowledge
from tf_gpucheck.errors import GpucheckError

Strength = Literal["printed", "said"]
STRENGTH_RANK = {"said": 1, "printed": 2}

FACTS = frozenset(
    {
        "tf_version",
        "python_version",
        "cuda_version",
        "cudnn_version",
        "driver_version",
        "keras_version",
        "numpy_version",
        "package",
        "os",
        "arch",
        "wsl",
        "place",
        "gpu_requested",
        "cuda_image",
        "tf_build",
        "env",
        "gpu",
        "compute_capability",
    }
)


@dataclass(frozen=True)
class FactPattern:
    id: str
    fact: str
    strength: Strength
    pattern: re.Pattern[str]
    keys: tuple[str, ...]
    """Lower-case strings of which one occurs in every line the pattern matches."""
    value: str | None = None
    """The value this pattern states (``os: Windows``); else its ``v`` group is the value."""
    asked: re.Pattern[str] | None = None
    """Words that, before a match in its line, make it what a command or a file asks for
    (``pip install tensorflow-gpu==1.0.1``) rather than what a tool printed: said, not printed."""

    def strength_at(self, line: str, start: int) -> Strength:
        if self.asked is not None and self.asked.search(line, 0, start):
            return "said"
        return self.strength


_AFTER_A_TAG = re.compile(r"^(\d+\.\d+\.\d+)(?:-rc\d+)?-\d+-g[0-9a-f]{6,}$")


def tidy(fact: str, value: str) -> str:
    """A version as read, without what is not part of it: a sentence's full stop after a pin
    (``==1.13.1.``; no version ends in a dot or a dash) and, for TensorFlow, git describe's
    commits after a tag (``tf.version.GIT_VERSION``: ``v2.1.0-rc2-17-ge5bf8de`` is built from
    the 2.1.0 line, which ``tf.version.VERSION`` names beside it)."""
    if fact.endswith("_version") or fact.startswith("package:"):
        value = value.rstrip(".-")
    if fact == "tf_version":
        value = _AFTER_A_TAG.sub(r"\1", value)
    return value


@dataclass(frozen=True)
class Field:
    label: str
    facts: tuple[str, ...]


@dataclass(frozen=True)
class FactRules:
    fields: tuple[Field, ...]
    field_heading: re.Pattern[str]
    """``### <label>`` (group ``f<N>`` names the field), its answer on the next line."""
    field_label: re.Pattern[str]
    """``- **<label>**:`` with nothing after the colon (the old templates' bullets, answered on
    the next line), groups as in ``field_heading``."""
    field_inline: re.Pattern[str]
    """``- <label>: answer`` / ``**<label>**: answer`` on one line (group ``answer``)."""
    patterns: tuple[FactPattern, ...]
    key_search: re.Pattern[str]
    """Any key of any pattern (on the lower-cased line): the pre-filter."""
    needs: re.Pattern[str] | None = None
    """The words of every language that make a version a need, not an installed one."""


def _bad(what: str) -> GpucheckError:
    return knowledge.invalid("facts.yaml", what)


def _labels(fields: tuple[Field, ...]) -> str:
    return "|".join(f"(?P<f{i}>{field.label})" for i, field in enumerate(fields))


@functools.cache
def load() -> FactRules:
    data: Any = knowledge.read("facts.yaml")
    if not isinstance(data, dict) or set(data) - {"needs"} != {"fields", "patterns"}:
        raise _bad("expected the keys 'fields', 'patterns' and 'needs'")
    try:
        words = [str(entry["words"]) for entry in data.get("needs") or ()]
        needs = re.compile("|".join(f"(?:{w})" for w in words), re.IGNORECASE) if words else None
    except (KeyError, TypeError, re.error) as exc:
        raise _bad(f"needs: {exc}") from exc
    fields = tuple(
        Field(str(entry["label"]), tuple(str(f) for f in entry["facts"]))
        for entry in data["fields"]
    )
    for field in fields:
        unknown = set(field.facts) - FACTS
        if unknown:
            raise _bad(f"field {field.label!r}: unknown facts {sorted(unknown)}")
    labels = _labels(fields)
    patterns = []
    for entry in data["patterns"]:
        allowed = {"id", "fact", "strength", "pattern", "keys", "value", "asked", "examples"}
        if not isinstance(entry, dict) or not set(entry) <= allowed:
            raise _bad(f"a pattern has unknown fields: {entry!r}")
        if entry["fact"] not in FACTS or entry["strength"] not in STRENGTH_RANK:
            raise _bad(f"{entry['id']}: unknown fact or strength")
        try:
            # ASCII word boundaries: "CUDA 8.0的" (CJK prose around a version) ends the version
            compiled = re.compile(entry["pattern"], re.ASCII)
        except re.error as exc:
            raise _bad(f"{entry['id']}: bad pattern: {exc}") from exc
        if entry.get("value") is None and "v" not in compiled.groupindex:
            raise _bad(f"{entry['id']}: a pattern without a value needs a group named v")
        patterns.append(
            FactPattern(
                id=str(entry["id"]),
                fact=str(entry["fact"]),
                strength=entry["strength"],
                pattern=compiled,
                keys=tuple(str(key).lower() for key in entry["keys"]),
                value=None if entry.get("value") is None else str(entry["value"]),
                asked=re.compile(str(entry["asked"])) if entry.get("asked") else None,
            )
        )
    keys = sorted({key for p in patterns for key in p.keys}, key=len, reverse=True)
    return FactRules(
        fields=fields,
        field_heading=re.compile(rf"^\s*#{{1,6}}\s*\**\s*(?i:{labels})\s*\**\s*:?\s*$"),
        field_label=re.compile(
            rf"^\s*[-*+]\s+\**\s*(?i:{labels})\s*\**\s*(?:\([^)]*\))?\s*\**\s*:\s*\**\s*$"
        ),
        field_inline=re.compile(
            rf"^\s*(?:[-*+]\s+)?\**\s*(?i:{labels})\s*\**\s*(?:\([^)]*\))?\s*[:=]\s*\**\s*(?P<answer>\S.*)$"
        ),
        patterns=tuple(patterns),
        key_search=re.compile("|".join(re.escape(key) for key in keys)),
        needs=needs,
    )


def field_of(match: re.Match[str], rules: FactRules) -> Field:
    """The field whose label a heading or inline match found."""
    for index, field in enumerate(rules.fields):
        if match.group(f"f{index}"):
            return field
    raise AssertionError("a field pattern matched without a field group")


# --- reading a field's answer ------------------------------------------------------------------

_VERSION = r"\d+(?:\.\d+)+"
TF_MAJOR = re.compile(r"[012]\.")
"""The majors TensorFlow has released (0.x, 1.x, 2.x: PyPI's release history of tensorflow)."""
_TF = re.compile(r"(?<![\w.])v?(?P<v>[012]\.\d{1,2}(?:\.\d+)?(?:-?rc\d+)?)(?![\w.]|-\d)", re.ASCII)
_GIT_DESCRIBE = re.compile(r"\bv\d+\.\d+\.\d+-(?:rc\d+-)?\d+-g[0-9a-f]+\b|\bunknown\b")
_PYTHON = re.compile(r"(?<![\w.])(?P<v>3\.\d{1,2}(?:\.\d+)?|2\.7(?:\.\d+)?)(?![\w.])", re.ASCII)
_PLAIN_VERSION = re.compile(rf"(?<![\w.])v?(?P<v>{_VERSION})(?:\.x)?(?![\w.])", re.ASCII)
_DRIVER = re.compile(r"(?<![\w.])(?P<v>\d{3}\.\d{2,3}(?:\.\d{2})?)(?![\w.])", re.ASCII)
_CUDA_MAJORS = {"8", "9", "10", "11", "12", "13"}
_CUDA_MINORS = {"8": {"0"}, "9": {"0", "1", "2"}}
"""The only CUDA 8 and 9 releases (NVIDIA's CUDA Toolkit Archive, developer.nvidia.com/
cuda-toolkit-archive): an answer of 8.x or 9.x with another minor is cuDNN's (``8.9.5``)."""
_CUDNN_MAJORS = {"5", "6", "7", "8", "9"}
_ANY_VERSION = re.compile(r"(?<![\d.])v?(\d{1,2}(?:\.\d+)+)(?![\d])")


def read_answer(fact: str, answer: str) -> str | None:
    """The value a template field's answer states for ``fact`` (None: it states none)."""
    if fact == "tf_version":
        found = _TF.search(_GIT_DESCRIBE.sub(" ", answer))
        return found["v"] if found else None
    if fact == "python_version":
        found = _PYTHON.search(answer)
        return found["v"] if found else None
    if fact in ("keras_version", "numpy_version"):
        found = _PLAIN_VERSION.search(answer)
        return found["v"] if found else None
    if fact == "driver_version":
        found = _DRIVER.search(answer)
        return found["v"] if found else None
    if fact in ("cuda_version", "cudnn_version"):
        cuda, cudnn = cuda_and_cudnn(answer)
        return cuda if fact == "cuda_version" else cudnn
    if fact == "os":
        return os_named(answer)
    if fact == "gpu":
        return gpu_named(answer)
    return None


def _is_cuda(version: str) -> bool:
    major, _, rest = version.partition(".")
    return major in _CUDA_MAJORS and (
        major not in _CUDA_MINORS or rest.partition(".")[0] in _CUDA_MINORS[major]
    )


def cuda_and_cudnn(answer: str) -> tuple[str | None, str | None]:
    """CUDA and cuDNN versions from one answer: ``11.8/8.6``, ``CUDA 11.2, cuDNN 8.1``,
    ``cuda_11.8.0_522.06_windows / cudnn-windows-x86_64-8.6.0.163_cuda11``,
    ``v11.0.3_451.82 / cudnn-11.0-windows-x64-v8.0.4.30.zip``, ``cudatoolkit=11.2.2 cudnn=8.1.0.77``."""
    cuda = cudnn = None
    for part in re.split(r"\s*(?:/|,|;|\band\b|\s\+\s|\s{2,})\s*", answer):
        low = part.lower()
        versions = _ANY_VERSION.findall(part)
        if not versions:
            continue
        if "dnn" in low:
            if cudnn is None:
                # a cuDNN archive names the CUDA it is for first: take a cuDNN-major version
                picks = [v for v in versions if v.split(".")[0] in _CUDNN_MAJORS]
                cudnn = picks[-1] if picks else None
        elif cuda is None and _is_cuda(versions[0]):
            cuda = versions[0]
        elif cuda is None and cudnn is None and versions[0].split(".")[0] in _CUDNN_MAJORS:
            cudnn = versions[0]  # "8.9.5" under "CUDA/cuDNN version": no CUDA has that number
        elif (
            cuda is not None
            and cudnn is None
            and versions[0].split(".")[0] in _CUDNN_MAJORS
            and not versions[0].startswith(f"{cuda}.")
        ):
            cudnn = versions[0]  # "11.8/8.6": CUDA first, then cuDNN (nvcc's "V8.0.44" is CUDA's)
    return cuda, cudnn


_WINDOWS = re.compile(r"(?i)\bwin(?:dows)?\s*(?:\d|server|xp|vista)|\bwindows\b|\bwin\d\d\b")
_LINUX = re.compile(
    r"(?i)\b(?:linux|ubuntu|debian|centos|fedora|rhel|red hat|arch|opensuse|rocky|alma|mint|"
    r"pop!?_os|amazon linux|suse|manjaro)\b"
)
_MACOS = re.compile(r"(?i)\b(?:mac ?os|os ?x|darwin|macbook|sonoma|ventura|monterey|big sur)\b")


def os_named(answer: str) -> str | None:
    """Linux, Windows or Darwin, as an OS answer names it (WSL is Linux: see :func:`is_wsl`)."""
    if is_wsl(answer) or _LINUX.search(answer):
        return "Linux"
    if _WINDOWS.search(answer):
        return "Windows"
    if _MACOS.search(answer):
        return "Darwin"
    return None


def is_wsl(text: str) -> bool:
    return bool(re.search(r"(?<![\w-])WSL ?2?(?![\w-])|(?i:windows subsystem for linux)", text))


_GPU = re.compile(
    r"(?i)(?<![\w-])(?:nvidia )?(?:geforce )?(?:rtx|gtx|gt|mx) ?\d{3,4}(?:mx?)?(?: ?ti| ?super)?"
    r"|(?<![\w-])(?:nvidia )?(?:tesla )?(?:t4|k\d{2}|p\d{2,3}|v100|a\d{2,3}|h\d{3}|l4|l40s?)(?![\w])"
    r"|(?<![\w-])(?:nvidia )?(?:quadro|titan) \w+|(?<![\w-])(?:nvidia )?rtx a\d{4}"
    r"|(?<![\w-])\d{4} ?ti\b"
)


def gpu_named(answer: str) -> str | None:
    found = _GPU.search(answer)
    return found.group(0).strip() if found else None


def package_name(name: str) -> str:
    """PEP 503 normalised name; ``tf keras`` as people write it is ``tf-keras``."""
    return re.sub(r"[-_. ]+", "-", name).lower()
