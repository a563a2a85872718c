"""gpucheck reaches the network only through the user's own installer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SNAPSHOTS

SITECUSTOMIZE = """
import socket
def _refuse(*args, **kwargs):
    with open({log!r}, "a") as handle:
        handle.write(repr(args) + "\\n")
    raise OSError("network access attempted")
socket.socket.connect = _refuse
socket.create_connection = _refuse
"""


@pytest.mark.slow
def test_gpucheck_makes_no_network_calls(tmp_path: Path) -> None:
    log = tmp_path / "connections.log"
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE.format(log=str(log)))
    env = dict(os.environ, PYTHONPATH=str(tmp_path), NO_COLOR="1")
    runs = [
        ["detect", "--no-tf", "--json"],
        ["doctor", "--from", str(SNAPSHOTS / "two-a100.json"), "--json"],
        ["matrix", "--recommend", "--from", str(SNAPSHOTS / "driver-too-old.json")],
        ["configure-memory", "--growth", "--emit", "env"],
        ["fleet", str(SNAPSHOTS), "--redact", "--json"],
        # the index is asked only to prove fixes, by the installer, and never with budget 0
        ["doctor", "--no-tf", "--json", "--proof-budget", "0"],
    ]
    for args in runs:
        result = subprocess.run(
            [sys.executable, "-m", "tf_gpucheck", *args],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert result.returncode in (0, 1), result.stderr
    assert not log.exists(), log.read_text()
    # the guard itself works: a connection attempt is caught and logged
    probe = "import socket\ntry:\n    socket.create_connection(('127.0.0.1', 9))\nexcept OSError:\n    pass"
    subprocess.run([sys.executable, "-c", probe], env=env, check=True)
    assert log.exists()
