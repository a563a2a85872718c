"""Every command a user is told to run, built for the target: its interpreter, the installer it
really has (pip, ``uv pip --python``, ``--user``, ``%pip`` in a kernel) and that installer's
settings. Checks ask for a fix by intent (a ``pip install``/``pip uninstall`` of requirements);
this room writes it the way the target's installer takes it, and :mod:`.proof` proves it with
the installer itself.
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

from tf_gpucheck.matrix import TfRelease
from tf_gpucheck.snapshot import Distribution, Snapshot

PLUGIN_DISTRIBUTIONS = frozenset({"tensorflow-metal", "tensorflow-directml-plugin"})
"""Distributions that plug into another TensorFlow instead of replacing it."""
CPU_ONLY_DISTRIBUTIONS = frozenset(
    {"tensorflow-cpu", "tf-nightly-cpu", "tensorflow-cpu-aws", "intel-tensorflow"}
)


def main_distributions(snapshot: Snapshot) -> list[Distribution]:
    return [d for d in snapshot.packages.tensorflow if d.name not in PLUGIN_DISTRIBUTIONS]


def installed_requirement(snapshot: Snapshot) -> str:
    """ "tensorflow-cpu==2.21.0": the installed TensorFlow distribution, to reinstall exactly it
    (never a second distribution beside it)."""
    main = main_distributions(snapshot)
    if main:
        return f'"{main[0].name}=={main[0].version}"'
    version = snapshot.tensorflow.version
    return f'"tensorflow=={version}"' if version else "tensorflow"


def install_command(row: TfRelease, snapshot: Snapshot, pip_needed: str | None = None) -> str:
    """The pip command that installs this release with its CUDA libraries where pip can; first
    an upgrade of pip where the target's is older than ``pip_needed`` (the oldest pip that sees
    the release's Linux wheel: Python 3.6's own pip 18.1 finds no manylinux2010 wheel)."""
    first = ""
    have = snapshot.target.pip_version
    if pip_needed and have and snapshot.system.os == "Linux":
        try:
            if Version(have) < Version(pip_needed):
                first = f'pip install --upgrade "{_newest_pip(snapshot.system.python_version)}" && '
        except InvalidVersion:
            pass
    return first + _install_command(row, snapshot)


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


def _install_command(row: TfRelease, snapshot: Snapshot) -> str:
    series = f"{row.minor[0]}.{row.minor[1]}.*"
    # TensorFlow 2.0's GPU build was the separate tensorflow-gpu package (2.1 merged them).
    name = "tensorflow-gpu" if row.minor < (2, 1) else "tensorflow"
    if row.and_cuda and snapshot.system.os == "Linux":
        return f'pip install "{name}[and-cuda]=={series}"'
    if snapshot.system.os == "Windows":
        return (
            f'pip install "{name}=={series}"  # then CUDA {row.windows_native_cuda} '
            f"and cuDNN {row.windows_native_cudnn}"
        )
    return f'pip install "{name}=={series}"  # with CUDA {row.cuda} and cuDNN {row.cudnn}'


def isolated_tool_environment(prefix: str | None) -> bool:
    """gpucheck's own environment is an isolated tool install (pipx, uv tool), not a project's."""
    text = (prefix or "").replace("\\", "/")
    return "/pipx/venvs/" in text or "/uv/tools/" in text


# a `pip install`/`pip uninstall` wherever a fix says it, but not the one in `python -m pip`
_PIP = re.compile(r"(?<!-m )(?<![\w./\\%-])pip (install|uninstall)\b")


def rerun(snapshot: Snapshot, *args: str) -> str:
    """A gpucheck command for the same target (``--python`` kept where it chose it)."""
    from tf_gpucheck.target import rerun as command

    target = snapshot.target
    return command(
        target.python_executable, target.chosen_by, *args, windows=snapshot.system.os == "Windows"
    )


def with_target_pip(command: str, snapshot: Snapshot) -> str:
    """``command`` with every ``pip install``/``pip uninstall`` run by the installer the target
    really has: its own pip, or ``uv pip ... --python`` for an environment uv made without pip;
    and ``--user`` where TensorFlow lives in the user site (its CUDA wheels must be found next
    to it, through its RUNPATH ``$ORIGIN/../nvidia/...``)."""
    from tf_gpucheck.target import pip_command, shell_quote

    target = snapshot.target
    windows = snapshot.system.os == "Windows"
    user = any(d.location == "user_site" for d in main_distributions(snapshot))
    kernel = snapshot.kernel
    if kernel is not None and kernel.python == target.python_executable:
        # in a notebook, %pip runs pip with the kernel's own interpreter (IPython's magic)
        def magic(match: re.Match[str]) -> str:
            verb = match.group(1)
            return f"%pip {verb}" + (" --user" if user and verb == "install" else "")

        return _PIP.sub(magic, command)
    if target.installer == "uv" and target.python_executable:
        python = shell_quote(target.python_executable, windows=windows)

        def uv(match: re.Match[str]) -> str:
            return f"uv pip {match.group(1)} --python {python}"

        return _PIP_DASH_Y.sub(uv, command)
    pip = pip_command(target.python_executable, target.chosen_by, windows=windows)

    def run(match: re.Match[str]) -> str:
        verb = match.group(1)
        return f"{pip} {verb}" + (" --user" if user and verb == "install" else "")

    if pip == "pip" and not user:
        return command
    return _PIP.sub(run, command)


# uv's uninstall asks nothing: pip's -y has no place there
_PIP_DASH_Y = re.compile(r"(?<!-m )(?<![\w./\\%-])pip (install|uninstall)\b(?: -y\b)?")
