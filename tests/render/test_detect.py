"""The detect page: a library that did not load is never headed ok."""

from __future__ import annotations

from tests.helpers import gpucheck

CUDNN_8 = (
    "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared "
    "object file: No such file or directory\n"
)


def test_a_library_that_did_not_load_is_never_headed_ok() -> None:
    out = gpucheck("explain", "-", stdin=CUDNN_8)
    head = out.stdout.splitlines()[0]
    assert not head.startswith("OK"), head
    # cuDNN is tried only once the driver has listed a GPU: alone, the line is a failure
    assert head.startswith("FAIL")
    assert "cause: cudnn_missing" in out.stdout
    assert "1 line read" in out.stdout
    # the OS was seen in a library's name, not stated: said so
    assert "Linux (seen in the name libcudnn.so.8)" in out.stdout
