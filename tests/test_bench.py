"""benchmark: plan validation, statistics, the verdict, and one real (tiny) run on this CPU."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tests.conftest import SnapshotProbes, scenario
from tf_gpucheck.bench import (
    BenchPlan,
    BenchReport,
    BenchResult,
    backend_missing,
    child_environment,
    make_plan,
    rankings,
    run,
    speedups,
)
from tf_gpucheck.errors import GpucheckError
from tf_gpucheck.probes import LiveProbes, collect_snapshot
from tf_gpucheck.render.bench import render_report
from tf_gpucheck.render.console import make_console
from tf_gpucheck.snapshot import Distribution, Snapshot

DEFAULTS: dict[str, Any] = {
    "workloads": None,
    "device": "all",
    "batch_size": None,
    "steps": None,
    "repeats": None,
    "mixed_precision": None,
    "xla": None,
    "quick": False,
}


def plan(**overrides: Any) -> BenchPlan:
    return make_plan(**{**DEFAULTS, **overrides})


def test_defaults_and_quick() -> None:
    default = plan()
    assert (
        default.workloads,
        default.devices,
        default.batch_size,
        default.steps,
        default.repeats,
    ) == (("mlp", "cnn"), ("cpu", "gpu"), 128, 50, 5)
    quick = plan(quick=True)
    assert (quick.steps, quick.repeats) == (30, 3)
    assert plan(workloads=["mlp,matmul", "mlp"]).workloads == ("mlp", "matmul")
    assert plan(device="cpu").devices == ("cpu",)
    assert plan().spec("cpu")["workloads"] == [
        "mlp",
        "cnn",
        "matmul",
    ]  # the ceiling is always measured


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"batch_size": 0}, "--batch-size 0"),
        ({"steps": -1}, "--steps -1"),
        ({"repeats": 1}, "at least 2 windows"),
        ({"workloads": ["resnet"]}, "--workload 'resnet'"),
        ({"device": "tpu"}, "--device 'tpu'"),
        ({"mixed_precision": "fp8"}, "--mixed-precision 'fp8'"),
    ],
)
def test_bad_options(overrides: dict[str, Any], words: str) -> None:
    with pytest.raises(GpucheckError) as caught:
        plan(**overrides)
    assert words in caught.value.message


def result(device: str, workload: str, median: float, low: float, high: float) -> BenchResult:
    return BenchResult(
        device,
        workload,
        "ok",
        batch_size=128,
        samples_per_s=median,
        samples_per_s_min=low,
        samples_per_s_max=high,
        cv=0.02,
        step_time_s=128 / median,
        first_step_s=0.7,
        gflops=1.0,
        share_of_ceiling=0.5,
        input_samples_per_s=1e6,
        bound="compute",
    )


def test_speedup_is_the_ratio_of_medians_with_the_extremes_as_range() -> None:
    (s,) = speedups(
        [
            result("cpu", "mlp", 20_000, 19_000, 21_000),
            result("gpu", "mlp", 400_000, 380_000, 420_000),
        ]
    )
    assert s.median == pytest.approx(20.0)
    assert s.low == pytest.approx(380_000 / 21_000)
    assert s.high == pytest.approx(420_000 / 19_000)


def test_report_renders_speedup_noise_and_unavailable_gpu() -> None:
    noisy = BenchResult(
        "cpu",
        "cnn",
        "ok",
        batch_size=128,
        samples_per_s=4000,
        samples_per_s_min=3000,
        samples_per_s_max=5000,
        cv=0.15,
        step_time_s=0.03,
        first_step_s=0.8,
        gflops=150,
        share_of_ceiling=0.6,
        input_samples_per_s=4100,
        bound="input",
    )
    report = BenchReport(
        {},
        plan(),
        (
            result("cpu", "mlp", 20_000, 19_000, 21_000),
            noisy,
            BenchResult("gpu", "mlp", "unavailable", "no NVIDIA driver"),
        ),
        (),
        ("cpu/cnn",),
        "no NVIDIA driver",
    )
    console = make_console()
    with console.capture() as capture:
        console.print(render_report(report))
    out = capture.get()
    assert "gpu: not run: no NVIDIA driver" in out
    assert "noisy run (CV above 10%): cpu/cnn" in out
    assert "cpu/cnn: input-bound" in out
    data = report.to_data()
    assert data["schema_version"] == 2
    unavailable = data["results"][2]
    assert (unavailable["status"], unavailable["reason"]) == ("unavailable", "no NVIDIA driver")


@pytest.mark.tensorflow
@pytest.mark.slow
def test_a_tiny_real_run_on_this_cpu() -> None:
    tiny = BenchPlan(
        workloads=("mlp",), devices=("cpu",), batch_size=32, steps=4, repeats=2, warmup_steps=2
    )
    events: list[tuple[str, str, int, int]] = []
    report = run(
        tiny,
        scenario("real-cpu-only-tf-2.21-no-driver"),
        gpu_reason=None,
        timeout_s=300,
        progress=lambda *event: events.append(event),
    )
    mlp = next(r for r in report.results if r.workload == "mlp")
    matmul = next(r for r in report.results if r.workload == "matmul")
    assert mlp.status == "ok", mlp.reason
    assert len(mlp.windows_s) == 2  # the timed windows only: first step and warm-up are apart
    assert mlp.first_step_s is not None
    assert mlp.warmup_s is not None
    assert mlp.samples_per_s is not None
    assert mlp.samples_per_s_min is not None
    assert mlp.samples_per_s_max is not None
    assert mlp.samples_per_s_min <= mlp.samples_per_s <= mlp.samples_per_s_max
    assert mlp.extra["flops_per_sample"] == 3 * 2 * (784 * 512 + 512 * 512 + 512 * 10)
    assert matmul.gflops is not None
    assert matmul.gflops > 0
    assert mlp.share_of_ceiling == pytest.approx((mlp.gflops or 0) / matmul.gflops)
    assert ("cpu", "mlp", 2, 2) in events
    assert report.fingerprint["tensorflow"]


def test_cli_bad_input_exits_2(run_cli: Any) -> None:
    result = run_cli(["bench", "--batch-size", "0"], SnapshotProbes(scenario("two-a100")))
    assert result.exit_code == 2
    assert "--batch-size 0" in result.stderr


def test_sweep_summary_finds_saturation_and_crossover() -> None:
    from tf_gpucheck.bench import sweep_summary

    def swept(device: str, batch: int, rate: float) -> BenchResult:
        return BenchResult(
            device, "mlp", "ok", batch_size=batch, samples_per_s=rate, extra={"sweep": True}
        )

    rows = [
        swept("cpu", 32, 6000),
        swept("cpu", 64, 16000),
        swept("cpu", 128, 17000),
        swept("cpu", 256, 30000),
        swept("gpu", 32, 5000),
        swept("gpu", 64, 20000),
        swept("gpu", 128, 40000),
        swept("gpu", 256, 80000),
    ]
    summaries, crossover = sweep_summary(rows)
    assert {(s.device, s.saturates_at) for s in summaries} == {("cpu", 64), ("gpu", None)}
    assert crossover == {("tensorflow", "mlp"): 64}


def test_strategy_options() -> None:
    assert plan(strategy="mirrored", cpu_devices=2).spec("cpu")["cpu_devices"] == 2
    for overrides, words in (
        ({"strategy": "tpu"}, "expected mirrored"),
        ({"cpu_devices": 2}, "only matters"),
        ({"strategy": "mirrored", "cpu_devices": 1}, "at least 2"),
        ({"sweep": True, "strategy": "mirrored"}, "give one of them"),
    ):
        with pytest.raises(GpucheckError, match=words):
            plan(**overrides)


@pytest.mark.tensorflow
@pytest.mark.slow
def test_mirrored_across_logical_cpus_for_real() -> None:
    tiny = BenchPlan(
        workloads=("mlp",),
        devices=("cpu",),
        batch_size=32,
        steps=3,
        repeats=2,
        warmup_steps=1,
        strategy="mirrored",
        cpu_devices=2,
    )
    report = run(tiny, scenario("real-cpu-only-tf-2.21-no-driver"), gpu_reason=None, timeout_s=300)
    mirrored = next(r for r in report.results if r.extra.get("strategy") == "mirrored")
    assert mirrored.status == "ok"
    assert mirrored.extra["replicas"] == 2
    assert mirrored.extra["scaling_efficiency"] > 0
    assert report.speedups == ()


# --- Keras backends ------------------------------------------------------------------------


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _live_snapshot() -> Snapshot:
    """This environment, probed for real (packages included), without the TensorFlow child."""
    return collect_snapshot(LiveProbes(), include_tensorflow=False)


def with_packages(snapshot: Snapshot, **changes: Any) -> Snapshot:
    return dataclasses.replace(snapshot, packages=dataclasses.replace(snapshot.packages, **changes))


def test_backend_option() -> None:
    assert plan().backends == ("tensorflow",)  # today's behaviour by default
    assert plan(backend="all").backends == ("tensorflow", "jax", "torch")
    assert plan(backend="jax").spec("cpu", "jax")["backend"] == "jax"
    with pytest.raises(GpucheckError, match="--backend 'mxnet'"):
        plan(backend="mxnet")
    with pytest.raises(GpucheckError, match="MirroredStrategy"):
        plan(backend="jax", strategy="mirrored")


def test_child_environment_hides_gpus_the_way_each_backend_honours() -> None:
    jax_cpu = child_environment("jax", "cpu")
    assert (
        jax_cpu["KERAS_BACKEND"],
        jax_cpu["CUDA_VISIBLE_DEVICES"],
        jax_cpu["JAX_PLATFORMS"],
    ) == (
        "jax",
        "-1",
        "cpu",
    )
    torch_cpu = child_environment("torch", "cpu")
    assert torch_cpu["CUDA_VISIBLE_DEVICES"] == "-1"
    assert child_environment("tensorflow", "gpu")["KERAS_BACKEND"] == "tensorflow"


def test_backends_not_installed_are_skipped_with_the_reason() -> None:
    base = scenario("real-cpu-only-tf-2.21-no-driver")
    none = with_packages(base, other_frameworks=())
    tiny = make_plan(**{**DEFAULTS, "device": "cpu", "workloads": ["mlp"], "backend": "all"})
    report = run(
        dataclasses.replace(tiny, backends=("jax", "torch")),
        none,
        gpu_reason=None,
        python="/envs/x/bin/python",
    )
    assert {(r.backend, r.status, r.reason) for r in report.results} == {
        ("jax", "skipped", "jax is not installed in /envs/x/bin/python"),
        ("torch", "skipped", "torch is not installed in /envs/x/bin/python"),
    }
    keras2 = with_packages(
        base,
        keras="2.15.0",
        other_frameworks=(Distribution("jax", "0.4.30"), Distribution("jaxlib", "0.4.30")),
    )
    assert backend_missing(keras2, "jax", "python") == (
        "keras 2.15.0 runs on TensorFlow only; the JAX backend needs Keras 3"
    )
    no_tf = with_packages(base, tensorflow=())
    assert backend_missing(no_tf, "tensorflow", "py") == "tensorflow is not installed in py"
    console = make_console()
    with console.capture() as capture:
        console.print(render_report(report))
    assert "jax: skipped: jax is not installed in /envs/x/bin/python" in capture.get()


def test_cli_backend_not_installed_says_so_and_exits_1(run_cli: Any) -> None:
    source = with_packages(
        scenario("two-a100"), other_frameworks=(Distribution("torch", "2.13.0"),)
    )
    result = run_cli(
        ["bench", "--backend", "jax", "--device", "cpu", "--quick"], SnapshotProbes(source)
    )
    assert result.exit_code == 1
    assert "jax: skipped: jax is not installed in" in result.stdout


def test_rankings_put_the_backends_side_by_side_fastest_first() -> None:
    rows = [
        dataclasses.replace(result("cpu", "mlp", 20_000, 19_000, 21_000), backend="tensorflow"),
        dataclasses.replace(result("cpu", "mlp", 30_000, 29_000, 31_000), backend="jax"),
        dataclasses.replace(result("cpu", "mlp", 15_000, 14_000, 16_000), backend="torch"),
        dataclasses.replace(result("gpu", "mlp", 300_000, 200_000, 310_000), backend="jax"),
        dataclasses.replace(result("gpu", "mlp", 290_000, 280_000, 295_000), backend="torch"),
    ]
    cpu, gpu = rankings(rows)
    assert (cpu.device, cpu.backends, cpu.fastest, cpu.clear) == (
        "cpu",
        ("jax", "tensorflow", "torch"),
        "jax",
        True,
    )
    assert (gpu.fastest, gpu.clear) == ("jax", False)  # 200k-310k overlaps 280k-295k
    jax_speedup, torch_speedup = speedups(rows)
    assert jax_speedup.backend == "jax"
    assert jax_speedup.median == pytest.approx(10.0)
    assert torch_speedup.backend == "torch"
    report = BenchReport(
        {}, plan(backend="all"), tuple(rows), tuple(speedups(rows)), (), None, tuple(rankings(rows))
    )
    console = make_console()
    with console.capture() as capture:
        console.print(render_report(report))
    out = capture.get()
    assert (
        "cpu mlp: JAX 30.0k, TensorFlow 20.0k, PyTorch 15.0k samples/s: JAX is fastest, 1.50x the next"
        in out
    )
    assert (
        "gpu mlp: JAX 300.0k, PyTorch 290.0k samples/s: JAX leads by 1.03x, within the windows' spread"
        in out
    )
    assert "mlp: the GPU trains 10.0x faster than the CPU on JAX" in out


@pytest.mark.slow
@pytest.mark.skipif(not _has("jax"), reason="jax is not installed in this Python")
def test_a_tiny_real_jax_run_on_this_cpu() -> None:
    _tiny_real_run("jax")


@pytest.mark.slow
@pytest.mark.skipif(not _has("torch"), reason="torch is not installed in this Python")
def test_a_tiny_real_torch_run_on_this_cpu() -> None:
    _tiny_real_run("torch")


def _tiny_real_run(backend: str) -> None:
    tiny = BenchPlan(
        workloads=("mlp",),
        backends=(backend,),
        devices=("cpu",),
        batch_size=32,
        steps=4,
        repeats=2,
        warmup_steps=2,
    )
    events: list[tuple[str, str, int, int]] = []
    report = run(
        tiny,
        _live_snapshot(),
        gpu_reason=None,
        timeout_s=300,
        progress=lambda *event: events.append(event),
    )
    mlp = next(r for r in report.results if r.workload == "mlp")
    matmul = next(r for r in report.results if r.workload == "matmul")
    assert mlp.status == "ok", mlp.reason
    assert (mlp.backend, matmul.backend) == (backend, backend)
    assert len(mlp.windows_s) == 2
    assert mlp.first_step_s is not None
    assert mlp.samples_per_s_min is not None
    assert mlp.samples_per_s_max is not None
    assert mlp.samples_per_s is not None
    assert mlp.samples_per_s_min <= mlp.samples_per_s <= mlp.samples_per_s_max
    assert mlp.extra["flops_per_sample"] == 3 * 2 * (784 * 512 + 512 * 512 + 512 * 10)
    assert (
        f"converted to {'jax arrays' if backend == 'jax' else 'torch tensors'}"
        in mlp.extra["input_pipeline"]
    )
    assert mlp.input_samples_per_s is not None
    assert mlp.input_samples_per_s > 0
    assert matmul.gflops is not None
    assert matmul.gflops > 0
    assert mlp.share_of_ceiling == pytest.approx((mlp.gflops or 0) / matmul.gflops)
    assert (f"{backend} cpu", "mlp", 2, 2) in events
    facts = report.fingerprint["backends"][backend]
    assert facts["version"]
    assert facts["keras"].startswith("3.")
    if backend == "torch":
        assert facts["cuda"] is None or facts["cuda"][0].isdigit()
    # the GPU run on a machine without one: the backend's own words
    live = _live_snapshot()
    if not live.nvml.gpus:
        gpu = run(dataclasses.replace(tiny, devices=("gpu",)), live, gpu_reason=None)
        (unavailable,) = gpu.results
        assert unavailable.status == "unavailable"
        assert unavailable.reason is not None
        assert unavailable.reason.startswith(("JAX sees no GPU: ", "PyTorch sees no GPU: "))


def test_bench_says_why_the_gpu_did_not_run_once() -> None:
    why = "no NVIDIA driver; the fix: gpucheck doctor"
    report = BenchReport(
        {},
        __import__("tests.test_bench", fromlist=["plan"]).plan(),
        (BenchResult("gpu", "mlp", "unavailable", why),),
        (),
        (),
        why,
    )
    console = make_console()
    console.width = 200
    with console.capture() as capture:
        console.print(render_report(report))
    assert capture.get().count("the fix: gpucheck doctor") == 1, capture.get()
