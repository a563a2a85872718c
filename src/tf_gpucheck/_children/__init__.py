"""Scripts that run in the *target* interpreter (``--python``), as child processes.

They import nothing from gpucheck, use only the standard library (plus TensorFlow, for
``tf_probe``), run on any Python 3.8+, and print one JSON document. gpucheck runs them with
``python <file>`` so one gpucheck can diagnose many environments.
"""

from pathlib import Path

CHILDREN_DIR = Path(__file__).resolve().parent


def script(name: str) -> str:
    """Path of the child script ``name`` (without .py)."""
    return str(CHILDREN_DIR / f"{name}.py")
