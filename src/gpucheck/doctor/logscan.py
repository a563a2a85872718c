"""TensorFlow's start-up log, line by line: actionable, harmless noise, or context.

Rules match the message text (not the source file, whose path changes between releases).
The wording comes from TensorFlow's, XLA's and TSL's sources: gpu_device.cc, cudart_stub.cc,
cuda_platform.cc / cuda_diagnostics.cc, dso_loader.cc, cuda_dnn.cc, bfc_allocator.cc,
nvptx_compiler.cc, port.cc, cpu_feature_guard.cc.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["actionable", "harmless", "no_gpu", "good"]
"""``no_gpu`` lines are harmless on a CPU-only machine and actionable where a GPU is expected."""

# Two prefixes: the classic TF logger ("2024-01-01 10:00:00.123456: W tensorflow/...cc:42] msg")
# and abseil's, used by XLA/TSL since TF 2.17 ("W0000 00:00:1731000000.123456   4242 file.cc:42] msg").
_CLASSIC = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+: ([IWEF]) (\S+?):(\d+)\] ?(.*)$")
_ABSL = re.compile(r"^([IWEF])\d{4} \d{2}:\d{2}:\d+\.\d+\s+\d+ (\S+?):(\d+)\] ?(.*)$")


@dataclass(frozen=True)
class Rule:
    id: str
    pattern: re.Pattern[str]
    kind: Kind
    explanation: str
    cause: str | None = None


def _rule(id: str, pattern: str, kind: Kind, explanation: str, cause: str | None = None) -> Rule:
    return Rule(id, re.compile(pattern), kind, explanation, cause)


RULES: tuple[Rule, ...] = (
    # --- what the user must act on -------------------------------------------------------
    _rule(
        "dlopen_failed",
        r"Could not load dynamic library '(?!libnvinfer|libnvrtc|nvinfer)",
        "actionable",
        "a CUDA library TensorFlow needs was not found or did not load: the GPU will not be used",
        "cuda_libs_missing",
    ),
    _rule(
        "gpu_libs_missing",
        r"Cannot dlopen some GPU libraries",
        "actionable",
        "TensorFlow skipped registering the GPU because a CUDA library did not load",
        "cuda_libs_missing",
    ),
    _rule(
        "cc_ignored",
        r"Ignoring visible gpu device",
        "actionable",
        "this GPU's compute capability is below what this TensorFlow build supports: TensorFlow ignores it",
        "compute_capability_too_old",
    ),
    _rule(
        "ptx_jit",
        r"not built with CUDA kernel binaries compatible with compute capability",
        "actionable",
        "no binary kernels for this GPU: the driver JIT-compiles PTX on first use, which can take 30 minutes or more",
        "ptx_jit_required",
    ),
    _rule(
        "driver_insufficient",
        r"driver version is insufficient for CUDA runtime version",
        "actionable",
        "the NVIDIA driver is older than the CUDA version TensorFlow was built with",
        "driver_too_old",
    ),
    _rule(
        "driver_mismatch",
        r"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH|does not match DSO version",
        "actionable",
        "the loaded kernel module and the driver's libraries have different versions: reboot",
        "nvml_driver_mismatch",
    ),
    _rule(
        "driver_older_than_ptxas",
        r"older than the (PTX compiler|ptxas CUDA) version",
        "actionable",
        "the driver is older than XLA's PTX compiler: XLA falls back to slower compilation paths",
        "driver_too_old",
    ),
    _rule(
        "cudnn_version",
        r"Loaded runtime CuDNN library:",
        "actionable",
        "the cuDNN found at run time does not match the one TensorFlow was built with",
        "cudnn_version_mismatch",
    ),
    _rule(
        "cudnn_missing",
        r"DNN library is not found|DNN library initialization failed|Could not create cudnn handle",
        "actionable",
        "cuDNN could not be loaded or initialised (missing cuDNN, a driver too old, or no GPU memory left)",
        "cudnn_missing",
    ),
    _rule(
        "libdevice",
        r"libdevice not found|Can't find libdevice directory|libdevice is required by this HLO module",
        "actionable",
        "XLA cannot find libdevice.10.bc: jit_compile and some GPU ops fail",
        "xla_libdevice_missing",
    ),
    _rule(
        "ptxas",
        r"Couldn't invoke ptxas|Can't find ptxas binary|Couldn't get ptxas version|Failed to launch ptxas",
        "actionable",
        "XLA cannot run ptxas: it falls back to the driver's compiler or fails",
        "xla_ptxas_missing",
    ),
    _rule(
        "oom",
        r"ran out of memory trying to allocate .*\(rounded to|OOM when allocating tensor|CUDA_ERROR_OUT_OF_MEMORY",
        "actionable",
        "the GPU ran out of memory: another process holds it, or the batch is too large",
        "gpu_out_of_memory",
    ),
    _rule(
        "gpu_busy",
        r"CUDA_ERROR_DEVICE_UNAVAILABLE|busy or unavailable",
        "actionable",
        "a GPU is in exclusive-process compute mode and another process holds it",
        "gpu_busy",
    ),
    _rule(
        "no_kernel_image",
        r"no kernel image is available for execution on the device|CUDA_ERROR_NO_BINARY_FOR_GPU",
        "actionable",
        "this build has no kernels (and no usable PTX) for this GPU's compute capability",
        "compute_capability_unsupported",
    ),
    _rule(
        "no_avx",
        r"compiled to use AVX instructions, but these aren't available",
        "actionable",
        "this CPU lacks AVX, which official TensorFlow wheels require",
        "cpu_unsupported",
    ),
    # --- no GPU: fine on a CPU-only machine, a problem where a GPU is expected ------------
    _rule(
        "no_cudart",
        r"Could not find cuda drivers on your machine",
        "no_gpu",
        "TensorFlow could not load the CUDA runtime and driver (libcudart / libcuda): it runs on the CPU",
        "cuda_libs_missing",
    ),
    _rule(
        "cudart_dlerror",
        r"Ignore above cudart dlerror",
        "no_gpu",
        "libcudart did not load: it runs on the CPU",
        "cuda_libs_missing",
    ),
    _rule(
        "cuinit_303",
        r"failed call to cuInit: .*UNKNOWN ERROR \(303\)",
        "no_gpu",
        "libcuda.so.1 (the NVIDIA driver's library) is not installed",
        "no_nvidia_driver",
    ),
    _rule(
        "cuinit_no_device",
        r"failed call to cuInit: .*CUDA_ERROR_NO_DEVICE",
        "no_gpu",
        "the driver is loaded but shows no GPU to this process (CUDA_VISIBLE_DEVICES, container flags)",
        "gpu_hidden_by_env",
    ),
    _rule(
        "cuinit_other",
        r"failed call to cuInit",
        "no_gpu",
        "CUDA could not be initialised",
        "no_nvidia_driver",
    ),
    _rule(
        "kernel_driver",
        r"kernel driver does not appear to be running on this host",
        "no_gpu",
        "the NVIDIA kernel module is not loaded",
        "no_nvidia_driver",
    ),
    # --- good news --------------------------------------------------------------------------
    _rule(
        "created_device",
        r"Created device /job:.*device:GPU|Created TensorFlow device .*GPU",
        "good",
        "TensorFlow created a GPU device",
    ),
    _rule("cudnn_loaded", r"Loaded cuDNN version", "good", "cuDNN loaded"),
    # --- harmless noise ---------------------------------------------------------------------
    _rule(
        "factory",
        r"Unable to register (cuDNN|cuFFT|cuBLAS) factory",
        "harmless",
        "harmless: TensorFlow and XLA both register the CUDA plugins; the second registration is refused",
    ),
    _rule(
        "placer",
        r"computation placer already registered",
        "harmless",
        "harmless: a duplicate registration between TensorFlow and XLA",
    ),
    _rule(
        "absl",
        r"All log messages before absl::InitializeLog\(\) is called",
        "harmless",
        "harmless: abseil's notice that early log lines go to stderr",
    ),
    _rule(
        "tensorrt",
        r"Could not find TensorRT|TF-TRT Warning|Cannot dlopen some TensorRT libraries|libnvinfer",
        "harmless",
        "harmless: TensorRT is optional, only TF-TRT inference conversion uses it",
    ),
    _rule(
        "numa",
        r"NUMA node|NUMA support",
        "harmless",
        "harmless: the kernel reports no NUMA node for the GPU (common in VMs, containers and WSL2)",
    ),
    _rule(
        "onednn",
        r"oneDNN custom operations are on",
        "harmless",
        "harmless: CPU ops use oneDNN, results may differ in the last bits (TF_ENABLE_ONEDNN_OPTS=0 turns it off)",
    ),
    _rule(
        "cpu_guard",
        r"binary is optimized to use available CPU instructions|To enable the following instructions|"
        r"Your CPU supports instructions that this TensorFlow binary was not compiled to use",
        "harmless",
        "harmless: a CPU-speed notice; it says nothing about the GPU",
    ),
    _rule("delay_kernel", r"Skipping the delay kernel", "harmless", "harmless: a profiling detail"),
    _rule(
        "xla_service",
        r"XLA service 0x|StreamExecutor device \(",
        "harmless",
        "harmless: XLA lists its devices",
    ),
    _rule(
        "soft_oom",
        r"with freed_by_count=",
        "harmless",
        "harmless: the allocator retried after freeing memory (not an out-of-memory error)",
    ),
)


@dataclass(frozen=True)
class LogLine:
    text: str
    severity: str | None
    """I, W, E or F from the prefix; None for continuation lines."""
    message: str
    rule: Rule | None

    @property
    def kind(self) -> Kind | None:
        return self.rule.kind if self.rule else None


def parse(line: str) -> tuple[str | None, str]:
    for pattern in (_CLASSIC, _ABSL):
        match = pattern.match(line)
        if match:
            return match.group(1), match.group(4)
    return None, line


def classify(lines: tuple[str, ...] | list[str]) -> list[LogLine]:
    """Every line with the first rule that matches it (or none)."""
    out = []
    for line in lines:
        severity, message = parse(line)
        rule = next((r for r in RULES if r.pattern.search(message)), None)
        out.append(LogLine(line, severity, message, rule))
    return out
