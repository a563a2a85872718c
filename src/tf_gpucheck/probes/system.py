"""The machine: OS, WSL, CPU and the environment variables that steer TensorFlow."""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping
from pathlib import Path

from tf_gpucheck.probes.interpreter import InterpreterFacts
from tf_gpucheck.snapshot import ENV_VARS, SystemInfo

# The CPU features that decide whether a TensorFlow wheel runs at all (AVX, since TF 1.6) or
# runs well (the cpu_feature_guard message lists the rest).
_CPU_FEATURES = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "avx512f",
    "avx512_vnni",
    "avx512_bf16",
    "amx_tile",
)


def probe_system(
    facts: InterpreterFacts,
    environ: Mapping[str, str] | None = None,
    root: Path = Path("/"),
) -> SystemInfo:
    environ = os.environ if environ is None else environ
    release = platform.release()
    cpuinfo = _read(root / "proc/cpuinfo")
    return SystemInfo(
        os=platform.system(),
        os_release=release,
        os_pretty_name=_os_pretty_name(_read(root / "etc/os-release")),
        arch=platform.machine(),
        is_wsl=_is_wsl(release, _read(root / "proc/version")),
        python_version=facts.python_version or None,
        python_executable=facts.python_executable,
        cpu_model=_cpu_model(cpuinfo) or platform.processor() or None,
        cpu_count=os.cpu_count(),
        cpu_features=_cpu_features(cpuinfo),
        env={name: environ.get(name) for name in ENV_VARS},
    )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _is_wsl(release: str, proc_version: str) -> bool:
    # WSL kernels are named like 5.15.153.1-microsoft-standard-WSL2.
    text = f"{release} {proc_version}".lower()
    return "microsoft" in text or "wsl" in text


def _os_pretty_name(os_release: str) -> str | None:
    for line in os_release.splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip().strip('"') or None
    return None


def _cpu_model(cpuinfo: str) -> str | None:
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "Hardware") and value.strip():
            return value.strip()
    return None


def _cpu_features(cpuinfo: str) -> tuple[str, ...]:
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            flags = set(value.split())
            return tuple(f for f in _CPU_FEATURES if f in flags)
    return ()
