"""gpucheck: does TensorFlow see your NVIDIA GPU? If not, why not and how to fix it.

The library surface (importing it costs nothing; TensorFlow and NVML load only when used)::

    from gpucheck.probes import LiveProbes, collect_snapshot
    snapshot = collect_snapshot(LiveProbes())

    gpucheck.configure_memory(growth=True)   # before TensorFlow creates anything
"""

from gpucheck.__about__ import __version__
from gpucheck.errors import ExitCode, GpucheckError
from gpucheck.memory import configure_memory
from gpucheck.snapshot import Snapshot, load_snapshot

__all__ = [
    "ExitCode",
    "GpucheckError",
    "Snapshot",
    "__version__",
    "configure_memory",
    "load_snapshot",
]
