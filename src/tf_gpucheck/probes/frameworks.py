"""PyTorch, JAX and CuPy as the target interpreter sees them: evidence about the driver and GPU.

One child per installed framework (``_children/framework_probe.py``), all at once and in
parallel with the TensorFlow child, each with its own timeout: a framework that crashes or hangs
loses only its own facts, and what it reported before is kept. No child starts for a framework
the distributions already show to be a CPU-only build, nor when none is installed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

from tf_gpucheck._children import script
from tf_gpucheck._process import run_staged_child
from tf_gpucheck.probes.interpreter import InterpreterFacts
from tf_gpucheck.snapshot import FrameworkInfo, FrameworksInfo

FRAMEWORKS = ("torch", "jax", "cupy")
"""In the order they are reported."""


def installed_frameworks(facts: InterpreterFacts) -> list[str]:
    """Which of torch, jax and cupy the target has, from its distributions (no import)."""
    names = {d.name for d in facts.distributions}
    found = []
    if "torch" in names:
        found.append("torch")
    if "jax" in names and "jaxlib" in names:
        found.append("jax")
    if any(n == "cupy" or n.startswith(("cupy-cuda", "cupy-rocm")) for n in names):
        found.append("cupy")
    return found


def child_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The user's environment (CUDA_VISIBLE_DEVICES included); JAX told not to take 75% of the
    GPU's memory at start-up, which the TensorFlow child, running at the same time, needs."""
    env = dict(os.environ if environ is None else environ)
    env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    env["PYTHONUNBUFFERED"] = "1"
    env["TF_CPP_MIN_LOG_LEVEL"] = env.get("TF_CPP_MIN_LOG_LEVEL", "2")
    return env


def probe_frameworks(
    python: str,
    facts: InterpreterFacts,
    timeout_s: float,
    environ: Mapping[str, str] | None = None,
) -> FrameworksInfo:
    if facts.error:
        return FrameworksInfo(
            probed=False, reason=f"the interpreter could not be queried: {facts.error}"
        )
    names = installed_frameworks(facts)
    if not names:
        return FrameworksInfo(
            probed=False, reason=f"none of torch, jax, cupy is installed in {python}"
        )
    env = child_environment(environ)
    known = {name: cpu_only_build(facts, name) for name in names}
    asked = [name for name in names if known[name] is None]
    answers: dict[str, FrameworkInfo] = {}
    if asked:
        with ThreadPoolExecutor(max_workers=len(asked), thread_name_prefix="gpucheck-fw") as pool:
            results = pool.map(lambda n: probe_one(python, n, timeout_s, env), asked)
            answers = dict(zip(asked, results, strict=True))
    found = [known[name] or answers[name] for name in names]
    return FrameworksInfo(probed=True, reason=None, frameworks=tuple(found))


def cpu_only_build(facts: InterpreterFacts, name: str) -> FrameworkInfo | None:
    """A build that cannot have CUDA, known from its distributions alone (torch 2.13.0+cpu, a
    jaxlib without a jax-cuda* plugin): no child needed, its import would tell nothing more
    about the GPU. None when only the framework itself can say."""
    versions = {d.name: d.version for d in facts.distributions}
    if cpu_only(name, versions):
        return FrameworkInfo(name, versions[name], gpu_usable=False, built_with_cuda=False)
    return None


def cpu_only(name: str, versions: Mapping[str, str]) -> bool:
    """``name`` (torch, jax) is installed as a build without CUDA, by the distributions'
    ``versions`` alone: a torch ``+cpu`` wheel; a jaxlib without a jax-cuda* plugin."""
    if name == "torch":
        return versions.get("torch", "").endswith("+cpu")
    if name == "jax":
        plugins = [n for n in versions if n.startswith("jax-cuda")]
        return "jax" in versions and not plugins and "+cuda" not in versions.get("jaxlib", "")
    return False


def probe_one(python: str, name: str, timeout_s: float, env: Mapping[str, str]) -> FrameworkInfo:
    """One framework's child; its crash, hang or import error becomes the error of its facts."""
    try:
        run = run_staged_child(
            [python, script("framework_probe"), name], label=name, timeout_s=timeout_s, env=env
        )
    except OSError as exc:
        return FrameworkInfo(name, None, error=f"cannot run {python}: {exc.strerror or exc}")
    report, result, error = run.report, run.result, run.error
    stage = report.get("stage", "starting")
    gpu_usable = report.get("gpu_usable")
    if (result.timed_out or result.returncode != 0) and stage in ("devices", "gpu op"):
        gpu_usable = False  # it died using the GPU: that is what the GPU did
    devices = report.get("devices")
    return FrameworkInfo(
        name=name,
        version=_text(report.get("version")),
        cuda_version=_text(report.get("cuda_version")),
        gpu_usable=gpu_usable if isinstance(gpu_usable, bool) else None,
        devices=tuple(str(d) for d in devices) if isinstance(devices, list) else (),
        error=error,
        built_with_cuda=report.get("built_with_cuda")
        if isinstance(report.get("built_with_cuda"), bool)
        else None,
        duration_s=result.duration_s,
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
