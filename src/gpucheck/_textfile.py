"""Reading a text the user hands over (a log, a pasted report): a file or standard input."""

from __future__ import annotations

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
    if b"\x00" in data[:65536]:
        raise GpucheckError(
            f"{'standard input' if path == '-' else repr(path)} is binary, not text",
            reference="input-binary",
            hint="give the text log (stderr of the job, or text copied from the report)",
        )
    for encoding in ("utf-8", "utf-16"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")
