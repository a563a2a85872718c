"""Probes collect facts and never judge.

:class:`Probes` is the one seam between gpucheck and the hardware: :class:`LiveProbes` reaches
the real machine, tests pass fakes. :func:`collect_snapshot` runs them, the TensorFlow child
concurrently with the others, and assembles the :class:`~gpucheck.snapshot.Snapshot`.
"""

from __future__ import annotations

import datetime
import os
import shutil
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from gpucheck.__about__ import __version__
from gpucheck._process import kill_all_children
from gpucheck.errors import GpucheckError
from gpucheck.probes.interpreter import InterpreterFacts, probe_interpreter
from gpucheck.probes.libraries import probe_libraries
from gpucheck.probes.nvml import probe_nvml
from gpucheck.probes.packages import classify
from gpucheck.probes.system import probe_system
from gpucheck.probes.tensorflow import DEFAULT_TIMEOUT_S, probe_tensorflow
from gpucheck.snapshot import (
    SCHEMA_VERSION,
    LibrariesInfo,
    NvmlInfo,
    PackagesInfo,
    Snapshot,
    SystemInfo,
    TensorflowInfo,
)

__all__ = ["LiveProbes", "Probes", "collect_snapshot", "resolve_python"]

Progress = Callable[[str], None]


class Probes(Protocol):
    """Everything gpucheck knows how to ask the machine."""

    def interpreter(self) -> InterpreterFacts: ...
    def system(self, facts: InterpreterFacts) -> SystemInfo: ...
    def nvml(self) -> NvmlInfo: ...
    def libraries(self, facts: InterpreterFacts) -> LibrariesInfo: ...
    def tensorflow(self, timeout_s: float) -> TensorflowInfo: ...


class LiveProbes:
    """The real machine. Building it costs nothing; each method does its probing when called."""

    def __init__(self, python: str | None = None, environ: Mapping[str, str] | None = None) -> None:
        self.python = python
        self.environ = dict(os.environ if environ is None else environ)

    def interpreter(self) -> InterpreterFacts:
        return probe_interpreter(self.python)

    def system(self, facts: InterpreterFacts) -> SystemInfo:
        return probe_system(facts, self.environ)

    def nvml(self) -> NvmlInfo:
        return probe_nvml()

    def libraries(self, facts: InterpreterFacts) -> LibrariesInfo:
        return probe_libraries(facts, self.environ)

    def tensorflow(self, timeout_s: float) -> TensorflowInfo:
        return probe_tensorflow(self.python, timeout_s, self.environ)


def resolve_python(python: str | None) -> str | None:
    """Check a ``--python`` value: an existing executable file, or a name on PATH."""
    if python is None:
        return None
    candidate = python if os.sep in python else (shutil.which(python) or python)
    if not os.path.isfile(candidate):
        raise GpucheckError(
            f"--python {python!r}: no such interpreter",
            reference="python-not-found",
            hint="give the path of a Python executable, e.g. --python ~/venvs/tf/bin/python",
        )
    if not os.access(candidate, os.X_OK):
        raise GpucheckError(f"--python {python!r} is not executable", reference="python-not-found")
    return os.path.abspath(candidate)


def _collect(
    probes: Probes,
    pool: ThreadPoolExecutor,
    include_tensorflow: bool,
    timeout_s: float,
    say: Progress,
) -> tuple[SystemInfo, PackagesInfo, NvmlInfo, LibrariesInfo, TensorflowInfo]:
    tf_future = pool.submit(probes.tensorflow, timeout_s) if include_tensorflow else None
    if tf_future is not None:
        say("TensorFlow: importing in a child process")
    nvml_future = pool.submit(probes.nvml)
    say("reading the interpreter's packages")
    facts = probes.interpreter()
    libraries_future = pool.submit(probes.libraries, facts)
    system = probes.system(facts)
    packages = classify(facts)
    nvml = nvml_future.result()
    say("NVIDIA driver: queried")
    libraries = libraries_future.result()
    say("CUDA libraries: searched")
    if tf_future is not None:
        tensorflow = tf_future.result()
        say("TensorFlow: done")
    else:
        installed = None if packages.error else bool(packages.tensorflow)
        tensorflow = TensorflowInfo(probed=False, installed=installed)
    return system, packages, nvml, libraries, tensorflow


def collect_snapshot(
    probes: Probes,
    *,
    include_tensorflow: bool = True,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    progress: Progress | None = None,
) -> Snapshot:
    """Run every probe (TensorFlow in parallel with the rest) and assemble the snapshot."""
    say = progress or (lambda _message: None)
    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="gpucheck-probe") as pool:
        try:
            parts = _collect(probes, pool, include_tensorflow, timeout_s, say)
        except BaseException:
            # Ctrl-C lands in this thread; the children of the other probes must die too, or the
            # pool would wait for them.
            kill_all_children()
            raise
    system, packages, nvml, libraries, tensorflow = parts
    return Snapshot(
        schema_version=SCHEMA_VERSION,
        created_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        gpucheck_version=__version__,
        system=system,
        packages=packages,
        nvml=nvml,
        libraries=libraries,
        tensorflow=tensorflow,
    )
