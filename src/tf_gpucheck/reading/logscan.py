"""TensorFlow's log, line by line: actionable, harmless noise, good news, or context.

The rules (what each line means, which cause it is evidence for, where its wording comes from)
live in ``tf_gpucheck/knowledge/rules/`` (read by :mod:`tf_gpucheck.reading.logrules`); this module splits a line into its logging prefix and
message, and finds the first rule that matches the message. Four prefixes are understood:

- the classic TensorFlow logger: ``2024-01-01 10:00:00.123456: W tensorflow/...cc:42] msg``;
- abseil's, used by XLA/TSL since TF 2.17 and by absl-py:
  ``W0000 00:00:1731000000.123456   4242 file.cc:42] msg`` / ``W1113 10:00:00.123456 140 f.py:42] msg``;
- Python's logging default: ``WARNING:tensorflow:msg``;
- a bare ``ERROR: `` / ``WARNING: `` tag (pip, abseil's prelude).

A line without a prefix is matched as it is, so a message pasted without its prefix still matches.
Text pasted from a web page, an issue or a terminal goes through :func:`normalise` first.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from tf_gpucheck.reading import logrules
from tf_gpucheck.reading.logrules import Kind, Rule
from tf_gpucheck.reading.textlines import TERMINAL_WIDTHS, normalise

__all__ = ["Kind", "LogLine", "Rule", "classify", "find_rule", "normalise", "parse"]

# The classic prefix (groups 1-2), abseil's (groups 3-4), or the classic one pasted without its
# timestamp (groups 5-6: then only a source file's name tells it from prose), one match for all.
_PREFIX = re.compile(
    r"^(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+: ([IWEF]) (\S+?:\d+)\]"
    r"|([IWEF])\d{4} \d{2}:\d{2}:\d+\.\d+\s+\d+ (\S+?:\d+)\]"
    r"|([IWEF]) (\S+?\.(?:cc|h):\d+)\]) ?"
)
_PYLOG = re.compile(r"^(DEBUG|INFO|WARNING|ERROR|CRITICAL|FATAL):([A-Za-z_][\w.]*):(.*)$")
_TAGGED = re.compile(r"^(ERROR|WARNING): (.*)$")
_TAG_INITIALS = frozenset("DIWECF")
_SEVERITY = {"DEBUG": "I", "INFO": "I", "WARNING": "W", "ERROR": "E", "CRITICAL": "F", "FATAL": "F"}


@dataclass(frozen=True)
class LogLine:
    text: str
    severity: str | None
    """I, W, E or F from the prefix; None for lines without one (continuations, tracebacks)."""
    message: str
    rule: Rule | None
    location: str | None = None
    """``file.cc:42`` from the prefix: the source path shows which release printed the line."""
    library: str | None = None
    """The library (or requirement, or module) the line names, where the rule captures one."""

    @property
    def kind(self) -> Kind | None:
        return self.rule.kind if self.rule else None

    @property
    def cause(self) -> str | None:
        """The rule's cause; a missing CUDA library that is cuDNN's (``libcudnn.so.7``,
        ``cudnn64_8.dll``) is cuDNN missing, whichever message named it."""
        cause = self.rule.cause if self.rule else None
        if cause == "cuda_libs_missing" and self.library and _CUDNN_LIBRARY.match(self.library):
            return "cudnn_missing"
        return cause


_CUDNN_LIBRARY = re.compile(r"(?:lib)?cudnn", re.IGNORECASE)


def _split(line: str) -> tuple[str | None, str | None, str]:
    """(severity, location, message) of one line."""
    line = line.rstrip("\r\n")
    match = _PREFIX.match(line)
    if match:
        first = next(i for i in (1, 3, 5) if match.group(i))
        return match.group(first), match.group(first + 1), line[match.end() :]
    if line[:1] in _TAG_INITIALS:
        tagged = _PYLOG.match(line)
        if tagged:
            return _SEVERITY[tagged.group(1)], None, tagged.group(3)
        tagged = _TAGGED.match(line)
        if tagged:
            return _SEVERITY[tagged.group(1)], None, tagged.group(2)
    return None, None, line.strip()


def parse(line: str) -> tuple[str | None, str]:
    """The severity (I, W, E, F or None) and the message of one line."""
    severity, _, message = _split(line)
    return severity, message


# --- the pre-filter: a rule is tried only on a message that contains one of its key words -----
# Tokenising a line and intersecting with the set of keys costs a few microseconds; running ~100
# regexes costs a hundred times more, and most lines of a long log contain no key at all.

_WORD = re.compile(r"[A-Za-z0-9_]+")


@functools.cache
def _index() -> tuple[tuple[Rule, ...], dict[str, tuple[int, ...]], frozenset[str]]:
    """The rules (read on first use), which rules own each key word, and the set of key words."""
    rules = logrules.load()
    owners: dict[str, list[int]] = {}
    for index, rule in enumerate(rules):
        for key in rule.keys:
            owners.setdefault(key, []).append(index)
    keys = {key: tuple(ids) for key, ids in owners.items()}
    return rules, keys, frozenset(keys)


@lru_cache(maxsize=16384)
def _match(message: str) -> tuple[int, str | None] | None:
    rules, keys, key_set = _index()
    found = key_set.intersection(_WORD.findall(message))
    if not found:
        return None
    if len(found) == 1:
        (key,) = found
        candidates: Iterable[int] = keys[key]
    else:
        candidates = sorted({i for key in found for i in keys[key]})
    for index in candidates:
        hit = rules[index].pattern.search(message)
        if hit:
            return index, hit.groupdict().get("lib")
    return None


PASTE_LINES = 5000
"""Texts up to this many lines are read as a paste (an issue, a chat, an e-mail), whose messages
may be broken across lines; longer ones are a program's own log, taken line by line."""


def rejoin(lines: list[str]) -> list[str]:
    """A pasted text's lines with messages broken across lines put back together.

    A line that no rule recognises is joined with the next when a rule then matches across the
    junction: directly where a terminal or an editor cut a word in two (``libcud`` + ``nn.so.8``),
    with a space where a sentence was re-wrapped. The join is kept only for a match that starts
    in the first line and ends in the second, so two messages are never run together; a line
    that starts with a logging prefix is never a continuation. Texts longer than
    :data:`PASTE_LINES` are returned as they are.
    """
    if len(lines) > PASTE_LINES:
        return lines
    out = list(lines)
    index = 0
    while index < len(out) - 1:
        first = out[index]
        if len(first) <= 2000 and _match(_split(first)[2]) is None:
            joined = _joined(first, out[index + 1])
            if joined is not None:
                out[index : index + 2] = [joined]
                continue  # a message cut twice: try the line after too
        index += 1
    return out


def _joined(first: str, second: str) -> str | None:
    if not second.strip() or _PREFIX.match(second):
        return None
    message = _split(first)[2]
    rules = _index()[0]
    alone = _match(second)
    for separator, rest in (("", second), (" ", second.lstrip())):
        merged = message + separator + rest
        hit = _match(merged)
        if hit is None:
            continue
        if (
            not separator
            and alone is not None
            and alone[0] == hit[0]
            and rules[hit[0]].pattern.match(second)
            and len(first) not in TERMINAL_WIDTHS
        ):
            # the message is whole at the start of the second line ("X.whl is not a supported
            # wheel" after the command that named X.whl): no word was cut at the junction
            continue
        found = rules[hit[0]].pattern.search(merged)
        if found and found.start() < len(message) and found.end() > len(message) + len(separator):
            return first.rstrip() + separator + rest if separator else first + rest
    return None


def split_line(line: str) -> tuple[str | None, str | None, str]:
    """(severity, location, message) of one line: its logging prefix split off."""
    return _split(line)


def find_rule(message: str) -> Rule | None:
    """The first rule whose pattern matches this message (a line without its prefix)."""
    hit = _match(message)
    return _index()[0][hit[0]] if hit else None


def classify(lines: Iterable[str]) -> list[LogLine]:
    """Every line with the first rule that matches its message (or none), in input order.

    Lines are taken as they are: pass pasted text through :func:`normalise` first. No lines, no
    rules read (``doctor --no-tf`` has no TensorFlow log).
    """
    if isinstance(lines, tuple | list) and not lines:
        return []
    out = []
    rules = _index()[0]
    seen: dict[str, LogLine] = {}  # a job log repeats its lines; a LogLine is immutable
    for line in lines:
        known = seen.get(line)
        if known is None:
            severity, location, message = _split(line)
            hit = _match(message)
            if hit is None:
                known = LogLine(line, severity, message, None, location)
            else:
                known = LogLine(line, severity, message, rules[hit[0]], location, hit[1])
            if len(seen) < 100_000:
                seen[line] = known
        out.append(known)
    return out


GPU_PRESENT: frozenset[str] = frozenset(
    {
        "gpu_libs_missing",
        "cc_ignored",
        "ptx_jit",
        "no_kernel_image",
        "created_device",
        "found_device",
        "device_properties",
        "adding_visible_gpus",
        "device_interconnect",
        "gpu_busy",
        "oom",
        "driver_insufficient",
        "cudnn_init_failed",
        "cudnn_version_mismatch",
        "cuinit_unknown",
        "nvml_version_mismatch",
        "driver_dso_mismatch",
    }
)
"""Rules whose lines TensorFlow or the driver print only where an NVIDIA GPU exists (a device
found, skipped or out of memory): with one of them, lines that are normal on a CPU-only machine
(libcudart did not load) become evidence."""


@lru_cache(maxsize=256)
def _classified(lines: tuple[str, ...]) -> tuple[LogLine, ...]:
    return tuple(classify(lines))


def classify_cached(lines: tuple[str, ...]) -> tuple[LogLine, ...]:
    """:func:`classify` for a snapshot's log, which several checks read."""
    return _classified(lines)


def shows_gpu(lines: tuple[str, ...]) -> bool:
    """The log has a line that only a machine with an NVIDIA GPU prints."""
    return any(line.rule is not None and line.rule.id in GPU_PRESENT for line in _classified(lines))


DRIVER_WORKS: frozenset[str] = frozenset(
    {
        "found_device",
        "device_properties",
        "created_device",
        "gpu_libs_missing",
        "cc_ignored",
        "adding_visible_gpus",
        "device_interconnect",
        "ptx_jit",
        "oom",
    }
)
"""Of :data:`GPU_PRESENT`, the lines printed only after CUDA initialised and enumerated the GPU:
the driver works, whatever NVML says."""


def shows_working_driver(lines: tuple[str, ...]) -> bool:
    return any(
        line.rule is not None and line.rule.id in DRIVER_WORKS for line in _classified(lines)
    )
