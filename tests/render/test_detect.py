"""The detect page: a library that did not load is never headed ok."""

from __future__ import annotations

import os
import subprocess
import sys

CUDNN_8 = (
    "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
    "object file: No such file or directory\n"
)


def _gpucheck(*args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tf_gpucheck", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
    )


def test_a_library_that_did_not_load_is_never_headed_ok() -> None:
    out = _gpucheck("explain", "-", stdin=CUDNN_8)
    head = out.stdout.splitlines()[0]
    assert not head.startswith("OK"), head
    assert head.startswith("NOTE")
    assert "cause: cudnn_missing" in out.stdout
    assert "1 line read" in out.stdout
    # the OS was seen in a library's name, not stated: said so
    assert "Linux (seen in the name libcudnn.so.8)" in out.stdout
