"""Reading a text the user hands over (a log, a pasted report, a snapshot): a file or stdin."""

from __future__ import annotations

import codecs
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from tf_gpucheck.errors import GpucheckError


def read_text(path: str, what: str = "log file", example: str | None = None) -> str:
    """The text to explain: a file, or ``-`` for standard input. A missing or binary file is a
    GpucheckError (exit 2); an empty one is an empty string."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise _unreadable(path, exc, what, example) from None
    text = decode(data)
    if text is None:
        raise _binary(path)
    return text


def _unreadable(path: str, exc: OSError, what: str, example: str | None = None) -> GpucheckError:
    """The one line for an input that cannot be read (missing, a folder, no permission)."""
    if isinstance(exc, FileNotFoundError):
        return GpucheckError(
            f"{path!r} does not exist",
            reference="input-missing",
            hint=example
            or "gpucheck explain train.log  # or pipe it: ... 2>&1 | gpucheck explain -",
        )
    if isinstance(exc, IsADirectoryError):
        return GpucheckError(f"{path!r} is a folder, not a {what}", reference="input-unreadable")
    return GpucheckError(f"cannot read {path!r}: {exc.strerror}", reference="input-unreadable")


def _binary(path: str) -> GpucheckError:
    return GpucheckError(
        f"{'standard input' if path == '-' else repr(path)} is binary, not text",
        reference="input-binary",
        hint="give the text log (stderr of the job, or text copied from the report)",
    )


class TextLines:
    """A file's (or standard input's) lines, read as they come: a log of millions of lines is
    never held whole, and a line longer than ``max_line`` keeps its head only (the rest is read
    past, not kept). Opening raises what :func:`read_text` raises; ``bytes_read``, ``lines`` and
    ``cut`` count what was read once iterated."""

    def __init__(self, path: str, *, max_line: int = 20_000, what: str = "log file") -> None:
        self.path = path
        self.max_line = max_line
        self.bytes_read = 0
        self.lines = 0
        self.cut = 0
        try:
            self._handle: BinaryIO = (
                sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
            )
            head = self._handle.read(65536)  # a folder opens on some systems, reads on none
        except OSError as exc:
            raise _unreadable(path, exc, what) from None
        if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            self._encoding = "utf-16"
        elif b"\x00" in head:
            self.close()
            raise _binary(path)
        else:
            self._encoding = "utf-8-sig"
        self._head = head

    def close(self) -> None:
        if self._handle is not sys.stdin.buffer:
            self._handle.close()

    def __iter__(self) -> Iterator[str]:
        decoder = codecs.getincrementaldecoder(self._encoding)("replace")
        carry = ""
        dropping = False  # inside a line past max_line: read past until its end
        chunk = self._head
        try:
            while True:
                self.bytes_read += len(chunk)
                final = not chunk
                text = carry + decoder.decode(chunk, final=final)
                parts = text.splitlines(keepends=True)
                carry = (
                    "" if final or not parts or parts[-1].endswith(("\n", "\r")) else parts.pop()
                )
                for part in parts:
                    line = part.rstrip("\r\n")
                    if dropping:
                        dropping = False
                        continue
                    self.lines += 1
                    yield line[: self.max_line]
                    if len(line) > self.max_line:
                        self.cut += 1
                if len(carry) > self.max_line:
                    if not dropping:
                        self.lines += 1
                        self.cut += 1
                        yield carry[: self.max_line]
                    dropping, carry = True, ""
                if final:
                    break
                chunk = self._handle.read(1 << 20)
        finally:
            self.close()


def decode(data: bytes) -> str | None:
    """Text as editors and shells write it: a byte-order mark decides (UTF-8, or UTF-16 as
    Windows PowerShell's `>` writes it), else UTF-8 (a stray byte of another encoding becomes
    U+FFFD; the rest stays readable). ``None`` for binary data (a NUL byte without a UTF-16 BOM)."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8", "replace")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", "replace")
    if b"\x00" in data[:65536]:
        return None
    return data.decode("utf-8", "replace")


class JsonFileProblem(Exception):
    """Why a JSON file gpucheck was given cannot be used, in words that follow its name
    ("is empty", "is not JSON (...)"); ``kind`` is missing, unreadable or invalid."""

    def __init__(self, kind: str, words: str) -> None:
        super().__init__(words)
        self.kind = kind
        self.words = words


def read_json_file(path: Path) -> object:
    """The JSON document in ``path`` (snapshots, reports, baselines), whatever encoding a shell
    wrote it in; a :class:`JsonFileProblem` when there is none."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise JsonFileProblem("missing", "does not exist") from None
    except OSError as exc:
        raise JsonFileProblem("unreadable", f"cannot be read: {exc}") from None
    text = decode(raw)  # PowerShell's `>` writes UTF-16, Out-File a UTF-8 BOM
    if text is None:
        raise JsonFileProblem("invalid", "is binary, not JSON")
    if not text.strip():
        raise JsonFileProblem("invalid", "is empty")
    return parse_json(text)


def parse_json(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonFileProblem(
            "invalid", f"is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:
        raise JsonFileProblem("invalid", "is JSON nested too deeply") from None
