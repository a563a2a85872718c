"""The one place gpucheck starts child processes.

Every child (the interpreter probe, the TensorFlow probe, the dlopen probe, memory and
benchmark runs) goes through :func:`run_child`: its own process group, a timeout after which
the whole group is killed and what it printed so far is kept, and Ctrl-C that leaves no child
behind. Tests patch this one seam.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

_LIVE: set[subprocess.Popen[str]] = set()
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()
"""Set by Ctrl-C: a child that another thread starts afterwards is killed at once, so no thread
waits for a child that was started just after the others were killed."""


def _track(process: subprocess.Popen[str], alive: bool) -> None:
    with _LIVE_LOCK:
        if alive:
            _LIVE.add(process)
            if _STOPPING.is_set():
                _kill_group(process)
        else:
            _LIVE.discard(process)


def kill_all_children() -> None:
    """Kill every child still running, from any thread (Ctrl-C: leave no child behind), and
    every child started from now on, until :func:`allow_children`."""
    _STOPPING.set()
    with _LIVE_LOCK:
        live = list(_LIVE)
    for process in live:
        _kill_group(process)


def allow_children() -> None:
    """Start children normally again (a new command or probe run after an interrupt)."""
    _STOPPING.clear()


@dataclass(frozen=True)
class ChildResult:
    """What a child process did."""

    returncode: int | None
    """Exit status; negative for a signal; ``None`` when it was killed at the timeout."""
    stdout: str
    stderr: str
    timed_out: bool
    duration_s: float


def run_child(
    argv: Sequence[str],
    *,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    cwd: str | None = None,
    background: bool = False,
) -> ChildResult:
    """Run ``argv`` to completion or ``timeout_s``; never raises for the child's failures.
    ``background``: at a lower CPU priority (``nice``), for work that runs beside TensorFlow's
    import and must not slow it (the installer's policy, its check, the fixes' dry runs).

    OSError (the executable does not exist) propagates: the caller words it.
    """
    start = time.perf_counter()
    popen_kwargs: dict[str, object] = {}
    if os.name == "posix":
        popen_kwargs["start_new_session"] = True
    process = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        cwd=cwd,
        text=True,
        encoding="utf-8",
        errors="replace",
        **popen_kwargs,  # type: ignore[call-overload]
    )
    if background:
        _lower_priority(process.pid)
    _track(process, True)
    try:
        return _finish(process, stdin, timeout_s, start)
    finally:
        _track(process, False)


def _lower_priority(pid: int) -> None:
    """Lower a started child's CPU priority from the parent (``preexec_fn`` is not safe beside
    threads, and the fixes' dry runs start from a thread pool); children it starts inherit it.
    Ten steps below gpucheck's own niceness (a job already running niced stays above its
    children), never above 19."""
    with contextlib.suppress(OSError, AttributeError):
        own = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, pid, min(own + 10, 19))


def _finish(
    process: subprocess.Popen[str], stdin: str | None, timeout_s: float, start: float
) -> ChildResult:
    try:
        stdout, stderr = process.communicate(input=stdin, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        stdout, stderr = process.communicate()
        return ChildResult(None, stdout or "", stderr or "", True, time.perf_counter() - start)
    except BaseException:  # KeyboardInterrupt included: leave no child behind
        _kill_group(process)
        process.wait()
        raise
    return ChildResult(process.returncode, stdout, stderr, False, time.perf_counter() - start)


def run_child_streaming(
    argv: Sequence[str],
    *,
    timeout_s: float,
    on_line: Callable[[str], None],
    env: Mapping[str, str] | None = None,
) -> ChildResult:
    """Like :func:`run_child`, and hands every stdout line to ``on_line`` as it arrives (progress)."""
    start = time.perf_counter()
    process = subprocess.Popen(  # argv is built by gpucheck, never a shell string
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=os.name == "posix",
    )
    _track(process, True)
    out: list[str] = []
    err: list[str] = []

    def pump_stdout() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            out.append(line)
            on_line(line.rstrip("\n"))

    def pump_stderr() -> None:
        assert process.stderr is not None
        err.extend(process.stderr)

    readers = [
        threading.Thread(target=pump_stdout, daemon=True),
        threading.Thread(target=pump_stderr, daemon=True),
    ]
    for reader in readers:
        reader.start()
    timed_out = False
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(process)
        process.wait()
    except BaseException:
        _kill_group(process)
        process.wait()
        raise
    finally:
        _track(process, False)
    for reader in readers:
        reader.join(timeout=5)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
    returncode = None if timed_out else process.returncode
    return ChildResult(
        returncode, "".join(out), "".join(err), timed_out, time.perf_counter() - start
    )


def _kill_group(process: subprocess.Popen[str]) -> None:
    if process.poll() is not None:
        return
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


@dataclass(frozen=True)
class StagedResult:
    """A child that rewrites a JSON report after every stage (``tf_probe``, ``framework_probe``)."""

    result: ChildResult
    report: dict[str, Any]
    """What it wrote last; empty when it wrote nothing."""
    error: str | None
    """Its own error, or how it ended: a hang, a crash or no report (with the last stage)."""


def run_staged_child(
    argv: Sequence[str],
    *,
    label: str,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
) -> StagedResult:
    """Run ``argv`` plus the path of its report file, in a fresh folder (never importing a stray
    module from the user's folder); keep whatever it reported before a hang or crash. OSError
    (the interpreter does not exist) propagates."""
    import json
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory(prefix="gpucheck-child-") as tmp:
        report_path = Path(tmp) / "report.json"
        result = run_child([*argv, str(report_path)], timeout_s=timeout_s, env=env, cwd=tmp)
        try:
            report = json.loads(report_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            report = {}
    if not isinstance(report, dict):
        report = {}
    stage = report.get("stage", "starting")
    error = report.get("error") if isinstance(report.get("error"), str) else None
    if result.timed_out:
        error = f"{label} did not finish within {timeout_s:g} s (last stage: {stage})"
    elif result.returncode != 0:
        error = f"the {label} child {describe_exit(result.returncode)} (last stage: {stage})"
    elif not report:
        error = f"the {label} child wrote no report"
    return StagedResult(result, report, error)


def describe_exit(returncode: int | None) -> str:
    """Human words for a child's exit status: 'killed by SIGSEGV', 'exited with status 3'."""
    if returncode is None:
        return "killed at the timeout"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"killed by {name}"
    return f"exited with status {returncode}"


def current_python() -> str:
    return sys.executable
