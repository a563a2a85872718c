"""The notebook kernel gpucheck's Python API runs in, read in the kernel's own process.

Only ``tf_gpucheck.doctor()`` / ``detect()`` called inside an IPython kernel record it: the CLI
(``!gpucheck doctor``) runs in a child and cannot see the kernel. Nothing here imports
TensorFlow: what the kernel already imported is read from ``sys.modules``.
"""

from __future__ import annotations

import os
import shutil
import sys

from tf_gpucheck.snapshot import KernelInfo


def _shell() -> str | None:
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    shell = get() if callable(get) else None
    if shell is None:
        return None
    name = type(shell).__name__
    # a terminal IPython is no kernel: !pip there is the shell's own, as in a terminal
    return None if name == "TerminalInteractiveShell" else name


def _shebang(script: str | None) -> str | None:
    if not script:
        return None
    try:
        with open(script, "rb") as handle:
            first = handle.readline(400).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env" and len(words) > 1:
        return shutil.which(words[1])
    return words[0]


def _tensorflow() -> tuple[str | None, str | None, bool]:
    module = sys.modules.get("tensorflow")
    imported = getattr(module, "__version__", None) if module is not None else None
    installed = None
    try:
        import importlib
        from importlib import metadata

        importlib.invalidate_caches()  # a %pip install since the last import changed the disk
        installed = metadata.version("tensorflow")
    except Exception:  # not installed, or its metadata unreadable: not known
        installed = None
    initialized = False
    context = sys.modules.get("tensorflow.python.eager.context")
    if context is not None:
        try:
            current = context.context()
            initialized = getattr(current, "_context_handle", None) is not None
        except Exception:  # a TensorFlow without this private API
            initialized = False
    return (str(imported) if imported else None), installed, initialized


def probe_kernel() -> KernelInfo | None:
    """The kernel's facts, or ``None`` outside an IPython kernel."""
    shell = _shell()
    if shell is None:
        return None
    pip = shutil.which("pip")
    imported, installed, initialized = _tensorflow()
    return KernelInfo(
        python=sys.executable,
        shell=shell,
        path_pip=pip,
        path_pip_python=_shebang(pip),
        path_python=shutil.which("python"),
        tf_imported=imported,
        tf_installed=installed,
        tf_initialized=initialized,
    )
