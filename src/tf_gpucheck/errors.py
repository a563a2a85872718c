"""The one error type of gpucheck and the documented exit codes.

Everything below the CLI raises :class:`GpucheckError` for a condition the user can act on;
the CLI renders it in one place as ``error: <reference>``, the message and ``hint: <fix>``,
and exits with the error's code.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """Exit codes of every gpucheck command (listed in ``gpucheck --help`` and the README)."""

    OK = 0
    """The command did what was asked; for doctor: no check failed."""
    FAILURE = 1
    """The command ran, and what it found is a failure (a failing check, no usable GPU)."""
    USAGE = 2
    """Bad usage or input: an unknown flag, a malformed value, an unreadable file."""
    INTERRUPTED = 130
    """Interrupted with Ctrl-C; no child process is left behind."""


class GpucheckError(Exception):
    """A failure the user can act on.

    ``reference`` is a stable kebab-case identifier (``snapshot-invalid``), ``message`` says
    what happened in one line, ``hint`` says what to do about it, and ``exit_code`` is the
    code the CLI exits with.
    """

    def __init__(
        self,
        message: str,
        *,
        reference: str,
        hint: str | None = None,
        exit_code: ExitCode = ExitCode.USAGE,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reference = reference
        self.hint = hint
        self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message if self.hint is None else f"{self.message} (hint: {self.hint})"
