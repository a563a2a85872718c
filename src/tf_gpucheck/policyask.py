"""The installer's policy, asked: ``pip install --dry-run`` of a name no index has, whose answer
is every refusal pip makes before it resolves anything (PEP 668, ``PIP_REQUIRE_VIRTUALENV``,
``--user`` inside a venv, a broken configuration).

Kept apart from :mod:`tf_gpucheck.probes.installer`, with few imports, so that ``gpucheck
doctor`` can start the ask the moment it starts (:func:`start_early`): pip's own start-up (a third
of a second, more on a busy machine) is the longest wait of a doctor without TensorFlow.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping, Sequence

from tf_gpucheck._process import run_child
from tf_gpucheck.installerfacts import PolicyAnswer

PROBE_REQUIREMENT = "gpucheck-installer-probe-does-not-exist==0"
"""A name no index has: the installer's answer to it is its policy, never an install."""

NOT_FOUND = (
    "No matching distribution found for gpucheck-installer-probe",
    "Could not find a version that satisfies the requirement gpucheck-installer-probe",
    "gpucheck-installer-probe-does-not-exist was not found",
    "Because gpucheck-installer-probe-does-not-exist",
)
"""What pip and uv say once they have passed every policy and looked for the name."""

DRY_RUN_PIP = (22, 2)
"""``pip install --dry-run`` (pip 22.2 release notes)."""


def older(version: str | None, wanted: tuple[int, int]) -> bool:
    numbers = [int(n) for n in re.findall(r"\d+", version or "")[:2]]
    return bool(numbers) and tuple(numbers) < wanted


def folder(cwd: str | None) -> str | None:
    return cwd if cwd and os.path.isdir(cwd) else None


def policy_argv(
    tool: str, python: str, uv: str | None, version: str | None, options: tuple[str, ...]
) -> tuple[str, ...]:
    if tool == "uv":
        argv = [uv or "uv", "pip", "install", "--python", python, "--dry-run", "--offline"]
    else:
        argv = [python, "-m", "pip", "install", "--no-index", "--no-deps", "--no-input"]
        if not older(version, DRY_RUN_PIP):
            argv.append("--dry-run")  # an old pip has none: the name exists nowhere anyway
    return (*argv, *options, PROBE_REQUIREMENT)


def ask_policy(
    argv: tuple[str, ...],
    options: tuple[str, ...],
    environ: Mapping[str, str],
    cwd: str | None,
    timeout_s: float,
) -> PolicyAnswer:
    try:
        result = run_child(
            list(argv), timeout_s=timeout_s, env=dict(environ), cwd=folder(cwd), background=True
        )
    except OSError as exc:
        return PolicyAnswer(options, None, f"not asked: {exc.strerror}")
    text = f"{result.stderr}\n{result.stdout}"
    if result.timed_out:
        return PolicyAnswer(options, None, f"not asked: no answer in {timeout_s:.0f} s")
    if any(marker in text for marker in NOT_FOUND):
        return PolicyAnswer(options, True, None)
    if "Traceback (most recent call last):" in text:
        # it crashed (an old pip on a newer Python: "AttributeError: module 'collections' has no
        # attribute 'Mapping'"): broken, not refusing
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return PolicyAnswer(options, None, (lines or ["it crashed"])[-1][:300], crashed=True)
    return PolicyAnswer(options, False, refusal_line(text))


def refusal_line(text: str) -> str:
    """The installer's own words for a refusal: its first ``error:`` line (pip prints the PEP 668
    reason as ``error: externally-managed-environment``), else its last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if line.lower().startswith("error:"):
            return line[:300]
    return (lines[-1] if lines else "the installer refused without a message")[:300]


class PolicyHeadStart:
    """pip's policy, asked before the interpreter is read. This ask needs only the target's
    Python and the user's variables and folder. Its answer is taken where the ask the probe then
    makes is the same command in the same setting (pip, new enough for ``--dry-run``, no location
    setting lifted); any other ask runs as it always did."""

    def __init__(
        self, python: str, environ: Mapping[str, str], cwd: str | None, timeout_s: float = 30.0
    ) -> None:
        self.argv = policy_argv("pip", python, None, None, ())
        self.environ = dict(environ)
        self.cwd = cwd
        self._answer: PolicyAnswer | None = None
        self._done = threading.Event()
        threading.Thread(
            target=self._ask, args=(timeout_s,), name="gpucheck-policy", daemon=True
        ).start()

    @property
    def python(self) -> str:
        return self.argv[0]

    def _ask(self, timeout_s: float) -> None:
        try:
            self._answer = ask_policy(self.argv, (), self.environ, self.cwd, timeout_s)
        finally:
            self._done.set()

    def answer(
        self, argv: tuple[str, ...], environ: Mapping[str, str], cwd: str | None
    ) -> PolicyAnswer | None:
        """The answer to ``argv`` run in ``environ`` and ``cwd``, when that is the ask that was
        started (waiting for it); else ``None``."""
        if argv != self.argv or dict(environ) != self.environ or cwd != self.cwd:
            return None
        self._done.wait()
        return self._answer


_EARLY: list[PolicyHeadStart] = []


def start_early(args: Sequence[str]) -> None:
    """``gpucheck doctor``'s policy ask, started before its command line is parsed (the command
    line's own parser, Typer and every module it needs take a tenth of a second): the target is
    read from ``--python`` and ``--cwd`` as :func:`tf_gpucheck.target.choose_target` reads it.
    A guess it is: :meth:`PolicyHeadStart.answer` gives its answer only to the very ask the probe
    makes (the same argv, variables and folder), so a wrong guess costs one unused pip run.
    Nothing is started for another command, ``--from``, ``--list``, ``--help`` or a value the
    guess cannot read."""
    words = list(args)
    if not words or words[0] != "doctor":
        return
    values: dict[str, str] = {}
    rest = words[1:]
    for index, word in enumerate(rest):
        if word == "--":
            break
        if word in ("--from", "--list", "--help", "-h") or word.startswith("--from="):
            return
        for name in ("--python", "--cwd"):
            if word == name:
                if index + 1 >= len(rest):
                    return
                values[name] = rest[index + 1]
            elif word.startswith(f"{name}="):
                values[name] = word.split("=", 1)[1]
    try:
        from tf_gpucheck.target import choose_target

        python = choose_target(values.get("--python")).python
        cwd = os.path.abspath(values["--cwd"]) if "--cwd" in values else os.getcwd()
    except Exception:  # bad input: the command itself says so, once parsed
        return
    if not os.path.isfile(python) or not os.path.isdir(cwd):
        return
    _EARLY.append(PolicyHeadStart(python, os.environ, cwd))


def early(python: str, environ: Mapping[str, str], cwd: str | None) -> PolicyHeadStart | None:
    """The ask :func:`start_early` started, where it was for this Python, variables and folder."""
    for started in _EARLY:
        if started.python == python and started.environ == dict(environ) and started.cwd == cwd:
            _EARLY.remove(started)  # taken once: a later probe asks anew
            return started
    return None
