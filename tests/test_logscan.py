"""TensorFlow's log lines: both prefixes parse; real lines land in the right class."""

from __future__ import annotations

import pytest

from gpucheck.doctor import logscan
from tests.conftest import scenario


def test_both_prefix_formats_parse() -> None:
    classic = "2023-04-09 00:51:01.990321: I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU will not be used."
    absl = "I0000 00:00:1795275202.777031    2930 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used."
    for line in (classic, absl):
        severity, message = logscan.parse(line)
        assert severity == "I"
        assert message == "Could not find cuda drivers on your machine, GPU will not be used."
    assert logscan.parse("To enable the following instructions: AVX2 FMA") == (
        None,
        "To enable the following instructions: AVX2 FMA",
    )


@pytest.mark.parametrize(
    ("line", "rule", "kind"),
    [
        (
            "2021-03-01 10:00:00.000000: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or directory",
            "dlopen_failed",
            "actionable",
        ),
        (
            "2021-03-01 10:00:00.000000: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file",
            "tensorrt",
            "harmless",
        ),
        (
            "E0000 00:00:1731000000.100000    4242 cuda_dnn.cc:8310] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
            "factory",
            "harmless",
        ),
        (
            "2023-11-14 10:00:00.123456: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT",
            "tensorrt",
            "harmless",
        ),
        (
            "I0000 00:00:1731000000.100000    4242 cuda_executor.cc:1015] successful NUMA node read from SysFS had negative value (-1), but there must be at least one NUMA node, so returning NUMA node zero.",
            "numa",
            "harmless",
        ),
        (
            "2022-01-01 00:00:00.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1934] Ignoring visible gpu device (device: 0, name: Tesla K20m, pci bus id: 0000:03:00.0, compute capability: 3.5) with Cuda compute capability 3.5. The minimum required Cuda capability is 5.0.",
            "cc_ignored",
            "actionable",
        ),
        (
            "E0000 00:00:1795275204.395636    2930 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)",
            "cuinit_303",
            "no_gpu",
        ),
        (
            "2024-01-01 00:00:00.000000: W tensorflow/tsl/framework/bfc_allocator.cc:485] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.00GiB (rounded to 1073741824)requested by op MatMul",
            "oom",
            "actionable",
        ),
        (
            "2024-01-01 00:00:00.000000: W tensorflow/tsl/framework/bfc_allocator.cc:296] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.1GiB with freed_by_count=0. The caller indicates that this is not a failure",
            "soft_oom",
            "harmless",
        ),
        (
            "I0000 00:00:1731000003.000000    4242 gpu_device.cc:2020] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 79078 MB memory:  -> device: 0, name: NVIDIA A100-SXM4-80GB, pci bus id: 0000:07:00.0, compute capability: 8.0",
            "created_device",
            "good",
        ),
        (
            "W0000 00:00:1731000000.100000    4242 gpu_device.cc:2341] TensorFlow was not built with CUDA kernel binaries compatible with compute capability 9.0. CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer.",
            "ptx_jit",
            "actionable",
        ),
    ],
)
def test_real_lines_are_classified(line: str, rule: str, kind: str) -> None:
    (classified,) = logscan.classify([line])
    assert classified.rule is not None
    assert classified.rule.id == rule
    assert classified.kind == kind


def test_the_real_recording_has_nothing_actionable_but_says_why_no_gpu() -> None:
    lines = logscan.classify(scenario("real-cpu-only-tf-2.21-no-driver").tensorflow.log)
    assert not [line for line in lines if line.kind == "actionable"]
    assert {line.rule.id for line in lines if line.kind == "no_gpu" and line.rule} == {
        "no_cudart",
        "cuinit_303",
    }
    assert all(line.rule is not None for line in lines)  # every line of a real start-up is known
