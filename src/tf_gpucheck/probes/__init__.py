"""Probes collect facts and never judge.

:class:`Probes` is the one seam between gpucheck and the hardware: :class:`LiveProbes` reaches
the real machine, tests pass fakes. :func:`collect_snapshot` runs them, the TensorFlow child
concurrently with the others, and assembles the :class:`~tf_gpucheck.snapshot.Snapshot`.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol

from tf_gpucheck.__about__ import __version__
from tf_gpucheck._process import allow_children, kill_all_children
from tf_gpucheck.probes.frameworks import probe_frameworks
from tf_gpucheck.probes.interpreter import InterpreterFacts, probe_interpreter
from tf_gpucheck.probes.libraries import probe_libraries, tensorflow_folder
from tf_gpucheck.probes.node import probe_node
from tf_gpucheck.probes.nvml import probe_nvml
from tf_gpucheck.probes.packages import classify
from tf_gpucheck.probes.system import probe_system
from tf_gpucheck.probes.tensorflow import DEFAULT_TIMEOUT_S, probe_tensorflow, read_build_file
from tf_gpucheck.snapshot import (
    SCHEMA_VERSION,
    FrameworksInfo,
    InstallerInfo,
    LibrariesInfo,
    NodeInfo,
    NvmlInfo,
    PlaceInfo,
    Snapshot,
    SystemInfo,
    TargetInfo,
    TensorflowInfo,
)
from tf_gpucheck.target import Target, choose_target, own_target

if TYPE_CHECKING:
    from tf_gpucheck.installer.prover import Prover
    from tf_gpucheck.policyask import PolicyHeadStart

__all__ = ["LiveProbes", "Probes", "Target", "choose_target", "collect_snapshot"]

Progress = Callable[[str], None]


class Probes(Protocol):
    """Everything gpucheck knows how to ask the machine."""

    def node(self) -> NodeInfo: ...
    def interpreter(self) -> InterpreterFacts: ...
    def target(self, facts: InterpreterFacts) -> TargetInfo: ...
    def system(self, facts: InterpreterFacts) -> SystemInfo: ...
    def nvml(self) -> NvmlInfo: ...
    def libraries(self, facts: InterpreterFacts) -> LibrariesInfo: ...
    def tensorflow(self, timeout_s: float) -> TensorflowInfo: ...
    def frameworks(self, facts: InterpreterFacts, timeout_s: float) -> FrameworksInfo: ...
    def place(self) -> PlaceInfo | None: ...
    def installer(self, facts: InterpreterFacts) -> InstallerInfo | None: ...


class LiveProbes:
    """The real machine. Building it costs nothing; each method does its probing when called.

    ``target`` is the environment to diagnose: a :class:`~tf_gpucheck.target.Target`, an
    interpreter path (as ``--python`` takes it), or ``None`` for the running interpreter.
    """

    def __init__(
        self,
        target: Target | str | None = None,
        environ: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> None:
        if isinstance(target, str):
            target = choose_target(target)
        self.target_choice = target or own_target()
        self.environ = dict(os.environ if environ is None else environ)
        self.cwd = cwd or self.target_choice.cwd or os.getcwd()
        """The folder the user runs their program from: where ``import tensorflow`` is followed."""
        self._facts: InterpreterFacts | None = None
        self._head_start: PolicyHeadStart | None = None

    def begin(self) -> None:
        """Start what needs only the target's Python before anything else is probed: its
        installer's policy ask (the longest wait when TensorFlow is not imported). Once."""
        from tf_gpucheck import policyask

        if self._head_start is None:
            self._head_start = policyask.early(
                self.python, self.environ, self.cwd
            ) or policyask.PolicyHeadStart(self.python, self.environ, self.cwd)

    @property
    def python(self) -> str:
        return self.target_choice.python

    def node(self) -> NodeInfo:
        return probe_node(self.environ)

    def interpreter(self) -> InterpreterFacts:
        self._facts = probe_interpreter(self.target_choice, cwd=self.cwd)
        return self._facts

    def target(self, facts: InterpreterFacts) -> TargetInfo:
        return target_info(self.target_choice, facts)

    def system(self, facts: InterpreterFacts) -> SystemInfo:
        return probe_system(facts, self.environ)

    def nvml(self) -> NvmlInfo:
        return probe_nvml()

    def libraries(self, facts: InterpreterFacts) -> LibrariesInfo:
        return probe_libraries(facts, self.environ)

    def tensorflow(self, timeout_s: float) -> TensorflowInfo:
        return probe_tensorflow(self.python, timeout_s, self.environ)

    def frameworks(self, facts: InterpreterFacts, timeout_s: float) -> FrameworksInfo:
        return probe_frameworks(self.python, facts, timeout_s, self.environ)

    def place(self) -> PlaceInfo | None:
        from tf_gpucheck.probes.place import probe_place

        return probe_place(self.environ)

    def prover(self) -> Prover | None:
        """The target's installer, to prove fixes with (after :meth:`interpreter`)."""
        from tf_gpucheck.installer.proof import Target
        from tf_gpucheck.installer.prover import Prover

        facts = self._facts
        if facts is None or facts.error:
            return None
        outside = sorted(
            d.name
            for d in facts.distributions
            if facts.kind == "venv" and d.location not in ("site", None)
        )
        target = Target(
            self.python,
            {d.name: d.version for d in facts.distributions},
            facts.pip_version,
            dict(self.environ) if self.environ is not None else None,
            self.cwd,
            tuple(outside),
        )
        return Prover(target)

    def installer(self, facts: InterpreterFacts) -> InstallerInfo | None:
        from tf_gpucheck.probes.installer import probe_installer

        user = facts.kind == "system" or any(
            d.location == "user_site" and d.name.startswith(("tensorflow", "tf-"))
            for d in facts.distributions
        )
        return probe_installer(
            self.python, facts, self.environ, self.cwd, user=user, head_start=self._head_start
        )


def target_info(choice: Target, facts: InterpreterFacts) -> TargetInfo:
    """The snapshot's record of the target: how it was chosen, and what it said about itself."""
    return TargetInfo(
        python_executable=choice.python,
        chosen_by=choice.chosen_by,
        prefix=facts.prefix,
        base_prefix=facts.base_prefix,
        base_executable=facts.base_executable,
        base_pip=facts.base_pip,
        base_externally_managed=facts.base_externally_managed,
        kind=facts.kind,
        user_site=facts.user_site,
        error=facts.error,
        installer=facts.installer,
        pip_version=facts.pip_version,
        makes_venvs=facts.makes_venvs,
    )


def _collect(
    probes: Probes,
    pool: ThreadPoolExecutor,
    include_tensorflow: bool,
    timeout_s: float,
    say: Progress,
    on_partial: Callable[[Snapshot], None] | None = None,
    include_installer: bool = True,
) -> Snapshot:
    tf_future = pool.submit(probes.tensorflow, timeout_s) if include_tensorflow else None
    if tf_future is not None:
        say("TensorFlow: importing in a child process")
    nvml_future = pool.submit(probes.nvml)
    say("reading the interpreter's packages")
    facts = probes.interpreter()
    libraries_future = pool.submit(probes.libraries, facts)
    frameworks_future = (
        pool.submit(probes.frameworks, facts, timeout_s) if include_tensorflow else None
    )
    installer_future = pool.submit(probes.installer, facts) if include_installer else None
    system = probes.system(facts)
    packages = classify(facts)
    node = probes.node()
    target = probes.target(facts)
    place = probes.place()
    nvml = nvml_future.result()
    say("NVIDIA driver: queried")
    libraries = libraries_future.result()
    say("CUDA libraries: searched")
    installer = installer_future.result() if installer_future is not None else None
    if installer_future is not None:
        say("installer: asked")
    installed = None if packages.error else bool(packages.tensorflow)

    def snapshot(tensorflow: TensorflowInfo, frameworks: FrameworksInfo) -> Snapshot:
        return Snapshot(
            schema_version=SCHEMA_VERSION,
            created_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            gpucheck_version=__version__,
            node=node,
            system=system,
            target=target,
            packages=packages,
            nvml=nvml,
            libraries=libraries,
            tensorflow=tensorflow,
            frameworks=frameworks,
            imports=facts.imports,
            place=place,
            installer=installer,
        )

    not_yet = FrameworksInfo(probed=False, reason="skipped with --no-tf")
    build_file = read_build_file(tensorflow_folder(facts))
    if on_partial is not None:
        # everything but TensorFlow is known: what depends on it alone can start now
        partial = TensorflowInfo(probed=False, installed=installed, build_file=build_file)
        on_partial(snapshot(partial, not_yet))
    if tf_future is not None:
        tensorflow = dataclasses.replace(tf_future.result(), build_file=build_file)
        say("TensorFlow: done")
    else:
        tensorflow = TensorflowInfo(probed=False, installed=installed, build_file=build_file)
    frameworks = frameworks_future.result() if frameworks_future is not None else not_yet
    return snapshot(tensorflow, frameworks)


def collect_snapshot(
    probes: Probes,
    *,
    include_tensorflow: bool = True,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    progress: Progress | None = None,
    on_partial: Callable[[Snapshot], None] | None = None,
    include_installer: bool = True,
) -> Snapshot:
    """Run every probe (TensorFlow in parallel with the rest) and assemble the snapshot.
    ``on_partial`` gets the snapshot without TensorFlow as soon as the rest is known (doctor
    starts proving its fixes then, while TensorFlow still imports). ``include_installer``: ask
    the target's installer (its policy and its check: doctor and fix do; a quick look does not)."""
    say = progress or (lambda _message: None)
    allow_children()
    with ThreadPoolExecutor(max_workers=5, thread_name_prefix="gpucheck-probe") as pool:
        try:
            return _collect(
                probes, pool, include_tensorflow, timeout_s, say, on_partial, include_installer
            )
        except BaseException:
            # Ctrl-C lands in this thread; the children of the other probes must die too, or the
            # pool would wait for them.
            kill_all_children()
            raise
