"""Helpers the tests of several subjects share: doctor run as a user runs it on a real
environment, the environments and wheels those tests build, the generated inputs of the parser
tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st


def doctor(python: Path, *args: str, cwd: Path | None = None, **env: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "tf_gpucheck", "doctor", "--no-tf", "--json", "--python",
         str(python), *args],
        capture_output=True, text=True, check=False, cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", **env},
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def checks(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["check"]: f for f in data["findings"]}


def venv_with_tensorflow_cpu(tmp_path: Path) -> Path:
    """A venv with pip and tensorflow-cpu 2.21.0's dist-info (TensorFlow 2.21's real METADATA):
    doctor's first fix installs the GPU build."""
    from tests.fix.test_fix import venv_with_pip  # test modules import this one
    from tests.probes.test_user_import import METADATA, install_fake
    from tests.test_target import site_packages

    python = venv_with_pip(tmp_path / "venv")
    install_fake(site_packages(python), "tensorflow-cpu", "2.21.0",
                 (METADATA / "tensorflow-2.21.0.METADATA").read_text()
                 .replace("Name: tensorflow", "Name: tensorflow-cpu"))  # fmt: skip
    return python


def tiny_wheel(folder: Path) -> None:
    import base64
    import hashlib
    import zipfile

    info = "tiny_pkg-1.0.dist-info"
    files = {
        "tiny_pkg/__init__.py": b"",
        f"{info}/METADATA": b"Metadata-Version: 2.1\nName: tiny-pkg\nVersion: 1.0\n",
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    record = "".join(
        f"{name},sha256="
        f"{base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},"
        f"{len(data)}\n"
        for name, data in files.items()
    )
    files[f"{info}/RECORD"] = f"{record}{info}/RECORD,,\n".encode()
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / "tiny_pkg-1.0-py3-none-any.whl", "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)


# derandomize: CI runs the same examples every time (explore more with --hypothesis-seed=N)
FAST = settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def gpucheck(
    *args: str, stdin: str | None = None, cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """The command line as a user runs it, in a child process (no colour: output is read)."""
    return subprocess.run(
        [sys.executable, "-m", "tf_gpucheck", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", **env},
    )
