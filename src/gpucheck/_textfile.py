"""Reading a text the user hands over (a log, a pasted report, a snapshot): a file or stdin."""

from __future__ import annotations

import codecs
import sys
from pathlib import Path

from gpucheck.errors import GpucheckError


def read_text(path: str) -> str:
    """The text to explain: a file, or ``-`` for standard input. A missing or binary file is a
    GpucheckError (exit 2); an empty one is an empty string."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except FileNotFoundError:
        raise GpucheckError(
            f"{path!r} does not exist",
            reference="input-missing",
            hint="gpucheck explain train.log  # or pipe it: ... 2>&1 | gpucheck explain -",
        ) from None
    except IsADirectoryError:
        raise GpucheckError(
            f"{path!r} is a folder, not a log file", reference="input-unreadable"
        ) from None
    except OSError as exc:
        raise GpucheckError(
            f"cannot read {path!r}: {exc.strerror}", reference="input-unreadable"
        ) from None
    text = decode(data)
    if text is None:
        raise GpucheckError(
            f"{'standard input' if path == '-' else repr(path)} is binary, not text",
            reference="input-binary",
            hint="give the text log (stderr of the job, or text copied from the report)",
        )
    return text


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
