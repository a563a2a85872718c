"""Child processes: Ctrl-C exits 130 and leaves no child."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.usefixtures("ctrl_c_reaches_children")
def test_ctrl_c_exits_130_and_leaves_no_child(tmp_path: Path) -> None:
    import signal
    import time

    marker = tmp_path / "child.pid"
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\necho $$ > {marker}\nexec sleep 60\n")
    python.chmod(0o755)
    process = subprocess.Popen(
        [sys.executable, "-m", "tf_gpucheck", "detect", "--python", str(python)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), "the child never started"
    time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "interrupted" in err
    assert "Traceback" not in err
    child = int(marker.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)
