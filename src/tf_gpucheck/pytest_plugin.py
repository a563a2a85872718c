"""gpucheck's pytest plugin: tests marked ``@pytest.mark.tf_gpu`` run only where TensorFlow can use a GPU.

The marker is ``tf_gpu``, not ``gpu``: another project's plugin (the ``gpucheck`` distribution on
PyPI) registers a ``gpu`` marker with its own meaning, and both plugins may be installed together.
On a machine without a usable GPU they are skipped with doctor's one-line reason; with
``pytest --require-gpu`` they fail instead, so a GPU runner that lost its GPU cannot pass
silently. The diagnosis runs once per session, and only when a marked test is collected.
"""

from __future__ import annotations

from typing import Any

import pytest

_REASON_KEY = pytest.StashKey[Any]()
MARKER = "tf_gpu"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tf-gpucheck")
    group.addoption(
        "--require-gpu",
        action="store_true",
        default=False,
        help="fail (instead of skip) @pytest.mark.tf_gpu tests when no GPU is usable",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "tf_gpu: needs a GPU that TensorFlow can use (tf-gpucheck)")


def _no_gpu_reason(config: pytest.Config) -> str | None:
    if _REASON_KEY not in config.stash:
        from tf_gpucheck.checks import diagnose

        report = diagnose()
        first = report.first_fix
        config.stash[_REASON_KEY] = (
            None
            if report.gpu_usable
            else (f"no usable GPU: {first.summary}" if first else "no usable GPU")
        )
    reason: str | None = config.stash[_REASON_KEY]
    return reason


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--require-gpu"):
        return  # pytest_runtest_setup fails them instead
    marked = [item for item in items if item.get_closest_marker(MARKER)]
    if not marked:
        return
    reason = _no_gpu_reason(config)
    if reason is not None:
        for item in marked:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker(MARKER) and item.config.getoption("--require-gpu"):
        reason = _no_gpu_reason(item.config)
        if reason is not None:
            pytest.fail(f"--require-gpu: {reason}", pytrace=False)
