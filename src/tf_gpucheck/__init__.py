"""gpucheck: does TensorFlow see your NVIDIA GPU? If not, why not and how to fix it.

The library surface (importing it costs nothing; TensorFlow and NVML load only when used)::

    tf_gpucheck.doctor()      # the report (HTML in a notebook, text elsewhere)
    tf_gpucheck.detect()      # what is here

    from tf_gpucheck.probes import LiveProbes, collect_snapshot
    snapshot = collect_snapshot(LiveProbes())

    tf_gpucheck.configure_memory(growth=True)   # before TensorFlow creates anything
"""

from typing import TYPE_CHECKING

from tf_gpucheck.__about__ import __version__
from tf_gpucheck.errors import ExitCode, GpucheckError

if TYPE_CHECKING:
    from tf_gpucheck.checks import diagnose, require_gpu
    from tf_gpucheck.memory import configure_memory
    from tf_gpucheck.notebook import detect, doctor
    from tf_gpucheck.snapshot import Snapshot, load_snapshot

__all__ = [
    "ExitCode",
    "GpucheckError",
    "Snapshot",
    "__version__",
    "configure_memory",
    "detect",
    "diagnose",
    "doctor",
    "load_snapshot",
    "require_gpu",
]


def __getattr__(name: str) -> object:
    # The library's entry points load their modules only when used: `gpucheck --help` stays fast.
    if name in ("diagnose", "require_gpu"):
        from tf_gpucheck import checks

        return getattr(checks, name)
    if name in ("doctor", "detect"):
        from tf_gpucheck import notebook

        return getattr(notebook, name)
    if name in ("Snapshot", "load_snapshot"):
        from tf_gpucheck import snapshot

        return getattr(snapshot, name)
    if name == "configure_memory":
        from tf_gpucheck import memory

        return memory.configure_memory
    raise AttributeError(f"module 'tf_gpucheck' has no attribute {name!r}")
