"""The installs a fix asks for, as values (:class:`~tf_gpucheck.installer.intent.Fix`): the
TensorFlow release with its CUDA wheels, the installed distribution put back, and the facts they
are chosen from. :mod:`.writer` writes them for the target's installer and :mod:`.proof` proves
them with the installer itself.
"""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from tf_gpucheck.installer import intent
from tf_gpucheck.installer.intent import Fix
from tf_gpucheck.matrix import TfRelease
from tf_gpucheck.snapshot import Distribution, Snapshot

PLUGIN_DISTRIBUTIONS = frozenset({"tensorflow-metal", "tensorflow-directml-plugin"})
"""Distributions that plug into another TensorFlow instead of replacing it."""
CPU_ONLY_DISTRIBUTIONS = frozenset(
    {"tensorflow-cpu", "tf-nightly-cpu", "tensorflow-cpu-aws", "intel-tensorflow"}
)


def main_distributions(snapshot: Snapshot) -> list[Distribution]:
    return [d for d in snapshot.packages.tensorflow if d.name not in PLUGIN_DISTRIBUTIONS]


def target_folder(snapshot: Snapshot) -> str | None:
    """The folder on ``PYTHONPATH`` that alone gives this Python its TensorFlow (what
    ``pip install --target DIR`` makes; the environment has none of its own): installs for that
    TensorFlow go there, where its RUNPATH (``$ORIGIN/../nvidia/...``) looks."""
    imports = snapshot.imports
    tf = next((m for m in imports.modules if m.name == "tensorflow"), None) if imports else None
    if tf is None or tf.origin is None or tf.clean_origin is not None:
        return None
    if tf.added_by != "pythonpath" or not tf.distribution or not tf.path_entry:
        return None
    if tf.entry_environment is not False:
        return None  # another environment's folder: its own installer's
    return tf.path_entry


def installed_requirement(snapshot: Snapshot) -> str:
    """ "tensorflow-cpu==2.21.0": the installed TensorFlow distribution, to reinstall exactly it
    (never a second distribution beside it)."""
    main = main_distributions(snapshot)
    if main:
        return f"{main[0].name}=={main[0].version}"
    version = snapshot.tensorflow.version
    return f"tensorflow=={version}" if version else "tensorflow"


def reinstall(snapshot: Snapshot, *, note: str = "") -> Fix:
    """The installed TensorFlow's files put back, nothing else changed."""
    return intent.install(
        installed_requirement(snapshot), options=("--force-reinstall", "--no-deps"), note=note
    )


def install_command(row: TfRelease, snapshot: Snapshot, pip_needed: str | None = None) -> Fix:
    """The install of this release with its CUDA libraries where pip can; first an upgrade of
    pip where the target's is older than ``pip_needed`` (the oldest pip that sees the release's
    Linux wheel: Python 3.6's own pip 18.1 finds no manylinux2010 wheel)."""
    have = snapshot.target.pip_version
    fix = _install_command(row, snapshot)
    if pip_needed and have and snapshot.system.os == "Linux":
        try:
            if Version(have) < Version(pip_needed):
                pip = intent.install(
                    _newest_pip(snapshot.system.python_version), options=("--upgrade",)
                )
                return intent.then(pip, fix)
        except InvalidVersion:
            pass
    return fix


# The last pip release for each Python pip dropped (pip's release notes: 21.0 dropped 2.7 and 3.5,
# 22.0 dropped 3.6, 24.1 dropped 3.7, 25.1 dropped 3.8). Named explicitly: an old pip reading an
# index without Requires-Python data would otherwise pick a pip that refuses to run.
_LAST_PIP = {
    (2, 7): "pip<21",
    (3, 5): "pip<21",
    (3, 6): "pip<22",
    (3, 7): "pip<24.1",
    (3, 8): "pip<25.1",
}


def _newest_pip(python: str | None) -> str:
    try:
        minor = Version(python or "").release[:2]
    except InvalidVersion:
        return "pip"
    return _LAST_PIP.get((minor[0], minor[1]) if len(minor) > 1 else (0, 0), "pip")


def _install_command(row: TfRelease, snapshot: Snapshot) -> Fix:
    series = f"{row.minor[0]}.{row.minor[1]}.*"
    # TensorFlow 2.0's GPU build was the separate tensorflow-gpu package (2.1 merged them).
    name = "tensorflow-gpu" if row.minor < (2, 1) else "tensorflow"
    if row.and_cuda and snapshot.system.os == "Linux":
        return intent.install(f"{name}[and-cuda]=={series}")
    if snapshot.system.os == "Windows":
        return intent.install(
            f"{name}=={series}",
            note=f"then CUDA {row.windows_native_cuda} and cuDNN {row.windows_native_cudnn}",
        )
    return intent.install(f"{name}=={series}", note=f"with CUDA {row.cuda} and cuDNN {row.cudnn}")


def isolated_tool_environment(prefix: str | None) -> bool:
    """gpucheck's own environment is an isolated tool install (pipx, uv tool), not a project's."""
    text = (prefix or "").replace("\\", "/")
    return "/pipx/venvs/" in text or "/uv/tools/" in text


def rerun(snapshot: Snapshot, *args: str) -> str:
    """A gpucheck command for the same target (``--python`` kept where it chose it)."""
    from tf_gpucheck.target import rerun as command

    target = snapshot.target
    return command(
        target.python_executable, target.chosen_by, *args, windows=snapshot.system.os == "Windows"
    )


def restore_pip(snapshot: Snapshot) -> Fix:
    """The target's own ``ensurepip --upgrade``: the pip its Python ships, over one that crashes."""
    return intent.restore_pip(snapshot.target.python_executable or "python")


def recreate_venv(env: str) -> Fix:
    """A virtual environment whose base Python is gone, made again in place."""
    return intent.fresh_environment(
        env,
        clear=True,
        note="recreate it with a Python that exists, then reinstall its packages",
    )


def recreate_or_deactivate(env: str) -> str:
    return (
        f"the active environment {env} has no working Python: recreate it "
        f"(python3 -m venv {env}) or deactivate it; or pass --python PATH"
    )


def with_another_python(python: str, os_name: str | None) -> str:
    """Words for a Python this machine does not have yet: which, and the install to run there."""
    if os_name == "Windows":
        return (
            f"use Python {python} for native-Windows GPU support "
            '(pip install "tensorflow<2.11"), or WSL2 for current releases'
        )
    extra = "[and-cuda]" if os_name == "Linux" else ""
    return f'use Python {python}, then: pip install "tensorflow{extra}"'


KERNEL_PIP = "%pip install PACKAGE  # the %pip magic installs into the kernel's own Python"
"""How a notebook installs into its kernel's own Python (IPython's %pip magic)."""

CUDA_BY_HAND = (
    "install the CUDA and cuDNN versions your TensorFlow was built with "
    '(gpucheck matrix --tf <version>), or on Linux: pip install "tensorflow[and-cuda]"'
)
"""What to do where the build's CUDA is not known."""


DECIDES = {
    "driver": "nvidia-smi on that machine (and its exit code) decides",
    "library": 'the whole output of python -c "import tensorflow as tf; '
    "print(tf.config.list_physical_devices('GPU'))\" on that machine decides",
    "install": "pip list and python --version in that environment decide",
    "speed": "gpucheck bench on that machine decides (the same models on its GPU and its CPU)",
    "other": "gpucheck doctor on that machine decides (it observes what a text cannot say)",
}
"""The command that decides between two readings of a text, by what it would observe there
(``explain``'s "cannot tell for sure"): one line each, the same in a POSIX shell and cmd."""


def project_environment(os_name: str | None) -> str:
    """Words for a gpucheck run from its own isolated tool environment (pipx, uv tool): the
    project's environment is the one to diagnose."""
    activate = ".venv\\Scripts\\activate" if os_name == "Windows" else "source .venv/bin/activate"
    return (
        f"activate your project's virtual environment ({activate}) and run gpucheck again, "
        "or: gpucheck doctor --python /path/to/project/python"
    )


def windows_environment(python: str) -> str:
    """The Python launcher's words for a virtual environment with ``python`` (``py -3.10``)."""
    return f"py -{python} -m venv .venv"
