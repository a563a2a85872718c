"""Text pasted from a web page, an issue, an editor or a terminal, made into lines the rules match.

What pasting does to a log, and what :func:`normalise` undoes:

- typographic quotes and primes (‘ ’ “ ” ′ ″), dashes, ellipses, non-breaking and zero-width
  spaces, HTML entities;
- ``\\r\\n`` and lone ``\\r`` (progress bars), backspaces, ANSI colour and cursor codes;
- markdown: ``> `` quotes (nested), code fences, a line wrapped in backticks;
- prefixes of CI systems and editors: GitHub Actions' ``2024-01-01T10:00:00.1234567Z ``,
  Jenkins' ``[2024-01-01T10:00:00.123Z] ``, ``12 | `` line numbers;
- console prompts before a command or an answer (Python's own ``>>> `` stays: it tells a
  REPL's answer from its question): IPython's ``In [3]: `` and ``Out[3]: ``, a shell's ``$ `` / ``(venv) user@host:~/dir$ `` /
  ``root@0a1b2c:/workspace# ``, Windows' ``C:\\Users\\me>`` and ``PS C:\\> ``;
- a TensorFlow log line cut in two: by a terminal at its width (joined back without a space,
  as in ``CUDNN_STAT`` + ``US_INTERNAL_ERROR``), or re-wrapped at a space by an editor or e-mail
  (joined with a space when the cut line is no wider than 132 columns and the next line
  continues in lower case, or when the cut left the logging prefix alone). Only lines with a
  logging prefix are ever joined, and never with a line that starts something new.

Blank lines are dropped; every other line keeps its order.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator

_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00a0": " ",
        "\u2002": " ",
        "\u2003": " ",
        "\u2004": " ",
        "\u2005": " ",
        "\u2006": " ",
        "\u2007": " ",
        "\u2008": " ",
        "\u2009": " ",
        "\u200a": " ",
        "\u202f": " ",
        "\u205f": " ",
        "\u3000": " ",
        "\u200b": None,
        "\u200c": None,
        "\u200d": None,
        "\u2060": None,
        "\ufeff": None,
        "\u00ad": None,
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u2026": "...",
    }
)

# CSI (colours, cursor), OSC (titles, links) and two-character escapes.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_BACKSPACE = re.compile(r"[^\x08]\x08")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);")

_CI_PREFIX = re.compile(
    r"^(?:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z "  # GitHub Actions
    r"|\[\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z?\] )"  # Jenkins timestamper
)
_LINE_NUMBER = re.compile(r"^\s*\d{1,6}(?:\s*[|│]\s?|\t)")
_QUOTE = re.compile(r"^\s{0,3}(?:>(?!>) ?)+")
_FENCE = re.compile(r"^\s*(?:```|~~~)[\w+.-]*\s*$")
_BACKTICKED = re.compile(r"^`([^`]+)`$")
# Console prompts (the command or answer after them is kept). A shell prompt needs a user@host
# or a conda/venv name before "$", or is a bare "$ "; "# " alone is a Markdown heading, never a
# prompt, but "root@host:/dir# " is.
_PROMPT = re.compile(
    r"^\s*(?:In|Out) ?\[\d*\]: ?"  # IPython, Jupyter
    r"|^\s*(?:\([\w.-]+\) ?)?(?:\[?[\w.-]+@[\w.-]+[: ][^$#\n]{0,200}?\]?[$#]|\$|%)(?: |$)"  # POSIX shells
    r"|^\s*(?:\([\w.-]+\) ?)?(?:PS )?[A-Za-z]:\\[^<>|\n]{0,200}?> ?"  # cmd.exe, PowerShell
)

_LOG_PREFIX = re.compile(
    r"^(?:\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+: [IWEF] \S+?:\d+\]"
    r"|[IWEF]\d{4} \d{2}:\d{2}:\d+\.\d+\s+\d+ \S+?:\d+\])"
)
# Lines that start something new and are never a continuation.
_STARTS_NEW = re.compile(
    r"^\s*(?:Traceback |File \"|[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt)\b"
    r"|>>> |\.\.\. |\$ |# |(?:DEBUG|INFO|WARNING|ERROR|CRITICAL|FATAL)[: ]|Epoch \d"
    r"|\d{4}-\d{2}-\d{2}[ T]\d|[IWEF]\d{4} |[a-z][\w-]*: )"
)
# Terminal widths at which a hard wrap cuts a line (mid-word: joined back without a space).
_REPL = ("In ", "In[", "Out")
TERMINAL_WIDTHS = frozenset({80, 100, 120, 132, 150, 160, 200})
# Editors and e-mail wrap at a space before this column; a longer line was not re-wrapped.
_SOFT_WRAP_MAX = 132
_SENTENCE_END = (".", ":", ";", "!", "?", ")", "]", '"', "'")


def _clean(line: str) -> str:
    # The common case, a plain printable ASCII log line, skips the work (a 100,000-line log).
    if not line.isascii():
        line = line.translate(_TRANSLATE)
    if not line.isprintable():
        if "\x1b" in line:
            line = _ANSI.sub("", line)
        while "\x08" in line:
            reduced = _BACKSPACE.sub("", line, count=1)
            if reduced == line:
                line = line.replace("\x08", "")
                break
            line = reduced
        line = _CONTROL.sub("", line)
    if "&" in line and _ENTITY.search(line):
        line = html.unescape(line).translate(_TRANSLATE)
    first = line[:1]
    if first.isdigit() or first in ("[", " ", "\t"):
        line = _CI_PREFIX.sub("", line, count=1)
        line = _LINE_NUMBER.sub("", line, count=1)
    if ">" in line[:8]:
        line = _QUOTE.sub("", line, count=1)
    if (
        ("$" in line or ">" in line or "#" in line or "%" in line or line.lstrip()[:3] in _REPL)
        and not line.lstrip().startswith(">>>")
        and _PROMPT.match(line)
    ):
        line = _PROMPT.sub("", line, count=1)
    return line


def normalise(text: str) -> list[str]:
    """Pasted text as clean lines for :func:`tf_gpucheck.reading.logscan.classify`."""
    return list(normalise_lines(text.splitlines()))


MAX_LINE = 20_000
"""Characters kept of one line (a 200 MB single line is a binary dump or a minified blob: its
head says what it is, the rest is dropped as it is read)."""


def normalise_lines(raws: Iterable[str]) -> Iterator[str]:
    """:func:`normalise` of lines as they come (a job log of millions of lines is never held
    whole): each clean line is given once the next one shows it is not continued."""
    pending: str | None = None
    last_segment = 0  # displayed length of the last physical line in pending; 0: none
    trailing_space = False  # that line ended in white space (lost by rstrip)
    seen: dict[str, str] = {}  # a job log repeats its lines: each is cleaned once
    for whole in raws:
        raw = whole[:MAX_LINE] if len(whole) > MAX_LINE else whole
        cleaned = seen.get(raw)
        if cleaned is None:
            cleaned = _clean(raw)
            if len(seen) < 100_000:
                seen[raw] = cleaned
        line = cleaned.rstrip()
        backticked = _BACKTICKED.match(line)
        if backticked:
            line = backticked.group(1)
        if not line.strip() or _FENCE.match(line):
            last_segment = 0
            continue
        if pending is not None and last_segment and _continues(pending, line, last_segment):
            if last_segment in TERMINAL_WIDTHS:
                pending += (" " if trailing_space else "") + line
            else:
                pending += " " + line.lstrip()
        else:
            if pending is not None:
                yield pending
            pending = line
        last_segment = len(cleaned)
        trailing_space = len(cleaned) != len(line)
    if pending is not None:
        yield pending


def _continues(previous: str, line: str, previous_segment: int) -> bool:
    prefix = _LOG_PREFIX.match(previous)
    if not prefix or _STARTS_NEW.match(line):
        return False
    if previous_segment in TERMINAL_WIDTHS:
        return not (previous.endswith(".") and line.lstrip()[:1].isupper())
    if not previous[prefix.end() :].strip():
        return True  # the prefix alone: its message is on the next line
    return (
        previous_segment <= _SOFT_WRAP_MAX
        and not previous.endswith(_SENTENCE_END)
        and line[:1].islower()
    )
