"""configure-memory: plan validation, the real TensorFlow path on this CPU machine, the CLI."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SnapshotProbes, scenario
from tests.helpers import gpucheck
from tf_gpucheck.errors import GpucheckError
from tf_gpucheck.memory import (
    apply_in_child,
    emit_env,
    emit_python,
    make_plan,
    parse_int_list,
    parse_limit,
    validate_against,
)
from tf_gpucheck.snapshot import Snapshot

GIB = 1024**3


def one_gpu_16gb() -> Snapshot:
    base = scenario("ptx-jit-required")
    gpu = dataclasses.replace(
        base.nvml.gpus[0],
        name="Tesla V100-SXM2-16GB",
        compute_capability="7.0",
        memory_total_bytes=16 * GIB,
    )
    return dataclasses.replace(base, nvml=dataclasses.replace(base.nvml, gpus=(gpu,)))


def test_parsers() -> None:
    assert parse_int_list("--virtual", "2048, 2048") == (2048, 2048)
    assert parse_limit("4096") == (4096, {})
    assert parse_limit("0:4096,1:8192") == (None, {0: 4096, 1: 8192})
    for bad in (",", "", "2048,,2048", "abc", "-5", "2048.5"):
        with pytest.raises(GpucheckError, match="--virtual"):
            parse_int_list("--virtual", bad)
    for bad in ("abc", "0:", ":4096", "0:4096,0:1024", "4096,8192", "0:4k"):
        with pytest.raises(GpucheckError, match="--limit"):
            parse_limit(bad)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (
            {"growth": True, "virtual_mb": [2048, 2048]},
            "Cannot set memory growth on device when virtual devices configured",
        ),
        ({"growth": True, "limit_mb": 4096}, "cannot be combined with a memory limit"),
        ({"limit_mb": 0}, "not a positive size"),
        ({"virtual_mb": [2048, -1]}, "not a positive size"),
        ({"virtual_mb": [2048], "limit_mb": 1024}, "give one of them"),
        ({"cpu_devices": 0}, "at least 1"),
        ({"gpus": [0, 0]}, "given twice"),
        ({"allocator": "bfc"}, "cuda_malloc_async"),
    ],
)
def test_impossible_plans_are_refused_before_anything_runs(
    kwargs: dict[str, Any], words: str
) -> None:
    with pytest.raises(GpucheckError) as caught:
        make_plan(**kwargs)
    assert words in caught.value.message
    assert caught.value.exit_code == 2


def test_plan_against_one_16gb_gpu() -> None:
    snapshot = one_gpu_16gb()
    assert validate_against(make_plan(limit_mb=8192), snapshot) == [0]
    assert validate_against(make_plan(virtual_mb=[8192, 8192]), snapshot) == [0]
    with pytest.raises(GpucheckError, match="more than GPU 0's 16384 MB"):
        validate_against(make_plan(limit_mb=20000), snapshot)
    with pytest.raises(GpucheckError, match="24576 MB in all"):
        validate_against(make_plan(virtual_mb=[8192, 8192, 8192]), snapshot)
    with pytest.raises(GpucheckError, match="GPU 1 does not exist"):
        validate_against(make_plan(gpus=[1]), snapshot)


def test_plan_against_two_gpus() -> None:
    snapshot = scenario("two-a100")
    assert validate_against(make_plan(limit_mb={0: 4096, 1: 8192}), snapshot) == [0, 1]
    assert validate_against(make_plan(gpus=[1], growth=True), snapshot) == [1]
    with pytest.raises(GpucheckError, match="not among --gpus 1"):
        validate_against(make_plan(gpus=[1], limit_mb={0: 4096}), snapshot)
    with pytest.raises(GpucheckError, match="GPU 2 does not exist"):
        validate_against(make_plan(limit_mb={2: 4096}), snapshot)


def test_plan_against_no_gpu() -> None:
    with pytest.raises(GpucheckError, match=r"indices: none"):
        validate_against(make_plan(gpus=[0]), scenario("real-cpu-only-tf-2.21-no-driver"))


def test_emit_python_and_env() -> None:
    plan = make_plan(virtual_mb=[2048, 2048], gpus=[1], allocator="cuda_malloc_async")
    code = emit_python(plan)
    assert (
        "tf_gpucheck.configure_memory(virtual_mb=[2048, 2048], gpus=[1], allocator='cuda_malloc_async')"
        in code
    )
    assert 'tf.config.set_visible_devices(gpus, "GPU")' in code
    assert (
        "LogicalDeviceConfiguration(memory_limit=2048), tf.config.LogicalDeviceConfiguration(memory_limit=2048)"
        in code
    )
    compile(code, "<emitted>", "exec")  # it is valid Python
    env, missing = emit_env(plan)
    assert env == {"TF_GPU_ALLOCATOR": "cuda_malloc_async", "CUDA_VISIBLE_DEVICES": "1"}
    assert len(missing) == 1
    assert "virtual GPUs" in missing[0]
    growth_env, growth_missing = emit_env(make_plan(growth=True))
    assert growth_env == {"TF_FORCE_GPU_ALLOW_GROWTH": "true"}
    assert growth_missing == []


@pytest.mark.tensorflow
@pytest.mark.slow
def test_logical_cpus_are_applied_and_verified_for_real() -> None:
    result = apply_in_child(make_plan(cpu_devices=3), [], None, timeout_s=180)
    assert result.error is None
    assert result.applied is True
    assert [d.name for d in result.devices] == ["/device:CPU:0", "/device:CPU:1", "/device:CPU:2"]
    assert all(d.allocated for d in result.devices)


IN_PROCESS = textwrap.dedent(
    """
    import json, tensorflow as tf, tf_gpucheck
    out = {}
    tf_gpucheck.configure_memory(cpu_devices=2)
    tf_gpucheck.configure_memory(cpu_devices=2)  # the same plan again: nothing to do
    out["cpus"] = [d.name for d in tf.config.list_logical_devices("CPU")]
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    out["replicas"] = strategy.num_replicas_in_sync
    tf_gpucheck.configure_memory(cpu_devices=2)  # after initialisation, still the same plan: a no-op
    try:
        tf_gpucheck.configure_memory(cpu_devices=4)
    except tf_gpucheck.GpucheckError as exc:
        out["error"] = {"reference": exc.reference, "message": exc.message, "hint": exc.hint}
    print("RESULT=" + json.dumps(out))
    """
)


@pytest.mark.tensorflow
@pytest.mark.slow
def test_in_process_api_no_op_and_too_late_for_real() -> None:
    result = subprocess.run(
        [sys.executable, "-c", IN_PROCESS], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("RESULT="))
    out = json.loads(line.removeprefix("RESULT="))
    assert out["cpus"] == ["/device:CPU:0", "/device:CPU:1"]
    assert out["replicas"] == 2
    error = out["error"]
    assert error["reference"] == "memory-too-late"
    assert "cannot be modified after being initialized" in error["message"]
    assert "right after `import tensorflow`" in error["hint"]


def test_cli_without_gpu_says_why_and_exits_1(run_cli: Any) -> None:
    result = run_cli(
        ["configure-memory", "--growth"],
        SnapshotProbes(scenario("real-cpu-only-tf-2.21-no-driver")),
    )
    assert result.exit_code == 1
    assert "no GPU to configure: no NVIDIA driver: NVML library not found" in result.stderr


def test_cli_hidden_gpus_say_why(run_cli: Any) -> None:
    result = run_cli(
        ["configure-memory", "--limit", "4096"],
        SnapshotProbes(scenario("gpu-hidden-by-cuda-visible-devices")),
    )
    assert result.exit_code == 1
    assert "CUDA_VISIBLE_DEVICES hides every GPU" in result.stderr


def test_cli_emit_is_a_dry_run_without_gpu(run_cli: Any) -> None:
    class NoProbes(SnapshotProbes):
        def nvml(self) -> Any:
            raise AssertionError("--emit must not probe")

    probes = NoProbes(scenario("two-a100"))
    python = run_cli(["configure-memory", "--growth", "--emit", "python"], probes)
    assert python.exit_code == 0
    assert "tf_gpucheck.configure_memory(growth=True)" in python.stdout
    env = run_cli(
        ["configure-memory", "--growth", "--limit", "4096", "--emit", "env"],
        SnapshotProbes(scenario("two-a100")),
    )
    assert env.exit_code == 2  # growth with a limit is refused before anything else
    env = run_cli(
        ["configure-memory", "--growth", "--cpu-devices", "2", "--emit", "env", "--json"], probes
    )
    assert env.json() == {
        "env": {"TF_FORCE_GPU_ALLOW_GROWTH": "true"},
        "no_environment_variable": [
            "logical CPUs (--cpu-devices): only tf.config.set_logical_device_configuration creates them"
        ],
    }


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["configure-memory", "--limit", "abc"], "--limit 'abc'"),
        (["configure-memory", "--virtual", ","], "--virtual ','"),
        (["configure-memory", "--gpus", "0,x"], "--gpus '0,x'"),
        (["configure-memory", "--limit", "99999999"], "more than GPU 0's"),
        (["configure-memory", "--gpus", "7"], "GPU 7 does not exist"),
        (["configure-memory", "--growth", "--emit", "yaml"], "expected python or env"),
        (["configure-memory"], "nothing to configure"),
    ],
)
def test_cli_bad_input_exits_2(run_cli: Any, args: list[str], words: str) -> None:
    result = run_cli(args, SnapshotProbes(scenario("two-a100")))
    assert result.exit_code == 2
    assert words in result.stderr.splitlines()[0]


@pytest.mark.tensorflow
@pytest.mark.slow
def test_cli_cpu_devices_work_without_gpu_for_real(run_cli: Any) -> None:
    result = run_cli(
        ["configure-memory", "--cpu-devices", "2", "--json"],
        SnapshotProbes(scenario("real-cpu-only-tf-2.21-no-driver")),
    )
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert data["plan"]["cpu_devices"] == 2
    assert [d["name"] for d in data["result"]["devices"]] == ["/device:CPU:0", "/device:CPU:1"]


def test_the_emitted_python_imports_the_package_it_calls() -> None:
    out = gpucheck("configure-memory", "--growth", "--emit", "python")
    assert out.returncode == 0, out.stderr
    assert "import tf_gpucheck\n" in out.stdout
    assert "import gpucheck\n" not in out.stdout  # PyPI's gpucheck is another project
    assert "tf_gpucheck.configure_memory(growth=True)" in out.stdout


@pytest.mark.tensorflow
def test_the_emitted_python_runs_as_pasted(tmp_path: Path) -> None:
    pytest.importorskip("tensorflow")
    snippet = gpucheck("configure-memory", "--growth", "--emit", "python").stdout
    script = tmp_path / "train.py"
    script.write_text(snippet + "\nprint('configured')\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "configured" in done.stdout


@pytest.mark.parametrize(
    "options",
    [
        {"growth": True},
        {"growth": False, "gpus": [1]},
        {"limit_mb": 4096, "gpus": [0]},
        {"limit_mb": {0: 4096, 1: 8192}},
        {"virtual_mb": [2048, 2048], "allocator": "cuda_malloc_async"},
        {"cpu_devices": 2},
    ],
)
def test_a_plan_names_the_options_that_make_it_again(options: dict[str, Any]) -> None:
    """What emit_python writes into configure_memory(...) is the plan's own options: the same
    call makes the same plan, and says nothing it does not set."""
    plan = make_plan(**options)
    assert plan.options() == options
    assert make_plan(**plan.options()) == plan
    assert (
        f"tf_gpucheck.configure_memory({', '.join(f'{k}={v!r}' for k, v in options.items())})"
        in emit_python(plan)
    )
