"""Real environments drawn at random for benchmarks/claims.py: the grammar, and the builder.

A *recipe* is plain data (JSON): the ordinary commands a person runs to make an environment
(``python -m venv``, ``uv venv``, ``virtualenv``, the Debian system Python with ``--user``,
``pip install --target``, a ``.pth`` file into another environment, ``mv`` and ``cp -r`` of a
venv), how their installer is configured (``PIP_*`` variables, ``pip.conf`` in the environment
and in ``$HOME``), their package history (install, upgrade, downgrade, uninstall, ``--no-deps``,
``--force-reinstall``) and the folder and variables they run their program with. :func:`draw`
makes one from ``(seed, index)`` alone; :class:`Builder` runs its commands for real under one
folder ``$W``, so a recipe printed next to a false statement rebuilds that environment
(``benchmarks/claims.py --replay FILE``).

Heavy wheels come from one local wheelhouse (``pip download`` on first use; afterwards the same
``pip install`` / ``uv pip install`` with ``--no-index --find-links WHEELHOUSE`` appended). An
environment whose first steps another one already ran (the same interpreter and the same
TensorFlow install) starts as a hard-linked copy (``cp -al``) of the first one's folder, which was
built at the same path, so every file is byte for byte what the commands leave; pip and uv
replace files by writing a new one and renaming it, so later commands never touch the copy's
source. No file of an installed package is ever written by this module.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Recipe = dict[str, Any]
Step = dict[str, Any]

FORMAT = 1
CACHE = Path(os.environ.get("GPUCHECK_CLAIMS_CACHE", Path.home() / ".cache" / "gpucheck-claims"))
SYSTEM_PYTHON = "/usr/bin/python3"
"""Debian's own Python (3.11, with /usr/lib/python3.11/EXTERNALLY-MANAGED: PEP 668)."""

# --- what exists ----------------------------------------------------------------------------

TF_WHEELS: dict[tuple[str, str], tuple[str, ...]] = {
    ("tensorflow", "2.12.1"): ("3.9", "3.10", "3.11"),
    ("tensorflow", "2.13.1"): ("3.9", "3.10", "3.11"),
    ("tensorflow", "2.14.1"): ("3.9", "3.10", "3.11"),
    ("tensorflow", "2.15.1"): ("3.9", "3.10", "3.11"),
    ("tensorflow", "2.16.2"): ("3.9", "3.10", "3.11", "3.12"),
    ("tensorflow", "2.17.1"): ("3.9", "3.10", "3.11", "3.12"),
    ("tensorflow", "2.18.1"): ("3.9", "3.10", "3.11", "3.12"),
    ("tensorflow", "2.19.1"): ("3.9", "3.10", "3.11", "3.12"),
    ("tensorflow", "2.20.0"): ("3.9", "3.10", "3.11", "3.12", "3.13"),
    ("tensorflow", "2.21.0"): ("3.10", "3.11", "3.12", "3.13"),
    ("tensorflow-cpu", "2.12.1"): ("3.9", "3.10", "3.11"),
    ("tensorflow-cpu", "2.13.1"): ("3.9", "3.10", "3.11"),
    ("tensorflow-cpu", "2.14.1"): ("3.9", "3.10", "3.11"),
    ("tensorflow-cpu", "2.15.1"): ("3.9", "3.10", "3.11"),
    ("tensorflow-cpu", "2.16.2"): ("3.9", "3.10", "3.11", "3.12"),
    ("tensorflow-cpu", "2.17.1"): ("3.9", "3.10", "3.11", "3.12"),
    ("tensorflow-cpu", "2.18.1"): ("3.9", "3.10", "3.11", "3.12"),
    ("tensorflow-cpu", "2.19.1"): ("3.9", "3.10", "3.11", "3.12"),
    ("tensorflow-cpu", "2.20.0"): ("3.9", "3.10", "3.11", "3.12", "3.13"),
    ("tensorflow-cpu", "2.21.0"): ("3.10", "3.11", "3.12", "3.13"),
    ("tf-nightly", "2.23.0.dev20261026"): ("3.10", "3.11", "3.12", "3.13"),
}
"""The last patch of every TensorFlow release 2.12-2.21 and the CPython versions PyPI has a
manylinux x86_64 wheel of it for (PyPI's JSON API, https://pypi.org/pypi/tensorflow/json and
.../tensorflow-cpu/json, read on this machine)."""

POOL_WEIGHTS: dict[tuple[str, str, str], int] = {
    ("3.11", "tensorflow", "2.21.0"): 4,
    ("3.11", "tensorflow-cpu", "2.21.0"): 2,
}
"""The newest release is what most people install; each other build of the pool counts 1."""

DEFAULT_POOL: tuple[tuple[str, str, str], ...] = (
    ("3.11", "tensorflow", "2.21.0"),
    ("3.11", "tensorflow-cpu", "2.21.0"),
    ("3.11", "tensorflow", "2.15.1"),
    ("3.11", "tensorflow-cpu", "2.17.1"),
    ("3.12", "tensorflow", "2.20.0"),
    ("3.10", "tensorflow-cpu", "2.16.2"),
    ("3.11", "tensorflow", "2.16.1"),
    ("3.10", "tensorflow", "2.12.1"),
    ("3.13", "tensorflow-cpu", "2.21.0"),
    ("3.9", "tensorflow-cpu", "2.14.1"),
    ("3.11", "tf-nightly", "2.23.0.dev20261026"),
)
"""(Python, distribution, release) a run draws TensorFlow from by default: every Python 3.9-3.13,
both distributions, CUDA 11.8 (2.12), 12.x with cuDNN 8 (2.15) and 9 (2.17+), Keras 2 and 3,
NumPy 1 and 2, TensorFlow 2.16.1 (whose loader misses its own and-cuda folders), and a nightly build (tf-nightly with keras-nightly, PyPI's of 2026-10-26), in eleven
wheels (4 GB of wheelhouse). ``--tf-pool all`` draws from TF_WHEELS."""

COMPANIONS: dict[str, tuple[str, ...]] = {
    "numpy": ("1.23.5", "1.26.4", "2.0.2", "2.2.6"),
    "protobuf": ("3.20.3", "4.25.8", "5.29.5", "6.31.1"),
    "keras": ("2.15.0", "3.5.0", "3.10.0", "3.12.0"),
    "tf-keras": ("2.15.1", "2.17.0", "2.21.0"),
    "ml-dtypes": ("0.3.2", "0.4.1", "0.5.1"),
    "jax": ("0.4.30", "0.6.2"),
    "nvidia-cuda-runtime-cu11": ("11.8.89",),
    "nvidia-cuda-runtime-cu12": ("12.5.82", "12.8.90"),
    "nvidia-cuda-runtime": ("13.0.96",),
    "nvidia-cudnn-cu11": ("8.9.6.50",),
    "nvidia-cudnn-cu12": ("9.3.0.75",),
}
"""Releases of what people install next to TensorFlow. ``nvidia-cudnn-cu11`` and ``-cu12`` unpack
into the same folder, nvidia/cudnn/lib (libcudnn.so.8 and libcudnn.so.9 side by side)."""

OTHER_FRAMEWORK_WHEELS: dict[str, tuple[str, ...]] = {
    "nvidia-cudnn-cu13": ("9.13.0.50", "9.19.0.56"),
    "nvidia-nccl-cu13": ("2.28.3",),
}
"""What another framework installed after TensorFlow brings into the same ``nvidia/*/lib``
folders: PyPI's PyTorch for CUDA 13 depends on these (its METADATA, torch 2.9-2.10); they are
installed here with ``--no-deps``, as the part of ``pip install torch`` that touches TensorFlow's
files (the torch wheel itself is several GB and changes nothing of TensorFlow's)."""

PIP_RELEASES: tuple[str, ...] = ("21.3.1", "23.0.1", "24.0", "25.2")
"""Older and newer pip releases people have in an environment (``pip install pip==X``)."""

AND_CUDA_CONTROLS: tuple[tuple[str, str], ...] = (("3.11", "2.21.0"), ("3.11", "2.16.2"))
"""The standard ``pip install "tensorflow[and-cuda]==X"`` of a release, drawn as a control."""

WHEEL_PYTHONS: dict[tuple[str, str], tuple[str, ...]] = {
    ("numpy", "1.23.5"): ("3.9", "3.10", "3.11"),
    ("numpy", "1.26.4"): ("3.9", "3.10", "3.11", "3.12"),
    ("numpy", "2.0.2"): ("3.9", "3.10", "3.11", "3.12"),
    ("numpy", "2.2.6"): ("3.10", "3.11", "3.12", "3.13"),
    ("ml-dtypes", "0.3.2"): ("3.9", "3.10", "3.11", "3.12"),
    ("jax", "0.4.30"): ("3.9", "3.10", "3.11", "3.12"),
    ("jax", "0.6.2"): ("3.10", "3.11", "3.12", "3.13"),
    ("keras", "3.10.0"): ("3.10", "3.11", "3.12", "3.13"),
    ("keras", "3.12.0"): ("3.10", "3.11", "3.12", "3.13"),
}
"""Releases above that have wheels (or a Requires-Python) for some CPython versions only (PyPI);
the generator draws a release only for a Python it installs on."""

LIGHT: dict[str, tuple[str, ...]] = {
    "numpy": ("1.26.4", "2.0.2", "2.2.6"),
    "protobuf": ("4.25.8", "5.29.5", "6.31.1"),
    "keras": ("3.5.0", "3.10.0"),
    "six": ("1.16.0", "1.17.0"),
}
"""Small wheels only (``--light``, the tests): real venv operations with no TensorFlow download."""

LAYOUTS: dict[str, int] = {
    "venv": 24,
    "uv": 14,
    "virtualenv": 8,
    "system_user": 7,
    "target_dir": 7,
    "pth_other": 9,
    "pythonpath_other": 8,
    "moved": 5,
    "copied": 6,
    "no_tf": 6,
    "user_site_in_venv": 6,
    "and_cuda": 5,
}
"""How the interpreter and its environment were made, and how often a run draws each."""

USER_FILES: dict[str, str] = {
    "tensorflow.py": "import tensorflow as tf\nprint(tf.config.list_physical_devices('GPU'))\n",
    "keras.py": "from keras import layers\n",
    "numpy.py": "import numpy as np\n",
    "keras/__init__.py": "",
    "tensorflow/__init__.py": "",
}
"""Files people keep in the folder they run from that share a package's name."""

PIP_CONF: dict[str, str] = {
    "no-index": "[global]\nno-index = true\n",
    "user": "[install]\nuser = true\n",
    "require-virtualenv": "[global]\nrequire-virtualenv = true\n",
    "break-system-packages": "[global]\nbreak-system-packages = true\n",
    "target": "[install]\ntarget = $W/pip-target\n",
}
"""pip.conf contents (pip's own option names, https://pip.pypa.io/en/stable/topics/configuration/)."""

PIP_VARIABLES: dict[str, str] = {
    "PIP_REQUIRE_VIRTUALENV": "1",
    "PIP_USER": "1",
    "PIP_NO_INDEX": "1",
    "PIP_TARGET": "$W/pip-target",
    "PIP_BREAK_SYSTEM_PACKAGES": "1",
}

USER_VARIABLES_DROPPED = (
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONNOUSERSITE",
    "PYTHONUSERBASE",
    "PYTHONSTARTUP",
    "VIRTUAL_ENV",
    "VIRTUAL_ENV_PROMPT",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "PYENV_VERSION",
    "KERAS_BACKEND",
    "KERAS_HOME",
    "TF_USE_LEGACY_KERAS",
    "TF_CPP_MIN_LOG_LEVEL",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_HOME",
    "CUDA_PATH",
    "XLA_FLAGS",
    "TF_CONFIG",
    "PIP_REQUIRE_VIRTUALENV",
    "PIP_USER",
    "PIP_NO_INDEX",
    "PIP_TARGET",
    "PIP_CONFIG_FILE",
    "PIP_BREAK_SYSTEM_PACKAGES",
    "PIP_PREFIX",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "UV_PYTHON",
    "UV_SYSTEM_PYTHON",
    "UV_NO_INDEX",
    "UV_OFFLINE",
    "UV_FIND_LINKS",
    "UV_INDEX_URL",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "JUPYTER_PATH",
)
"""What the recipe decides (or what would leak from the shell running the benchmark). Everything
else of this machine's environment is its own setting and stays, e.g. ``PIP_FIND_LINKS`` and
``/etc/xdg/pip/pip.conf`` (a constraint file)."""


def pyenv_root() -> Path:
    try:
        out = subprocess.run(
            ["pyenv", "root"], capture_output=True, text=True, check=True, timeout=30
        ).stdout.strip()
        return Path(out)
    except (OSError, subprocess.SubprocessError):
        return Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))


def pythons() -> dict[str, str]:
    """``{"3.11": "/root/.pyenv/versions/3.11.7/bin/python", ...}``: the newest patch of each
    minor version pyenv has, 3.9 to 3.13 (sorted listings: the same machine gives the same map)."""
    found: dict[str, tuple[tuple[int, ...], str]] = {}
    versions = pyenv_root() / "versions"
    for entry in sorted(versions.iterdir()) if versions.is_dir() else []:
        match = re.fullmatch(r"3\.(9|1[0-3])\.(\d+)", entry.name)
        python = entry / "bin" / "python"
        if match and python.exists():
            key = f"3.{match.group(1)}"
            rank = (int(match.group(1)), int(match.group(2)))
            if key not in found or found[key][0] < rank:
                found[key] = (rank, str(python))
    return {k: v for k, (_, v) in sorted(found.items())}


def site_packages(env: str, python: str) -> str:
    """The purelib folder of a venv at ``env`` made from Python ``python`` (``3.11``)."""
    return f"{env}/lib/python{python}/site-packages"


# --- the grammar ----------------------------------------------------------------------------


def _weighted(rng: random.Random, weights: Mapping[str, int]) -> str:
    names = sorted(weights)
    return rng.choices(names, weights=[weights[n] for n in names])[0]


def _chance(rng: random.Random, p: float) -> bool:
    return rng.random() < p


@dataclass(frozen=True)
class Grammar:
    """What a run may draw: the TensorFlow wheels (``pool``) and whether TensorFlow is drawn at
    all (``light``: small wheels only)."""

    pool: tuple[tuple[str, str, str], ...] = DEFAULT_POOL
    light: bool = False
    available_pythons: tuple[str, ...] = ("3.9", "3.10", "3.11", "3.12", "3.13")

    def tf_builds(self, python: str | None = None) -> list[tuple[str, str, str]]:
        return [
            b
            for b in self.pool
            if b[0] in self.available_pythons and (python is None or b[0] == python)
        ]


def draw(seed: int, index: int, grammar: Grammar, only: str | None = None) -> Recipe:
    """The recipe of environment ``index`` of run ``seed``: the same on every machine and run
    (``random.Random`` seeded with a string is stable across processes)."""
    rng = random.Random(f"gpucheck-claims/{seed}/{index}")
    layout = only or _weighted(rng, LAYOUTS)
    if layout == "system_user" and "3.11" not in grammar.available_pythons:
        layout = "venv"
    builds = grammar.tf_builds("3.11" if layout == "system_user" else None)
    if grammar.light or not builds:
        python = "3.11" if layout == "system_user" else rng.choice(grammar.available_pythons)
        tf: tuple[str, str, str] | None = None
    else:
        tf = rng.choices(builds, weights=[POOL_WEIGHTS.get(b, 1) for b in builds])[0]
        python = tf[0]
    if layout == "no_tf":
        tf = None
    if layout == "and_cuda":
        if grammar.light:
            layout = "venv"
        else:
            python, release = rng.choice(AND_CUDA_CONTROLS)
            tf = (python, "tensorflow", release)
    recipe: Recipe = {
        "format": FORMAT,
        "seed": seed,
        "index": index,
        "layout": layout,
        "python": python,
        "steps": [],
        "target": "env/bin/python",
        "user": {"cwd": "work", "env": {}, "activate": False},
        "doctor": {"no_tf": True},
    }
    steps: list[Step] = recipe["steps"]
    installer = "pip"
    pkg_python = "env/bin/python"
    extra: list[str] = []

    def install_tf(into: str, tool: str, target: list[str] | None = None) -> None:
        if tf is not None:
            steps.append(_install(tool, into, [f"{tf[1]}=={tf[2]}"], target or []))
        else:
            steps.append(_install(tool, into, _light_pick(rng, python), target or []))

    if layout in ("venv", "moved", "copied", "no_tf", "user_site_in_venv"):
        flags = []
        if layout == "venv" and _chance(rng, 0.1):
            flags.append("--system-site-packages")
        if layout == "venv" and _chance(rng, 0.08):
            flags.append("--copies")
        if layout == "user_site_in_venv":
            flags.append("--system-site-packages")  # only then does a venv see the user site
        if layout == "venv" and _chance(rng, 0.1):
            flags.append("--without-pip")
            installer = "uv"
        steps.append({"do": "venv", "python": python, "path": "env", "flags": flags})
        if layout == "user_site_in_venv":
            # pip install --user with the base interpreter; the venv sees it through
            # --system-site-packages (site.py adds the user site of the base prefix)
            steps.append(
                _install(
                    "pip",
                    f"$PY{python}",
                    [f"{tf[1]}=={tf[2]}"] if tf else _light_pick(rng, python),
                    ["--user"],
                )
            )
        else:
            install_tf("env/bin/python", installer)
    elif layout == "and_cuda" and tf is not None:
        # the control: the install most users have, as the TensorFlow documentation gives it
        steps.append({"do": "venv", "python": python, "path": "env", "flags": []})
        steps.append(_install("pip", "env/bin/python", [f"tensorflow[and-cuda]=={tf[2]}"], []))
    elif layout == "uv":
        flags = ["--seed"] if _chance(rng, 0.3) else []
        steps.append({"do": "uv_venv", "python": python, "path": "env", "flags": flags})
        installer = "uv"
        install_tf("env/bin/python", "uv")
    elif layout == "virtualenv":
        steps.append({"do": "virtualenv", "python": python, "path": "env", "flags": []})
        install_tf("env/bin/python", "pip")
    elif layout == "system_user":
        recipe["target"] = SYSTEM_PYTHON
        pkg_python = SYSTEM_PYTHON
        extra = ["--user", "--break-system-packages"]
        install_tf(SYSTEM_PYTHON, "pip", extra)
    elif layout == "target_dir":
        steps.append({"do": "venv", "python": python, "path": "env", "flags": []})
        install_tf("env/bin/python", "pip", ["--target", "$W/pkgs"])
        recipe["user"]["env"]["PYTHONPATH"] = "$W/pkgs"
        if _chance(rng, 0.5):
            extra = ["--target", "$W/pkgs", "--upgrade"]
    elif layout in ("pth_other", "pythonpath_other"):
        steps.append({"do": "venv", "python": python, "path": "other", "flags": []})
        install_tf("other/bin/python", "pip")
        steps.append({"do": "venv", "python": python, "path": "env", "flags": []})
        other_site = site_packages("$W/other", python)
        if layout == "pth_other":
            steps.append(
                {
                    "do": "write",
                    "path": site_packages("env", python) + "/_other_env.pth",
                    "text": other_site + "\n",
                }
            )
        else:
            recipe["user"]["env"]["PYTHONPATH"] = other_site
        if _chance(rng, 0.25):  # the environment has packages of its own too
            own = rng.choice(grammar.tf_builds(python)) if tf is not None else None
            picks = [f"{own[1]}=={own[2]}"] if own else _light_pick(rng, python)
            steps.append(_install("pip", "env/bin/python", picks, []))
    for _ in range(rng.choice((0, 1, 1, 2, 2, 3))):
        step = _history_step(rng, grammar, installer, pkg_python, python, tf, extra)
        if step is not None:
            steps.append({**step, "history": True})
    if layout == "moved":
        steps.append({"do": "mv", "from": "env", "to": "env-moved"})
        recipe["target"] = "env-moved/bin/python"
    elif layout == "copied":
        steps.append({"do": "cp", "from": "env", "to": "env-copy"})
        recipe["target"] = "env-copy/bin/python"
        if _chance(rng, 0.5):
            step = _history_step(rng, grammar, "pip", "env-copy/bin/python", python, tf, [])
            if step is not None:
                steps.append({**step, "history": True})
    _draw_config(rng, recipe)
    _draw_user(rng, recipe, python, tf)
    return recipe


def _install(tool: str, python: str, specs: Sequence[str], flags: Sequence[str]) -> Step:
    if tool == "uv":
        return {"do": "uv_pip", "python": python, "args": ["install", *flags, *specs]}
    return {"do": "pip", "python": python, "args": ["install", *flags, *specs]}


def _light_pick(rng: random.Random, python: str) -> list[str]:
    names = rng.sample(sorted(LIGHT), k=rng.choice((1, 2)))
    picks = []
    for name in sorted(names):
        picks.append(f"{name}=={rng.choice(_installable(name, LIGHT[name], python))}")
    return picks


def _installable(name: str, versions: Sequence[str], python: str) -> tuple[str, ...]:
    fits = tuple(v for v in versions if python in WHEEL_PYTHONS.get((name, v), (python,)))
    return fits or tuple(versions)


def _history_step(
    rng: random.Random,
    grammar: Grammar,
    installer: str,
    python: str,
    minor: str,
    tf: tuple[str, str, str] | None,
    extra: list[str],
) -> Step | None:
    """One more command of the package history: install, upgrade, downgrade, reinstall,
    uninstall, or a second TensorFlow distribution."""
    kind = _weighted(
        rng,
        {
            "install": 10,
            "uninstall": 3,
            "tf": 0 if grammar.light else 1,
            "other_framework": 0 if grammar.light or tf is None else 2,
            "pip": 0 if installer == "uv" else 1,
            "remove_files": 1,
        },
    )
    table = LIGHT if grammar.light or tf is None else COMPANIONS
    if kind == "other_framework":
        names = sorted(OTHER_FRAMEWORK_WHEELS)
        picked = rng.sample(names, k=rng.choice((1, len(names))))
        specs = [f"{n}=={rng.choice(OTHER_FRAMEWORK_WHEELS[n])}" for n in sorted(picked)]
        return _install(installer, python, specs, [*extra, "--no-deps"])
    if kind == "pip":
        return {
            "do": "pip",
            "python": python,
            "args": ["install", f"pip=={rng.choice(PIP_RELEASES)}"],
        }
    if kind == "remove_files":
        # a package's files deleted by hand (or left so by a failed uninstall): its record stays
        name = rng.choice(sorted(table))
        return {"do": "rm_package", "python": python, "package": name}
    if kind == "uninstall":
        names = sorted(table) + ([tf[1]] if tf else [])
        name = rng.choice(names)
        if installer == "uv":
            return {"do": "uv_pip", "python": python, "args": ["uninstall", name]}
        return {"do": "pip", "python": python, "args": ["uninstall", "-y", name]}
    if kind == "tf":
        if tf is None:
            return None
        others = [b for b in grammar.tf_builds(minor) if b != tf]
        # a second distribution of the same release (tensorflow over tensorflow-cpu) or
        # another release (an upgrade or a downgrade)
        same = [b for b in others if b[2] == tf[2]]
        choice = rng.choice(same or others) if others else None
        if choice is None:
            return None
        flags = rng.choice(([], [], ["--no-deps"], ["-U"]))
        return _install(installer, python, [f"{choice[1]}=={choice[2]}"], [*extra, *flags])
    name = rng.choice(sorted(table))
    version = rng.choice(_installable(name, table[name], minor))
    specs = [f"{name}=={version}"]
    if name == "jax":
        specs.append(f"jaxlib=={version}")
    flags = rng.choice(
        ([], [], ["-U"], ["--no-deps"], ["--force-reinstall"], ["--force-reinstall", "--no-deps"])
    )
    if name.startswith("nvidia-cudnn"):
        flags = ["--no-deps"]  # cuDNN alone; its cuBLAS dependency is another 500 MB wheel
    if installer == "uv":
        flags = [{"--force-reinstall": "--reinstall"}.get(f, f) for f in flags]
    return _install(installer, python, specs, [*extra, *flags])


def _draw_config(rng: random.Random, recipe: Recipe) -> None:
    """The installer's configuration: variables, pip.conf in the environment, in $HOME."""
    env: dict[str, str] = recipe["user"]["env"]
    steps: list[Step] = recipe["steps"]
    venv_target = recipe["target"].startswith("env")
    if _chance(rng, 0.15):
        name = rng.choice(sorted(PIP_VARIABLES))
        env[name] = PIP_VARIABLES[name]
    if venv_target and _chance(rng, 0.08):
        key = rng.choice(sorted(PIP_CONF))
        folder = recipe["target"].removesuffix("/bin/python")
        steps.append({"do": "write", "path": f"{folder}/pip.conf", "text": PIP_CONF[key]})
    if _chance(rng, 0.08):
        key = rng.choice(sorted(PIP_CONF))
        steps.append({"do": "write", "path": "home/.config/pip/pip.conf", "text": PIP_CONF[key]})
    if _chance(rng, 0.04):
        key = rng.choice(sorted(PIP_CONF))
        steps.append({"do": "write", "path": "pip-custom.conf", "text": PIP_CONF[key]})
        env["PIP_CONFIG_FILE"] = "$W/pip-custom.conf"


def _draw_user(
    rng: random.Random, recipe: Recipe, python: str, tf: tuple[str, str, str] | None
) -> None:
    """The user's folder and variables, whether they activated the environment, and whether
    doctor imports TensorFlow."""
    user: dict[str, Any] = recipe["user"]
    env: dict[str, str] = user["env"]
    steps: list[Step] = recipe["steps"]
    if _chance(rng, 0.25):
        name = rng.choice(sorted(USER_FILES))
        steps.append({"do": "write", "path": f"work/{name}", "text": USER_FILES[name]})
    steps.append({"do": "mkdir", "path": "work"})
    if "PYTHONPATH" not in env and _chance(rng, 0.05):
        steps.append({"do": "write", "path": "checkout/tensorflow/__init__.py", "text": ""})
        env["PYTHONPATH"] = "$W/checkout"
    if _chance(rng, 0.12):
        env["KERAS_BACKEND"] = rng.choice(("jax", "torch", "tensorflow"))
    if _chance(rng, 0.08):
        env["TF_USE_LEGACY_KERAS"] = "1"
    if _chance(rng, 0.08):
        target = recipe["target"]
        own = (
            site_packages(f"$W/{target.removesuffix('/bin/python')}", python)
            + "/nvidia/cuda_runtime/lib"
            if target.startswith("env")
            else "/usr/local/cuda/lib"
        )
        env["LD_LIBRARY_PATH"] = rng.choice(("/usr/local/cuda/lib", own))
    if _chance(rng, 0.06):
        env["CUDA_VISIBLE_DEVICES"] = rng.choice(("", "-1", "0"))
    user["activate"] = recipe["target"].startswith("env") and _chance(rng, 0.3)
    recipe["doctor"]["no_tf"] = tf is None or _chance(rng, 0.85)


# --- building -------------------------------------------------------------------------------


def machine_environment(home: Path, tools_bin: Path) -> dict[str, str]:
    """This machine's own settings for a person whose home is ``home``: nothing the recipe decides
    leaks in from the shell that runs the benchmark; PATH has the system folders and the uv and
    virtualenv commands only (no pyenv shims, no other venv)."""
    env = {k: v for k, v in os.environ.items() if k not in USER_VARIABLES_DROPPED}
    env["HOME"] = str(home)
    env["PATH"] = f"{tools_bin}:/usr/bin:/bin"
    env["UV_CACHE_DIR"] = str(CACHE / "uv-cache")  # a uv user's warm cache
    env["UV_PYTHON_DOWNLOADS"] = "never"
    env["LANG"] = env.get("LANG", "C.UTF-8")
    return env


def substitute(text: str, w: Path, py: Mapping[str, str]) -> str:
    out = text.replace("$W", str(w))
    for minor, path in py.items():
        out = out.replace(f"$PY{minor}", path)
    return out


@dataclass
class StepResult:
    command: list[str]
    returncode: int
    seconds: float
    output_tail: str
    cached: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "returncode": self.returncode,
            "seconds": round(self.seconds, 2),
            "output_tail": self.output_tail,
            "cached": self.cached,
        }


@dataclass
class Built:
    """An environment as built: where things are, and what the user runs with."""

    recipe: Recipe
    w: Path
    target: str
    cwd: Path
    user_env: dict[str, str]
    activate_env: dict[str, str]
    steps: list[StepResult]
    explicit: dict[str, str]
    roots: list[Path]
    seconds: float
    base_reused: bool = False
    python_minor: str = ""
    wheelhouse: Path = field(default_factory=Path)
    dry_wheels: Wheelhouse | None = None

    @classmethod
    def existing(
        cls, recipe: Recipe, w: Path, target: str, cwd: Path, user_env: dict[str, str]
    ) -> Built:
        """An environment this builder did not make (by hand, or a real machine's): no steps,
        the user's variables the same activated or not."""
        return cls(
            recipe=recipe,
            w=w,
            target=target,
            cwd=cwd,
            user_env=user_env,
            activate_env=user_env,
            steps=[],
            explicit={},
            roots=[],
            seconds=0.0,
        )

    @property
    def target_prefix(self) -> Path | None:
        """The environment folder of a venv target (``$W/env``), else None."""
        path = Path(self.target)
        if path.parent.name == "bin" and (path.parent.parent / "pyvenv.cfg").exists():
            return path.parent.parent
        return None


_VALUE_OPTIONS = {
    "--target",
    "-t",
    "--find-links",
    "-f",
    "--index-url",
    "-i",
    "--python",
    "--prefix",
    "--root",
    "-c",
    "--constraint",
}


def requirement_specs(args: Sequence[str]) -> list[str]:
    """The requirements of ``install ARGS`` (options and their values left out)."""
    specs = []
    skip = False
    for arg in args[1:]:
        if skip:
            skip = False
            continue
        if arg in _VALUE_OPTIONS:
            skip = True
            continue
        if not arg.startswith("-"):
            specs.append(arg)
    return specs


class Wheelhouse:
    """One local folder of wheels, filled by ``pip download`` the first time a requirement is
    needed for a Python version; what was fetched (or could not be) is remembered in
    ``.claims-downloads.json`` so a run never asks the index twice."""

    def __init__(self, folder: Path, pythons: Mapping[str, str], also: Sequence[Path] = ()) -> None:
        self.folder = folder
        self.pythons = pythons
        self.also = tuple(also)
        """other wheelhouses pip may take a wheel from instead of downloading it again"""
        folder.mkdir(parents=True, exist_ok=True)
        self.index_file = folder / ".claims-downloads.json"
        self.index: dict[str, str] = self._read_index()
        self.seconds = 0.0
        self._lock = threading.Lock()

    def _read_index(self) -> dict[str, str]:
        try:
            loaded = json.loads(self.index_file.read_text())
        except (OSError, ValueError):
            return {}
        return loaded if isinstance(loaded, dict) else {}

    def ensure(self, minor: str, specs: Sequence[str], *, deps: bool) -> bool:
        """One download at a time, across the threads of a run (``--jobs``) and across runs
        sharing the folder (a lock file): two ``pip download`` of one wheel never race."""
        if not specs:
            return True
        with self._lock, open(self.folder / ".claims-downloads.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.index.update(self._read_index())  # what another run fetched meanwhile
            return self._ensure(minor, specs, deps=deps)

    def _ensure(self, minor: str, specs: Sequence[str], *, deps: bool) -> bool:
        key = f"{minor}|{'deps' if deps else 'nodeps'}|{' '.join(sorted(specs))}"
        if key in self.index:
            return self.index[key] == "ok"
        python = self.pythons.get(minor)
        if python is None:
            return False
        start = time.monotonic()
        result = subprocess.run(
            [
                python,
                "-m",
                "pip",
                "download",
                "-q",
                "--only-binary=:all:",
                "-d",
                str(self.folder),
                "--find-links",
                str(self.folder),
                *[arg for other in self.also for arg in ("--find-links", str(other))],
                *([] if deps else ["--no-deps"]),
                *specs,
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=1800,
        )
        self.seconds += time.monotonic() - start
        tail = [line for line in result.stderr.splitlines() if "is ignored" not in line][-2:]
        self.index[key] = "ok" if result.returncode == 0 else "failed: " + " ".join(tail)
        tmp = self.index_file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.index, indent=1, sort_keys=True))
        tmp.replace(self.index_file)
        return result.returncode == 0


def dry_wheelhouse(wheels: Wheelhouse) -> Wheelhouse:
    """Where the wheels of fixes checked by a dry run are kept (``WHEELHOUSE-dry``): given to
    the dry run as find-links so pip reads them from disk rather than downloading them again
    (3.3 GB for ``tensorflow[and-cuda]``); never to a command that installs, so a fix is
    installed for real only from what the recipes themselves installed."""
    folder = wheels.folder.parent / f"{wheels.folder.name}-dry"
    return Wheelhouse(folder, wheels.pythons, also=(wheels.folder,))


_MISSING = re.compile(r"No matching distribution found for (\S+)")


class Builder:
    """Builds recipes under ``root``: each environment at ``root/w`` (the same path every time,
    so a base can be reused as a hard-linked copy), bases under ``root/bases``."""

    def __init__(
        self,
        root: Path,
        wheelhouse: Path | None = None,
        max_bases: int = 8,
        wheels: Wheelhouse | None = None,
        dry_wheels: Wheelhouse | None = None,
    ) -> None:
        self.root = root
        self.max_bases = max_bases
        self.w = root / "w"
        self.bases = root / "bases"
        self.pythons = pythons()
        self.wheels = wheels or Wheelhouse(wheelhouse or CACHE / "wheels", self.pythons)
        self.dry_wheels = dry_wheels or dry_wheelhouse(self.wheels)
        self.tools = ensure_tools()
        self.base_seconds: dict[str, float] = {}

    def build(self, recipe: Recipe) -> Built:
        start = time.monotonic()
        if self.w.exists():
            shutil.rmtree(self.w)
        steps: list[Step] = recipe["steps"]
        cuts = _heavy_cuts(steps)
        results: list[StepResult] = []
        done = 0
        for cut in reversed(cuts):  # the longest prefix already built
            base = self.bases / self._key(steps[:cut], recipe)
            if base.is_dir():
                subprocess.run(["cp", "-al", str(base), str(self.w)], check=True)
                base.with_suffix(".json").touch()  # recently used: evicted last
                recorded = json.loads(base.with_suffix(".json").read_text())
                results = [StepResult(**r, cached=True) for r in recorded]
                done = cut
                break
        if not done:
            self.w.mkdir(parents=True)
            (self.w / "home").mkdir()
        reused = done > 0
        for cut in [c for c in cuts if c > done]:
            for step in steps[done:cut]:
                results.append(self._run(step, recipe))
            done = cut
            base = self.bases / self._key(steps[:cut], recipe)
            self._evict()
            subprocess.run(["cp", "-al", str(self.w), str(base)], check=True)
            base.with_suffix(".json").write_text(
                json.dumps(
                    [
                        {
                            "command": r.command,
                            "returncode": r.returncode,
                            "seconds": r.seconds,
                            "output_tail": r.output_tail,
                        }
                        for r in results
                    ]
                )
            )
        cut = done
        for step in steps[cut:]:
            results.append(self._run(step, recipe))
        user = recipe["user"]
        home = self.w / "home"
        base_env = machine_environment(home, self.tools)
        variables = {k: substitute(v, self.w, self.pythons) for k, v in user["env"].items()}
        user_env = {**base_env, **variables}
        target = substitute(recipe["target"], self.w, self.pythons)
        if not target.startswith("/"):
            target = str(self.w / target)
        activate_env = dict(user_env)
        if user.get("activate"):
            prefix = str(Path(target).parent.parent)
            activate_env["VIRTUAL_ENV"] = prefix
            activate_env["PATH"] = f"{prefix}/bin:{user_env['PATH']}"
        explicit = _explicit_versions(results, steps)
        roots = [self.w / name for name in ("env", "env-moved", "env-copy", "pkgs", "home")]
        return Built(
            recipe=recipe,
            w=self.w,
            target=target,
            cwd=self.w / user["cwd"],
            user_env=user_env,
            activate_env=activate_env,
            steps=results,
            explicit=explicit,
            roots=[r for r in roots if r.exists()],
            seconds=time.monotonic() - start,
            base_reused=reused,
            python_minor=recipe["python"],
            wheelhouse=self.wheels.folder,
            dry_wheels=self.dry_wheels,
        )

    def prefix(self, recipe: Recipe) -> str | None:
        """The first steps a base of ``recipe`` would keep (its first TensorFlow install), the same
        for every job: recipes that share it are best built by one job, whose base they reuse."""
        cuts = _heavy_cuts(recipe["steps"])
        if not cuts:
            return None
        return json.dumps([recipe["steps"][: cuts[0]], recipe["python"]], sort_keys=True)

    def _evict(self) -> None:
        """At most ``max_bases`` bases on disk (a pip-made TensorFlow base is 1.5-2 GB): the least
        recently used go first."""
        self.bases.mkdir(parents=True, exist_ok=True)
        records = sorted(self.bases.glob("*.json"), key=lambda p: (p.stat().st_mtime, p.name))
        while len(records) >= max(self.max_bases, 1):
            oldest = records.pop(0)
            shutil.rmtree(oldest.with_suffix(""), ignore_errors=True)
            oldest.unlink(missing_ok=True)

    def _key(self, steps: Sequence[Step], recipe: Recipe) -> str:
        text = json.dumps([steps, str(self.w), self.pythons, recipe["python"]], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def _env(self) -> dict[str, str]:
        return machine_environment(self.w / "home", self.tools)

    def _run(self, step: Step, recipe: Recipe) -> StepResult:
        w = self.w
        do = step["do"]
        env = self._env()

        def sub(text: str) -> str:
            return substitute(text, w, self.pythons)

        if do == "write":
            path = w / sub(step["path"])
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".claims-tmp")
            tmp.write_text(sub(step["text"]))
            tmp.replace(path)  # a new file: never writes through a hard link
            return StepResult(["write", str(path)], 0, 0.0, "")
        if do == "mkdir":
            (w / step["path"]).mkdir(parents=True, exist_ok=True)
            return StepResult(["mkdir", "-p", str(w / step["path"])], 0, 0.0, "")
        if do == "venv":
            command = [
                self.pythons[step["python"]],
                "-m",
                "venv",
                *step["flags"],
                str(w / step["path"]),
            ]
        elif do == "uv_venv":
            command = [
                str(self.tools / "uv"),
                "venv",
                "-q",
                *step["flags"],
                "--python",
                self.pythons[step["python"]],
                str(w / step["path"]),
            ]
        elif do == "virtualenv":
            command = [
                str(self.tools / "virtualenv"),
                "-q",
                "-p",
                self.pythons[step["python"]],
                str(w / step["path"]),
            ]
        elif do == "mv":
            command = ["mv", str(w / step["from"]), str(w / step["to"])]
        elif do == "cp":
            command = ["cp", "-r", str(w / step["from"]), str(w / step["to"])]
        elif do in ("pip", "uv_pip"):
            return self._install(step, recipe, env)
        elif do == "rm_package":
            return self._remove_package(step)
        else:
            raise ValueError(f"unknown step {do!r}")
        return _execute(command, env, w)

    def _remove_package(self, step: Step) -> StepResult:
        """``rm -rf`` of the top-level folders a distribution's RECORD lists (its dist-info
        kept): what deleting a package by hand, or a failed uninstall, leaves. Unlinks only, so a
        hard-linked base is never touched."""
        python = substitute(step["python"], self.w, self.pythons)
        if not python.startswith("/"):
            python = str(self.w / python)
        code = (
            "import importlib.metadata as m, sys\n"
            "try: d = m.distribution(sys.argv[1])\n"
            "except m.PackageNotFoundError: sys.exit(0)\n"
            "tops = sorted({str(f).split('/')[0] for f in d.files or () "
            "if not str(f).split('/')[0].endswith(('.dist-info', '.egg-info', '..'))})\n"
            "print('\\n'.join(str(d.locate_file(t)) for t in tops))\n"
        )
        listed = _execute([python, "-c", code, step["package"]], self._env(), self.w)
        folders = [line for line in listed.output_tail.splitlines() if line.startswith(str(self.w))]
        for folder in folders:
            target = Path(folder)
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
        return StepResult(["rm", "-rf", *folders], 0, 0.0, "")

    def _install(self, step: Step, recipe: Recipe, env: dict[str, str]) -> StepResult:
        w = self.w
        python = substitute(step["python"], w, self.pythons)
        if not python.startswith("/"):
            python = str(w / python)
        args = [substitute(a, w, self.pythons) for a in step["args"]]
        offline = ["--no-index", "--find-links", str(self.wheels.folder)]
        if step["do"] == "uv_pip":
            command = [str(self.tools / "uv"), "pip", args[0], "--python", python, *args[1:]]
        else:
            command = [python, "-m", "pip", *args]
        if args[0] != "install":
            return _execute(command, env, w)
        specs = requirement_specs(args)
        self.wheels.ensure(recipe["python"], specs, deps="--no-deps" not in args)
        result = _execute([*command, *offline], env, w)
        for _ in range(12):  # a dependency the first download did not bring for this state
            missing = _MISSING.search(result.output_tail)
            if result.returncode == 0 or missing is None:
                break
            if not self.wheels.ensure(recipe["python"], [missing.group(1)], deps=False):
                break
            result = _execute([*command, *offline], env, w)
        return result


def _execute(command: list[str], env: Mapping[str, str], cwd: Path) -> StepResult:
    start = time.monotonic()
    try:
        proc = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env=dict(env),
            cwd=cwd,
            check=False,
            timeout=1800,
        )
        code, out = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        code, out = 124, f"timed out: {exc}"
    except OSError as exc:  # the program is not there (an earlier step failed to make it)
        code, out = 127, f"{command[0]}: {exc.strerror or exc}"
    lines = [line for line in out.splitlines() if "is ignored: it is neither" not in line]
    return StepResult(command, code, time.monotonic() - start, "\n".join(lines[-6:]))


def _heavy_cuts(steps: Sequence[Step]) -> list[int]:
    """After which steps the environment is worth keeping as a base: every TensorFlow install
    that makes the environment (a later recipe with the same first steps starts from there); not
    those of the package history, whose prefixes rarely recur."""
    cuts = []
    for i, step in enumerate(steps):
        if step.get("history"):
            break
        if (
            step["do"] in ("pip", "uv_pip")
            and step["args"][0] == "install"
            and any(
                s.split("==")[0].startswith("tensorflow") for s in requirement_specs(step["args"])
            )
        ):
            cuts.append(i + 1)
    return cuts


def _explicit_versions(results: Sequence[StepResult], steps: Sequence[Step]) -> dict[str, str]:
    """What the recipe installed at a chosen version, last (``pip install X==V`` that
    succeeded; ``uninstall X`` forgets X): no fix may take these lower."""
    out: dict[str, str] = {}
    for step, result in zip(steps, results, strict=False):
        if step["do"] not in ("pip", "uv_pip") or result.returncode != 0:
            continue
        if step["args"][0] == "uninstall":
            for name in requirement_specs(step["args"]):
                out.pop(name, None)
            continue
        for spec in requirement_specs(step["args"]):
            name, _, version = spec.partition("==")
            if version:
                out[name.split("[")[0]] = version  # tensorflow[and-cuda]==2.21.0: tensorflow
    return out


def ensure_tools() -> Path:
    """A folder with only ``uv`` and ``virtualenv`` in it (links into a tool venv made once under
    the cache): put on PATH, it adds no ``python`` or ``pip`` of its own."""
    venv = CACHE / "tools"
    bin_dir = CACHE / "bin"
    if not (venv / "bin" / "uv").exists() or not (venv / "bin" / "virtualenv").exists():
        subprocess.run(["python3", "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "uv", "virtualenv"],
            check=True,
        )
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name in ("uv", "virtualenv"):
        link = bin_dir / name
        if not link.exists():
            link.symlink_to(venv / "bin" / name)
    return bin_dir


def commands(recipe: Recipe) -> list[str]:
    """The recipe as the shell commands a person would type (for the report)."""
    out = []
    for step in recipe["steps"]:
        do = step["do"]
        if do == "venv":
            out.append(
                f"python{step['python']} -m venv {' '.join(step['flags'])} $W/{step['path']}"
            )
        elif do == "uv_venv":
            out.append(
                f"uv venv {' '.join(step['flags'])} --python {step['python']} $W/{step['path']}"
            )
        elif do == "virtualenv":
            out.append(f"virtualenv -p python{step['python']} $W/{step['path']}")
        elif do == "pip":
            python = (
                step["python"] if step["python"].startswith(("/", "$")) else f"$W/{step['python']}"
            )
            out.append(f"{python} -m pip {' '.join(step['args'])}")
        elif do == "uv_pip":
            out.append(
                f"uv pip {step['args'][0]} --python $W/{step['python']} {' '.join(step['args'][1:])}"
            )
        elif do == "write":
            out.append(f"write $W/{step['path']}: {step['text']!r}")
        elif do == "mv":
            out.append(f"mv $W/{step['from']} $W/{step['to']}")
        elif do == "cp":
            out.append(f"cp -r $W/{step['from']} $W/{step['to']}")
        elif do == "mkdir":
            out.append(f"mkdir -p $W/{step['path']}")
        elif do == "rm_package":
            out.append(f"rm -rf the files of {step['package']} (its record kept)")
    return [" ".join(c.split()) for c in out]
