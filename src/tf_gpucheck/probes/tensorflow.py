"""TensorFlow as the target interpreter sees it, from a child process.

The child imports TensorFlow with TF_CPP_MIN_LOG_LEVEL=0 and writes its report to a file after
every stage; its stderr is TensorFlow's own start-up log, kept verbatim. A hang is cut at the
timeout, a crash (segfault, SIGILL on a CPU without AVX) or an ImportError becomes data, and
whatever the child learnt before is kept.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from tf_gpucheck._children import script
from tf_gpucheck._codec import DecodeError, from_data
from tf_gpucheck._process import ChildResult, run_staged_child
from tf_gpucheck.snapshot import TensorflowInfo, TfDevice, TfDeviceDetails, TfOpResult

DEFAULT_TIMEOUT_S = 120.0


def read_build_file(folder: str | None) -> dict[str, Any] | None:
    """The build information of ``folder``'s ``python/platform/build_info.py`` (TensorFlow
    writes it at build time), read without running it; ``None`` where there is none."""
    if not folder:
        return None
    try:
        with open(
            os.path.join(folder, "python", "platform", "build_info.py"), encoding="utf-8"
        ) as f:
            return parse_build_info(f.read())
    except (OSError, ValueError):
        return None


def parse_build_info(text: str) -> dict[str, Any] | None:
    """The ``build_info = collections.OrderedDict([...])`` literal of a build_info.py, parsed
    without running it; ``None`` where the text holds no such literal."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.List):
            try:
                pairs = ast.literal_eval(node.args[0])
            except ValueError:
                continue
            if all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in pairs):
                return dict(pairs)
    return None


def child_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The child's environment: the user's, with TensorFlow's full C++ log switched on."""
    env = dict(os.environ if environ is None else environ)
    env["TF_CPP_MIN_LOG_LEVEL"] = "0"
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("TF_CPP_MAX_VLOG_LEVEL", None)
    return env


def probe_tensorflow(
    python: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    environ: Mapping[str, str] | None = None,
) -> TensorflowInfo:
    python = python or sys.executable
    try:
        run = run_staged_child(
            [python, script("tf_probe")],
            label="TensorFlow",
            timeout_s=timeout_s,
            env=child_environment(environ),
        )
    except OSError as exc:
        return TensorflowInfo(
            probed=True, installed=None, error=f"cannot run {python}: {exc.strerror or exc}"
        )
    return _info(run.report, tuple(run.result.stderr.splitlines()), run.error, run.result)


def _info(
    report: dict[str, Any], log: tuple[str, ...], error: str | None, result: ChildResult
) -> TensorflowInfo:
    problems: list[str] = []

    def decoded(cls: type[Any], key: str) -> tuple[Any, ...]:
        items = []
        for item in report.get(key) or ():
            try:
                items.append(from_data(cls, item))
            except DecodeError as exc:  # a child from another gpucheck release, say
                problems.append(f"{key}: {exc}")
        return tuple(items)

    physical = decoded(TfDevice, "physical_devices")
    logical = decoded(TfDevice, "logical_devices")
    details = decoded(TfDeviceDetails, "device_details")
    ops = decoded(TfOpResult, "ops")
    if problems and error is None:
        error = f"the TensorFlow child wrote an unexpected report ({problems[0]})"
    return TensorflowInfo(
        probed=True,
        installed=report.get("installed"),
        version=report.get("version"),
        build_info=report.get("build_info"),
        is_built_with_cuda=report.get("is_built_with_cuda"),
        physical_devices=physical,
        logical_devices=logical,
        device_details=details,
        ops=ops,
        import_seconds=report.get("import_seconds"),
        error=error,
        log=log,
        returncode=result.returncode,
        traceback=report.get("traceback") if isinstance(report.get("traceback"), str) else None,
        timed_out=result.timed_out,
        duration_s=result.duration_s,
    )
