"""The knowledge base of the log scanner: one rule per line shape TensorFlow and its neighbours print.

Each rule says what a line means (``explanation``), how much it matters (``kind``), which cause
code it is evidence for (``cause``, the codes of README.md's "Cause codes" table) and where its
wording comes from (``source``: repository and file, with the TensorFlow releases whose log shows
that path where we know them from a real run or a public report). Every rule has at least one
example in tests/data/logs/examples.yaml, each tagged with where it came from.

Rules are tried in order and the first match wins, so specific rules come before general ones
(``libcuda.so.1`` before any other library, cuDNN before other CUDA libraries, and so on).
Patterns match the message text, never the logging prefix or the source path, because the same
message moved between files and prefixes across releases. ``keys`` are words of which at least
one occurs in every line the pattern matches: the scanner only tries a rule on a line that
contains one of its keys (a test checks every example against this).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["actionable", "harmless", "no_gpu", "good", "context"]
"""How much a line matters.

- ``actionable``: something to fix.
- ``no_gpu``: harmless on a machine without an NVIDIA GPU or driver, actionable where one is expected.
- ``harmless``: known noise.
- ``good``: evidence that a part works.
- ``context``: states a fact (a device, a host name, a version) that is neither good nor bad.
"""


@dataclass(frozen=True)
class Rule:
    id: str
    pattern: re.Pattern[str]
    kind: Kind
    explanation: str
    cause: str | None
    source: str
    """Where the wording comes from: repository and file (and the releases, where known)."""
    keys: tuple[str, ...]
    """Words (runs of ASCII letters, digits and _) of which at least one occurs in every line the
    pattern matches: the scanner only tries a rule on a line that contains one of its keys."""


def _rule(
    id: str,
    kind: Kind,
    cause: str | None,
    pattern: str,
    keys: tuple[str, ...],
    explanation: str,
    source: str,
) -> Rule:
    return Rule(id, re.compile(pattern), kind, explanation, cause, source, keys)


# --- where the wording lives, by release --------------------------------------------------------
# Paths are those TensorFlow's own log prefix shows; the releases are those of the recordings in
# tests/data/logs/real (2.10, 2.11, 2.13, 2.15, 2.21) or of a public report that names its version.

_DSO_LOADER = (
    "tensorflow/tensorflow: tensorflow/stream_executor/platform/default/dso_loader.cc (2.0-2.10), "
    "tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc (2.11); "
    "openxla/xla: xla/tsl/platform/default/dso_loader.cc (current; VLOG(1) only, so the "
    "2.13, 2.15 and 2.21 recordings show no such line)"
)
_CUDART_STUB = (
    "tensorflow/tensorflow: tensorflow/stream_executor/cuda/cudart_stub.cc (2.0-2.10), "
    "tensorflow/compiler/xla/stream_executor/cuda/cudart_stub.cc (2.11), "
    "tensorflow/tsl/cuda/cudart_stub.cc (2.13); openxla/xla: xla/tsl/cuda/cudart_stub.cc "
    "(logged as external/local_tsl/tsl/cuda/cudart_stub.cc in 2.15, cudart_stub.cc in 2.21)"
)
_CUDA_DRIVER = (
    "tensorflow/tensorflow: tensorflow/stream_executor/cuda/cuda_driver.cc (2.0-2.10), "
    "tensorflow/compiler/xla/stream_executor/cuda/cuda_driver.cc (2.11); openxla/xla: "
    "xla/stream_executor/cuda/cuda_driver.cc, xla/stream_executor/cuda/cuda_platform.cc (2.21)"
)
_CUDA_DIAGNOSTICS = (
    "tensorflow/tensorflow: tensorflow/stream_executor/cuda/cuda_diagnostics.cc (2.0-2.10), "
    "tensorflow/compiler/xla/stream_executor/cuda/cuda_diagnostics.cc (2.11); "
    "openxla/xla: xla/stream_executor/cuda/cuda_diagnostics.cc"
)
_CUDA_DNN = (
    "tensorflow/tensorflow: tensorflow/stream_executor/cuda/cuda_dnn.cc (2.0-2.10), "
    "tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc (2.11-2.13); "
    "openxla/xla: xla/stream_executor/cuda/cuda_dnn.cc (external/local_xla in 2.14-2.16)"
)
_GPU_DEVICE = "tensorflow/tensorflow: tensorflow/core/common_runtime/gpu/gpu_device.cc (2.0-2.21)"
_GPU_EXECUTOR = (
    "tensorflow/tensorflow: tensorflow/stream_executor/cuda/cuda_gpu_executor.cc (2.0-2.10), "
    "tensorflow/compiler/xla/stream_executor/cuda/cuda_gpu_executor.cc (2.11-2.13); "
    "openxla/xla: xla/stream_executor/cuda/cuda_executor.cc"
)
_ASM_COMPILER = (
    "tensorflow/tensorflow: tensorflow/stream_executor/gpu/asm_compiler.cc (2.3-2.10), "
    "tensorflow/compiler/xla/stream_executor/gpu/asm_compiler.cc (2.11-2.13); "
    "openxla/xla: xla/stream_executor/gpu/asm_compiler.cc, later "
    "xla/stream_executor/cuda/cuda_asm_compiler.cc"
)
_CONTEXT_PY = "tensorflow/tensorflow: tensorflow/python/eager/context.py (2.0-2.21)"
_PIP_FACTORY = (
    "pypa/pip: src/pip/_internal/resolution/resolvelib/factory.py (20.3+), "
    "src/pip/_internal/index/package_finder.py (all)"
)
_CPYTHON_IMPORT = "python/cpython: Lib/importlib/_bootstrap.py (_ERR_MSG_PREFIX 'No module named ')"
_CUDA_ERRORS = (
    "NVIDIA CUDA Driver API reference, CUresult / cudaError_t "
    "(docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html)"
)

# Library names in a dlopen or ImportError line.
_CUDA_LIB = (
    r"lib(?:cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvrtc|nvJitLink|cupti|nccl)"
    r"[\w.]*\.so[.\d]*"
)

RULES: tuple[Rule, ...] = (
    # === installing: pip, imports, Python ========================================================
    _rule(
        "tensorflow_gpu_removed",
        "actionable",
        "tensorflow_gpu_deprecated",
        r'The "tensorflow-gpu" package has been removed',
        ("removed",),
        "the tensorflow-gpu name is a stub since 2.12 that refuses to build: install tensorflow "
        '(on Linux: pip install "tensorflow[and-cuda]") instead',
        "PyPI: tensorflow-gpu 2.12.0 sdist, setup.py (TF_REMOVAL_WARNING)",
    ),
    _rule(
        "pip_python_mismatch",
        "actionable",
        "python_unsupported",
        r"Ignored the following versions that require a different python version",
        ("Ignored",),
        "pip skipped releases whose Requires-Python excludes this interpreter: this Python is "
        "too new or too old for those TensorFlow releases",
        "pypa/pip: src/pip/_internal/resolution/resolvelib/factory.py (22.1+)",
    ),
    _rule(
        "pip_no_version",
        "actionable",
        "install_resolution_failed",
        r"Could not find a (?:final )?version that satisfies the requirement (?P<lib>\S+)",
        ("satisfies",),
        "no build of the requested release exists for this Python version, OS or CPU: compare "
        '"from versions:" with what you asked for (an empty list or one that stops short usually '
        "means an unsupported Python)",
        _PIP_FACTORY,
    ),
    _rule(
        "pip_no_distribution",
        "actionable",
        "install_resolution_failed",
        r"No matching distribution found for (?P<lib>\S+)",
        ("distribution",),
        "pip found no installable file for this requirement on this Python, OS and CPU",
        _PIP_FACTORY,
    ),
    _rule(
        "pip_no_extra",
        "actionable",
        "install_resolution_failed",
        r"(?P<lib>\S+) (?P<version>\S+) does not provide the extra '(?P<extra>[^']+)'",
        ("extra",),
        "the requested extra does not exist for this release: tensorflow[and-cuda] exists from "
        "2.14 and installs CUDA wheels on Linux only, so no CUDA libraries were installed",
        "pypa/pip: src/pip/_internal/resolution/resolvelib/candidates.py, "
        "src/pip/_internal/resolution/legacy/resolver.py",
    ),
    _rule(
        "pip_conflict",
        "actionable",
        "install_resolution_failed",
        r"because these package versions have conflicting dependencies|ResolutionImpossible",
        ("conflicting", "ResolutionImpossible"),
        "pip could not find versions that satisfy every requirement at once (the lines after it "
        "name the conflict)",
        "pypa/pip: src/pip/_internal/resolution/resolvelib/factory.py (20.3+)",
    ),
    _rule(
        "tf_not_installed",
        "actionable",
        "tf_not_installed",
        r"No module named '?tensorflow'?\s*$",
        ("module",),
        "this Python has no TensorFlow (or another interpreter/environment is active)",
        _CPYTHON_IMPORT,
    ),
    _rule(
        "keras_src_missing",
        "actionable",
        "keras_mismatch",
        r"No module named '(?P<lib>keras\.src\.engine|keras\.src|keras\.engine|tf_keras)[\w.]*'",
        ("module",),
        "code written for another Keras: keras.src.engine exists only in Keras 2.13-2.15, "
        "keras.src only from 2.13, and tf_keras is the separate Keras 2 package for TF >= 2.16",
        _CPYTHON_IMPORT,
    ),
    _rule(
        "legacy_keras_missing",
        "actionable",
        "keras_mismatch",
        r"TF_USE_LEGACY_KERAS set to True, but you do not have the tf_keras package installed",
        ("TF_USE_LEGACY_KERAS",),
        "TF_USE_LEGACY_KERAS asks for Keras 2 but tf-keras is not installed: "
        'pip install "tf-keras~=<TensorFlow major.minor>.0"',
        "tensorflow/tensorflow: tensorflow/python/util/lazy_loader.py (2.16+)",
    ),
    _rule(
        "keras3_legacy_api",
        "actionable",
        "keras_mismatch",
        r"is not (?:supported|available) (?:in|with) Keras 3",
        ("Keras",),
        "Keras 3 (the default since TF 2.16) dropped this Keras 2 API: install tf-keras and set "
        "TF_USE_LEGACY_KERAS=1, or port the code",
        "keras-team/keras: keras/src/optimizers/__init__.py; tensorflow/tensorflow: "
        "tensorflow/python/util/lazy_loader.py (2.16+)",
    ),
    _rule(
        "transformers_keras3",
        "actionable",
        "keras_mismatch",
        r"installed version of Keras is Keras 3, but this is not yet supported",
        ("Keras",),
        "Hugging Face Transformers' TensorFlow models need Keras 2: pip install tf-keras",
        "huggingface/transformers: src/transformers/activations_tf.py",
    ),
    _rule(
        "keras_not_importable",
        "actionable",
        "keras_mismatch",
        r"Keras cannot be imported\. Check that it is installed",
        ("Keras",),
        "tf.keras needs the keras package (Keras 3 for TF >= 2.16) and it did not import",
        "tensorflow/tensorflow: tensorflow/python/util/lazy_loader.py (2.16+)",
    ),
    # --- NumPy ABI ----------------------------------------------------------------------------
    _rule(
        "numpy2_abi",
        "actionable",
        "numpy_incompatible",
        r"A module that was compiled using NumPy 1\.x cannot be run in",
        ("NumPy",),
        'NumPy 2 with a TensorFlow built against NumPy 1 (TF <= 2.17): pip install "numpy<2", '
        "or a TensorFlow >= 2.18",
        "numpy/numpy: numpy/core/_multiarray_umath.py (NumPy 2.x)",
    ),
    _rule(
        "numpy_array_api",
        "actionable",
        "numpy_incompatible",
        r"_ARRAY_API not found",
        ("_ARRAY_API",),
        "a module compiled against NumPy 1 was loaded with NumPy 2 (usually TF <= 2.17): "
        'pip install "numpy<2"',
        "numpy/numpy: numpy/core/code_generators/generate_numpy_api.py (NumPy 1.x import_array "
        "template, compiled into the extension)",
    ),
    _rule(
        "numpy_api_version",
        "actionable",
        "numpy_incompatible",
        r"module compiled against (?:API|ABI) version 0x[0-9a-fA-F]+ but this version of numpy is",
        ("compiled",),
        "the installed NumPy is older than the one TensorFlow was compiled against: upgrade "
        "NumPy within TensorFlow's pin",
        "numpy/numpy: numpy/core/code_generators/generate_numpy_api.py (import_array template)",
    ),
    _rule(
        "numpy_import_failed",
        "actionable",
        "numpy_incompatible",
        r"numpy\.core\.(?:_multiarray_umath|multiarray|umath) failed to import",
        ("numpy",),
        "a compiled module could not use the installed NumPy (version mismatch; see the lines "
        "above it)",
        "numpy/numpy: numpy/core/code_generators/generate_numpy_api.py, generate_ufunc_api.py",
    ),
    _rule(
        "pybind11_return_value",
        "actionable",
        "numpy_incompatible",
        r"Unable to convert function return value to a Python type",
        ("convert",),
        "in `import tensorflow` (tensorflow/python/framework/dtypes.py, the bfloat16 type) this "
        "means NumPy does not match the one TensorFlow was built against",
        "pybind11/pybind11: include/pybind11/pybind11.h",
    ),
    # --- importing TensorFlow (tracebacks) ------------------------------------------------------
    _rule(
        "msvc_runtime_missing",
        "actionable",
        "msvc_runtime_missing",
        r"Could not find the DLL\(s\) '(?P<lib>[^']+)'",
        ("DLL",),
        "the Microsoft Visual C++ Redistributable (2015-2019 or newer) is not installed",
        "tensorflow/tensorflow: tensorflow/python/platform/self_check.py (2.1+)",
    ),
    _rule(
        "selfcheck_nvcuda",
        "actionable",
        "no_nvidia_driver",
        r"Could not find '(?P<lib>nvcuda\.dll)'\. TensorFlow requires",
        ("DLL",),
        "nvcuda.dll is the NVIDIA driver's library: the driver is not installed",
        "tensorflow/tensorflow: tensorflow/python/platform/self_check.py (1.x-2.0)",
    ),
    _rule(
        "selfcheck_cudnn_dll",
        "actionable",
        "cudnn_missing",
        r"Could not find '(?P<lib>cudnn64_\d*\.dll)'\. TensorFlow requires",
        ("DLL",),
        "cuDNN's DLL of the version this TensorFlow needs is not on PATH",
        "tensorflow/tensorflow: tensorflow/python/platform/self_check.py (1.x-2.0)",
    ),
    _rule(
        "selfcheck_cuda_dll",
        "actionable",
        "cuda_libs_missing",
        r"Could not find '(?P<lib>\w+\.dll)'\. TensorFlow requires that this DLL be installed",
        ("DLL",),
        "the CUDA DLL of the exact version this TensorFlow needs is not on PATH (a newer CUDA "
        "has a different DLL name)",
        "tensorflow/tensorflow: tensorflow/python/platform/self_check.py (1.x-2.0)",
    ),
    _rule(
        "dll_load_failed",
        "actionable",
        "tf_import_failed",
        r"DLL load failed(?: while importing (?P<lib>\w+))?:",
        ("DLL",),
        "Windows could not load a DLL the extension needs: the Visual C++ Redistributable, a "
        "CUDA/cuDNN DLL (TF <= 2.10 GPU builds), a CPU without AVX, or a broken install",
        "python/cpython: Python/dynload_win.c ('DLL load failed while importing %U: %s' 3.8+, "
        "'DLL load failed: %s' up to 3.7)",
    ),
    _rule(
        "native_runtime_failed",
        "actionable",
        "tf_import_failed",
        r"Failed to load the native TensorFlow runtime",
        ("native",),
        "TensorFlow's C++ core did not load: the real reason is the ImportError just above",
        "tensorflow/tensorflow: tensorflow/python/pywrap_tensorflow.py (1.x-2.21)",
    ),
    _rule(
        "importerror_libcuda",
        "actionable",
        "no_nvidia_driver",
        r"(?:ImportError|OSError): (?P<lib>libcuda\.so[.\d]*): cannot open shared object file",
        ("shared",),
        "libcuda.so.1 belongs to the NVIDIA driver, not the CUDA toolkit: the driver is not "
        "installed (or not mounted into this container)",
        "python/cpython: Python/dynload_shlib.c (dlerror text); glibc: dlfcn/dlerror.c",
    ),
    _rule(
        "importerror_cudnn",
        "actionable",
        "cudnn_missing",
        r"(?:ImportError|OSError): (?P<lib>libcudnn[\w.]*\.so[.\d]*): cannot open shared object "
        r"file",
        ("shared",),
        "cuDNN of the version this TensorFlow was linked against is not installed",
        "python/cpython: Python/dynload_shlib.c (dlerror text); glibc: dlfcn/dlerror.c",
    ),
    _rule(
        "importerror_cuda_lib",
        "actionable",
        "cuda_libs_missing",
        r"(?:ImportError|OSError): (?P<lib>" + _CUDA_LIB + r"): cannot open shared object file",
        ("shared",),
        "a CUDA library of the exact major version TensorFlow was linked against (TF 1.x) is "
        "not installed",
        "python/cpython: Python/dynload_shlib.c (dlerror text); glibc: dlfcn/dlerror.c",
    ),
    _rule(
        "tf_library_missing",
        "actionable",
        "tf_install_broken",
        r"(?:ImportError|OSError|NotFoundError): \S*?(?P<lib>_pywrap_tensorflow\w*\.so|"
        r"libtensorflow_framework\.so[.\d]*|libtensorflow_cc\.so[.\d]*): cannot open shared "
        r"object file",
        ("shared",),
        "a shared library of TensorFlow itself is missing: the installation is broken (an "
        "interrupted install, or two installs over each other); reinstall the same version",
        "python/cpython: Python/dynload_shlib.c (dlerror text); glibc: dlfcn/dlerror.c",
    ),
    # === TensorFlow's dlopen of CUDA libraries (dso_loader): no_gpu ============================
    _rule(
        "dlopen_libcuda",
        "no_gpu",
        "no_nvidia_driver",
        r"Could not load dynamic library '(?P<lib>libcuda\.so[.\d]*|nvcuda\.dll)'",
        ("dynamic",),
        "libcuda.so.1 / nvcuda.dll is the NVIDIA driver's library, not part of the CUDA "
        "toolkit: no driver is installed (or it is not mounted into this container or WSL)",
        _DSO_LOADER,
    ),
    _rule(
        "dlopen_tensorrt",
        "harmless",
        None,
        r"Could not load dynamic library '(?P<lib>(?:lib)?nvinfer[\w.]*)'",
        ("dynamic",),
        "harmless: TensorRT is optional, only TF-TRT inference conversion uses it",
        _DSO_LOADER,
    ),
    _rule(
        "dlopen_cudnn",
        "no_gpu",
        "cudnn_missing",
        r"Could not load dynamic library '(?P<lib>libcudnn[\w.]*|cudnn64_\d+\.dll)'",
        ("dynamic",),
        "cuDNN of the major version TensorFlow was built with did not load",
        _DSO_LOADER,
    ),
    _rule(
        "dlopen_failed",
        "no_gpu",
        "cuda_libs_missing",
        r"Could not load dynamic library '(?P<lib>[^']+)'",
        ("dynamic",),
        "a CUDA library TensorFlow needs was not found or did not load (the dlerror names the "
        "real missing file, which can be a dependency)",
        _DSO_LOADER,
    ),
    _rule(
        "dlopen_ok",
        "good",
        None,
        r"[Ss]uccessfully opened (?:dynamic|CUDA) library (?P<lib>[^\s']+)",
        ("opened",),
        "this CUDA library loaded",
        _DSO_LOADER + "; TF 1.x: 'successfully opened CUDA library %s locally'",
    ),
    _rule(
        "cudart_dlerror",
        "no_gpu",
        "cuda_libs_missing",
        r"Ignore above cudart dlerror",
        ("dlerror",),
        "libcudart (the CUDA runtime) did not load: TensorFlow runs on the CPU",
        _CUDART_STUB + " (this wording: 2.0-2.11)",
    ),
    _rule(
        "cudart_not_found",
        "no_gpu",
        "cuda_libs_missing",
        r"Could not find cuda drivers on your machine",
        ("drivers",),
        "despite the words, this is libcudart (the CUDA runtime), not the driver: it did not "
        'load, so TensorFlow runs on the CPU (on Linux, TF >= 2.14: pip install "tensorflow[and-cuda]")',
        _CUDART_STUB + " (this wording: 2.12/2.13-2.21)",
    ),
    _rule(
        "cudart_error_string",
        "no_gpu",
        "cuda_libs_missing",
        r"Error loading CUDA libraries\. GPU will not be used",
        ("loading",),
        "libcudart did not load, so CUDA calls return this error: TensorFlow runs on the CPU",
        "openxla/xla: xla/tsl/cuda/cudart_stub.cc (ReturnStringError)",
    ),
    _rule(
        "gpu_libs_missing",
        "actionable",
        "cuda_libs_missing",
        r"Cannot dlopen some GPU libraries",
        ("dlopen",),
        "the driver shows a GPU but a CUDA library did not load, so TensorFlow skips the GPU "
        "(TF >= 2.13 no longer names the library in the default log)",
        _GPU_DEVICE,
    ),
    _rule(
        "tensorrt",
        "harmless",
        None,
        r"TF-TRT Warning|Could not find TensorRT|Cannot dlopen (?:some|all) TensorRT libraries",
        ("TensorRT", "TRT"),
        "harmless: TensorRT is optional, only TF-TRT inference conversion uses it",
        "tensorflow/tensorflow: tensorflow/compiler/tf2tensorrt/utils/py_utils.cc (2.0-2.17)",
    ),
    # === the driver and cuInit ==================================================================
    _rule(
        "cuinit_303",
        "no_gpu",
        "no_nvidia_driver",
        r"failed call to cuInit: .*UNKNOWN ERROR \(303\)",
        ("cuInit",),
        "libcuda.so.1 (the NVIDIA driver's library) could not be loaded: no driver is installed",
        _CUDA_DRIVER,
    ),
    _rule(
        "cuda_no_device",
        "no_gpu",
        "no_nvidia_gpu",
        r"CUDA_ERROR_NO_DEVICE|no CUDA-capable device is detected",
        ("CUDA_ERROR_NO_DEVICE", "detected"),
        "the driver loaded but this process sees no GPU: CUDA_VISIBLE_DEVICES set to -1, '' or a "
        "missing index, a container started without --gpus, a GPU the kernel module did not "
        "bind, or no NVIDIA GPU at all",
        _CUDA_DRIVER + "; " + _CUDA_ERRORS,
    ),
    _rule(
        "cuinit_unknown",
        "actionable",
        "cuda_init_failed",
        r"failed call to cuInit: .*CUDA_ERROR_UNKNOWN",
        ("cuInit",),
        "the driver is present but CUDA could not start: often after suspend/resume (reload "
        "nvidia_uvm or reboot), a container without /dev/nvidia-uvm, or a driver in a bad state",
        _CUDA_DRIVER,
    ),
    _rule(
        "cuinit_other",
        "no_gpu",
        "cuda_init_failed",
        r"failed call to cuInit",
        ("cuInit",),
        "CUDA could not be initialised: the CUDA error code in the line says why",
        _CUDA_DRIVER,
    ),
    _rule(
        "kernel_driver_not_running",
        "no_gpu",
        "no_nvidia_driver",
        r"kernel driver does not appear to be running on this host",
        ("appear",),
        "the NVIDIA kernel module is not loaded (/proc/driver/nvidia/version does not exist)",
        _CUDA_DIAGNOSTICS,
    ),
    _rule(
        "driver_dso_mismatch",
        "actionable",
        "nvml_driver_mismatch",
        r"does not match DSO version|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
        ("DSO", "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"),
        "the loaded kernel module and the driver's user-space libraries have different versions "
        "(a driver upgrade without a reboot): reboot",
        _CUDA_DIAGNOSTICS + "; " + _CUDA_ERRORS,
    ),
    _rule(
        "cuda_diagnostics",
        "context",
        None,
        r"retrieving CUDA diagnostic information for host|^hostname: \S+$|"
        r"libcuda reported version is|kernel reported version is",
        ("diagnostic", "hostname", "reported"),
        "TensorFlow's diagnosis after a failed cuInit (host name, driver versions)",
        _CUDA_DIAGNOSTICS,
    ),
    _rule(
        "driver_insufficient",
        "actionable",
        "driver_too_old",
        r"driver version is insufficient for CUDA runtime version|CUDA_ERROR_INSUFFICIENT_DRIVER",
        ("insufficient", "CUDA_ERROR_INSUFFICIENT_DRIVER"),
        "the NVIDIA driver is older than the CUDA runtime TensorFlow loads",
        _CUDA_ERRORS,
    ),
    _rule(
        "unsupported_ptx_version",
        "actionable",
        "driver_too_old",
        r"CUDA_ERROR_UNSUPPORTED_PTX_VERSION|the provided PTX was compiled with an unsupported "
        r"toolchain",
        ("CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "toolchain"),
        "the driver is older than the CUDA that produced this PTX (TensorFlow's kernels or "
        "XLA's ptxas): upgrade the driver",
        _CUDA_ERRORS,
    ),
    _rule(
        "driver_older_than_ptxas",
        "actionable",
        "driver_too_old",
        r"older than the (?:PTX compiler|ptxas CUDA) version",
        ("older",),
        "the driver is older than XLA's PTX compiler: XLA falls back to slower compilation paths",
        "openxla/xla: xla/service/gpu/nvptx_compiler.cc",
    ),
    _rule(
        "container_cuda_requirement",
        "actionable",
        "driver_too_old",
        r"unsatisfied condition: cuda ?>= ?(?P<version>\d+(?:\.\d+)*)",
        ("unsatisfied",),
        "the container image needs a newer CUDA than the host driver supports (nvidia-smi's "
        "'CUDA Version'): upgrade the host driver or use an image for an older CUDA",
        "NVIDIA/libnvidia-container: src/cli/dsl.c (dsl_evaluate)",
    ),
    _rule(
        "gpu_busy",
        "actionable",
        "gpu_busy",
        r"busy or unavailable|CUDA_ERROR_DEVICE_UNAVAILABLE|cudaErrorDevicesUnavailable",
        ("busy", "CUDA_ERROR_DEVICE_UNAVAILABLE", "cudaErrorDevicesUnavailable"),
        "CUDA could not use the GPU: its compute mode is exclusive-process or prohibited "
        "(nvidia-smi -q shows it) and another process holds it, or the GPU is in a bad state "
        "(Xid errors, held by another container or VM, a MIG instance not set up)",
        _CUDA_ERRORS,
    ),
    # --- nvidia-smi and NVML ---------------------------------------------------------------
    _rule(
        "smi_no_driver",
        "actionable",
        "no_nvidia_driver",
        r"NVIDIA-SMI has failed because it couldn'?t communicate with the NVIDIA driver",
        ("SMI",),
        "the NVIDIA kernel module is not loaded: no driver, a kernel update without a rebuilt "
        "module (DKMS), Secure Boot refusing an unsigned module, or nouveau holding the GPU",
        "nvidia-smi (closed source); quoted in public reports, e.g. "
        "https://github.com/ci-for-research/self-hosted-runners/issues/40",
    ),
    _rule(
        "nvml_version_mismatch",
        "actionable",
        "nvml_driver_mismatch",
        r"Failed to initialize NVML: Driver/library version mismatch",
        ("NVML",),
        "the driver was upgraded but the old kernel module is still loaded: reboot",
        "NVIDIA NVML API reference, nvmlErrorString(NVML_ERROR_LIB_RM_VERSION_MISMATCH); quoted "
        "in https://github.com/tinygrad/open-gpu-kernel-modules/issues/47",
    ),
    _rule(
        "nvml_library_version",
        "context",
        None,
        r"NVML library version: (?P<version>[\d.]+)",
        ("NVML",),
        "the version of the driver's user-space NVML library (the kernel module may differ)",
        "nvidia-smi (closed source); quoted in "
        "https://github.com/tinygrad/open-gpu-kernel-modules/issues/47",
    ),
    _rule(
        "smi_no_devices",
        "actionable",
        "no_nvidia_gpu",
        r"^No devices were found\s*$",
        ("devices",),
        "the driver is loaded but lists no GPU (GPU not attached to this VM/container, fallen "
        "off the bus, or not supported by this driver)",
        "nvidia-smi (closed source); quoted in "
        "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/862",
    ),
    _rule(
        "smi_not_installed",
        "no_gpu",
        "no_nvidia_driver",
        r"nvidia-smi: (?:command )?not found|No such file or directory: 'nvidia-smi'|"
        r"'nvidia-smi' is not recognized as an internal or external command",
        ("smi",),
        "nvidia-smi is not installed or not on PATH: usually no NVIDIA driver (on WSL2 it lives "
        "in /usr/lib/wsl/lib)",
        "GNU bash: execute_cmd.c ('%s: command not found'); dash: 'not found'; python/cpython: "
        "Lib/subprocess.py (FileNotFoundError)",
    ),
    # === GPUs and compute capability ===============================================================
    _rule(
        "cc_ignored",
        "actionable",
        "compute_capability_too_old",
        r"Ignoring visible gpu device",
        ("Ignoring",),
        "this GPU's compute capability is below what this TensorFlow build supports: TensorFlow "
        "ignores it",
        _GPU_DEVICE,
    ),
    _rule(
        "ptx_jit",
        "actionable",
        "ptx_jit_required",
        r"not built with CUDA kernel binaries compatible with compute capability",
        ("binaries",),
        "no binary kernels for this GPU: the driver JIT-compiles PTX on first use, which can take "
        "30 minutes or more",
        _GPU_DEVICE + " (2.5+)",
    ),
    _rule(
        "no_kernel_image",
        "actionable",
        "compute_capability_unsupported",
        r"no kernel image is available for execution on the device|CUDA_ERROR_NO_BINARY_FOR_GPU",
        ("image", "CUDA_ERROR_NO_BINARY_FOR_GPU"),
        "this build has no kernels (and no usable PTX) for this GPU's compute capability",
        _CUDA_ERRORS,
    ),
    _rule(
        "llvm_unknown_gpu",
        "actionable",
        "compute_capability_unsupported",
        r"'(?P<arch>sm_\d+[a-z]?)' is not a recognized processor for this target",
        ("recognized",),
        "the LLVM inside this TensorFlow/XLA predates this GPU's architecture: XLA-compiled code "
        "can fail on it; a newer TensorFlow is needed",
        "llvm/llvm-project: llvm/lib/MC/MCSubtargetInfo.cpp",
    ),
    _rule(
        "created_device",
        "good",
        None,
        r"Created (?:TensorFlow )?device \(?/job:\S+device:GPU:\d+ with -?\d+ MB memory",
        ("Created",),
        "TensorFlow created a GPU device",
        _GPU_DEVICE + " ('Created TensorFlow device (...) -> physical GPU (...)' up to 2.4, "
        "'Created device ... MB memory:  -> device: ...' from 2.5)",
    ),
    _rule(
        "found_device",
        "context",
        None,
        r"Found device (?P<index>\d+) with properties",
        ("Found",),
        "TensorFlow found a GPU through the driver (the next lines give its name and compute "
        "capability)",
        _GPU_DEVICE + " (2.0-2.4)",
    ),
    _rule(
        "device_properties",
        "context",
        None,
        r"^pciBusID: \S+ name: .+ computeCapability: \d+\.\d+|"
        r"^name: .+ major: \d+ minor: \d+ memoryClockRate|^coreClock: \S+ coreCount: ",
        ("pciBusID", "memoryClockRate", "coreClock"),
        "the properties of the GPU TensorFlow found",
        _GPU_DEVICE + " (2.0-2.4)",
    ),
    _rule(
        "adding_visible_gpus",
        "context",
        None,
        r"Adding visible gpu devices: ",
        ("Adding",),
        "the GPU indices TensorFlow will use",
        _GPU_DEVICE,
    ),
    _rule(
        "device_interconnect",
        "context",
        None,
        r"Device interconnect StreamExecutor with strength",
        ("interconnect",),
        "the peer-to-peer access matrix between GPUs",
        _GPU_DEVICE,
    ),
    _rule(
        "malloc_async",
        "context",
        None,
        r"Using CUDA malloc Async allocator for GPU",
        ("Async",),
        "TF_GPU_ALLOCATOR=cuda_malloc_async is in effect",
        "tensorflow/tensorflow: tensorflow/core/common_runtime/gpu/gpu_process_state.cc",
    ),
    # === cuDNN ======================================================================================
    _rule(
        "cudnn_version_mismatch",
        "actionable",
        "cudnn_version_mismatch",
        r"Loaded runtime CuDNN library: (?P<version>[\d.]+) but source was compiled with",
        ("CuDNN",),
        "the cuDNN found at run time is older than (or a different major from) the one "
        "TensorFlow was built with",
        _CUDA_DNN,
    ),
    _rule(
        "cudnn_not_found",
        "actionable",
        "cudnn_missing",
        r"DNN library is not found",
        ("DNN",),
        "cuDNN did not load",
        _CUDA_DNN,
    ),
    _rule(
        "cudnn_sublibrary",
        "actionable",
        "cudnn_missing",
        r"Could not (?:load|locate) (?:library )?(?P<lib>cudnn_\w+\.dll|libcudnn_\w+\.so[.\d]*|"
        r"zlibwapi\.dll)",
        ("library", "zlibwapi"),
        "part of cuDNN 8 (one of its sub-libraries, or zlibwapi.dll that cuDNN 8.3+ needs on "
        "Windows) did not load",
        "cuDNN (closed source); quoted in https://github.com/tensorflow/tensorflow/issues/54784 "
        "and https://github.com/AlexeyAB/darknet/issues/8551",
    ),
    _rule(
        "cudnn_init_failed",
        "actionable",
        "cudnn_init_failed",
        r"DNN library initialization failed|Could not create cudnn handle|"
        r"Failed to get convolution algorithm\. This is probably because cuDNN failed",
        ("DNN", "cudnn", "cuDNN"),
        "cuDNN loaded but could not start: usually the GPU is out of memory (another process, "
        "or TensorFlow took it all; try memory growth), or a cuDNN/CUDA version mismatch "
        "reported just above",
        _CUDA_DNN + "; tensorflow/tensorflow: tensorflow/core/kernels/conv_ops*.cc",
    ),
    _rule(
        "cudnn_loaded",
        "good",
        None,
        r"Loaded cuDNN version (?P<version>\d+)",
        ("cuDNN",),
        "cuDNN loaded",
        _CUDA_DNN + " (2.5+)",
    ),
    # === XLA, ptxas, libdevice ======================================================================
    _rule(
        "ptxas_too_old",
        "actionable",
        "xla_ptxas_too_old",
        r"ptxas too old\. Falling back to the driver|ptxas does not support CC \d+\.\d+|"
        r"is not defined for option 'gpu-name'|Your CUDA software stack is old",
        ("ptxas", "software"),
        "the ptxas XLA found is older than this GPU: XLA falls back to the driver's slower "
        'compiler or fails; pip install "nvidia-cuda-nvcc-cu12" (or a newer CUDA) and point XLA '
        "at it",
        _ASM_COMPILER,
    ),
    _rule(
        "ptxas_miscompiles",
        "actionable",
        "xla_ptxas_too_old",
        r"You are using ptxas (?P<version>[\d.]+), which is older than",
        ("ptxas",),
        "this ptxas is known to miscompile XLA code: use a newer one",
        _ASM_COMPILER + "; tensorflow/tensorflow: tensorflow/compiler/xla/service/gpu/"
        "nvptx_compiler.cc (up to 2.2)",
    ),
    _rule(
        "ptxas_missing",
        "actionable",
        "xla_ptxas_missing",
        r"Couldn't invoke ptxas|Can't find ptxas binary|Couldn't get ptxas(?:/nvlink)? version|"
        r"Failed to launch ptxas|ptxas not found|No PTX compilation provider is available",
        ("ptxas", "PTX"),
        "XLA cannot run ptxas: it falls back to the driver's compiler or fails",
        _ASM_COMPILER,
    ),
    _rule(
        "ptx_fallback_note",
        "context",
        None,
        r"Relying on driver to perform ptx compilation|Modify \$PATH to customize ptxas location|"
        r"Us(?:ed|ing) ptxas at |Looking for ptxas at ",
        ("ptx", "ptxas"),
        "where XLA looked for ptxas and what it does without it",
        _ASM_COMPILER + "; openxla/xla: xla/stream_executor/gpu/redzone_allocator.cc",
    ),
    _rule(
        "libdevice",
        "actionable",
        "xla_libdevice_missing",
        r"libdevice not found|Can't find libdevice directory|libdevice is required by this HLO "
        r"module",
        ("libdevice",),
        "XLA cannot find libdevice.10.bc: jit_compile and some GPU ops fail",
        "openxla/xla: xla/service/gpu/nvptx_compiler.cc, "
        "xla/service/gpu/llvm_gpu_backend/nvptx_backend.cc",
    ),
    # === memory and device configuration ============================================================
    _rule(
        "soft_oom",
        "harmless",
        None,
        r"with freed_by_count=",
        ("freed_by_count",),
        "harmless: the allocator retried after freeing memory (not an out-of-memory error)",
        "tensorflow/tensorflow: tensorflow/tsl/framework/bfc_allocator.cc; openxla/xla: "
        "xla/tsl/framework/bfc_allocator.cc",
    ),
    _rule(
        "oom",
        "actionable",
        "gpu_out_of_memory",
        r"ran out of memory trying to allocate .*\(rounded to|OOM when allocating tensor|"
        r"CUDA_ERROR_OUT_OF_MEMORY",
        ("memory", "OOM", "CUDA_ERROR_OUT_OF_MEMORY"),
        "the GPU ran out of memory: another process holds it, or the batch is too large",
        "tensorflow/tensorflow: tensorflow/core/common_runtime/bfc_allocator.cc (2.0-2.6), "
        "tensorflow/tsl/framework/bfc_allocator.cc; openxla/xla: xla/tsl/framework/bfc_allocator.cc",
    ),
    _rule(
        "config_after_init",
        "actionable",
        "config_after_init",
        r"(?:Physical|Virtual|Visible) devices cannot be modified after being initialized",
        ("initialized",),
        "tf.config (memory growth, memory limit, visible devices) was called after TensorFlow "
        "had already created its devices: call it first, before any op, model or tf.data use",
        _CONTEXT_PY,
    ),
    _rule(
        "memory_growth_differs",
        "actionable",
        "memory_config_conflict",
        r"Memory growth cannot differ between GPU devices",
        ("growth",),
        "memory growth must be set the same on every visible GPU (or hide the others first)",
        _CONTEXT_PY,
    ),
    _rule(
        "memory_growth_virtual",
        "actionable",
        "memory_config_conflict",
        r"Cannot set memory growth on device when virtual devices configured",
        ("growth",),
        "memory growth and a memory limit / logical devices exclude each other on one GPU",
        _CONTEXT_PY,
    ),
    _rule(
        "memory_growth_not_gpu",
        "actionable",
        "memory_config_conflict",
        r"Cannot set memory growth on non-GPU and non-Pluggable devices",
        ("growth",),
        "memory growth was set on a CPU device: pass the devices of "
        "tf.config.list_physical_devices('GPU')",
        _CONTEXT_PY,
    ),
    _rule(
        "unrecognized_device",
        "actionable",
        "memory_config_conflict",
        r"Unrecognized device: ",
        ("Unrecognized",),
        "tf.config was given something that is not one PhysicalDevice (a list, or a logical "
        "device)",
        _CONTEXT_PY,
    ),
    # === CPU =========================================================================================
    _rule(
        "no_avx",
        "actionable",
        "cpu_unsupported",
        r"compiled to use AVX instructions, but these aren't available",
        ("AVX",),
        "this CPU lacks AVX, which official TensorFlow wheels require",
        "tensorflow/tensorflow: tensorflow/core/platform/cpu_feature_guard.cc",
    ),
    _rule(
        "illegal_instruction",
        "actionable",
        "cpu_unsupported",
        r"^Illegal instruction(?: \(core dumped\))?\s*$",
        ("Illegal",),
        "the process died of SIGILL: at `import tensorflow` this is a CPU without the "
        "instructions (AVX, AVX2) the wheel was built for",
        "GNU bash: jobs.c (strsignal(SIGILL) and ' (core dumped)'); quoted in "
        "https://github.com/tensorflow/tensorflow/issues/62342",
    ),
    # === harmless noise ==============================================================================
    _rule(
        "factory_registered",
        "harmless",
        None,
        r"Unable to register (?:cuDNN|cuFFT|cuBLAS) factory|Attempting to register factory for "
        r"plugin",
        ("factory",),
        "harmless: TensorFlow and XLA both register the CUDA plugins; the second registration "
        "is refused",
        "tensorflow/tensorflow: tensorflow/stream_executor/cuda/cuda_blas.cc (2.10); openxla/xla: "
        "xla/stream_executor/cuda/cuda_dnn.cc, cuda_fft.cc, cuda_blas.cc (2.14-2.17)",
    ),
    _rule(
        "placer_registered",
        "harmless",
        None,
        r"computation placer already registered",
        ("placer",),
        "harmless: a duplicate registration between TensorFlow and XLA",
        "openxla/xla: xla/service/computation_placer.cc",
    ),
    _rule(
        "absl_prelude",
        "harmless",
        None,
        r"All log messages before absl::InitializeLog\(\) is called",
        ("InitializeLog",),
        "harmless: abseil's notice that early log lines go to stderr",
        "abseil/abseil-cpp: absl/log/internal/globals.cc",
    ),
    _rule(
        "numa",
        "harmless",
        None,
        r"NUMA node|NUMA support|Your kernel may (?:not )?have been built without NUMA",
        ("NUMA",),
        "harmless: the kernel reports no NUMA node for the GPU (common in VMs, containers and "
        "WSL2)",
        _GPU_EXECUTOR + "; " + _GPU_DEVICE,
    ),
    _rule(
        "onednn",
        "harmless",
        None,
        r"oneDNN custom operations are on",
        ("oneDNN",),
        "harmless: CPU ops use oneDNN, results may differ in the last bits "
        "(TF_ENABLE_ONEDNN_OPTS=0 turns it off)",
        "tensorflow/tensorflow: tensorflow/core/util/util.cc (2.9-2.10), "
        "tensorflow/core/util/port.cc (2.11+)",
    ),
    _rule(
        "cpu_guard",
        "harmless",
        None,
        r"binary is optimized (?:to use available CPU instructions|with oneAPI Deep Neural "
        r"Network Library)|^To enable (?:the following instructions|them in other operations)|"
        r"Your CPU supports instructions that this TensorFlow binary was not compiled to use|"
        r"wasn't compiled to use \S+ instructions, but these are available",
        ("optimized", "enable", "supports", "compiled"),
        "harmless: a CPU-speed notice; it says nothing about the GPU",
        "tensorflow/tensorflow: tensorflow/core/platform/cpu_feature_guard.cc",
    ),
    _rule(
        "delay_kernel",
        "harmless",
        None,
        r"Skipping the delay kernel",
        ("delay",),
        "harmless: a timing detail of XLA's autotuner",
        "openxla/xla: xla/stream_executor/gpu/gpu_timer.cc",
    ),
    _rule(
        "xla_service",
        "harmless",
        None,
        r"XLA service 0x[0-9a-f]+ initialized for platform|StreamExecutor device \(\d+\)",
        ("XLA", "StreamExecutor"),
        "harmless: XLA lists its devices",
        "tensorflow/tensorflow: tensorflow/compiler/xla/service/service.cc (2.0-2.13); "
        "openxla/xla: xla/service/service.cc",
    ),
    _rule(
        "cpu_frequency",
        "harmless",
        None,
        r"CPU Frequency: \d+ Hz",
        ("Frequency",),
        "harmless: the CPU clock TensorFlow measured",
        "tensorflow/tensorflow: tensorflow/core/platform/profile_utils/cpu_utils.cc",
    ),
    _rule(
        "xla_devices_off",
        "harmless",
        None,
        r"Not creating XLA devices, tf_xla_enable_xla_devices not set",
        ("XLA",),
        "harmless: the legacy XLA_GPU/XLA_CPU devices are off (TF 2.4+)",
        "tensorflow/tensorflow: tensorflow/compiler/jit/xla_cpu_device.cc, xla_gpu_device.cc",
    ),
    _rule(
        "mlir_crash_reproducer",
        "harmless",
        None,
        r"disabling MLIR crash reproducer",
        ("MLIR",),
        "harmless: a debugging option of the MLIR bridge is off",
        "tensorflow/tensorflow: tensorflow/compiler/mlir/tensorflow/utils/dump_mlir_util.cc",
    ),
    _rule(
        "tf_deprecation",
        "harmless",
        None,
        r"is deprecated and will be removed in a future version",
        ("deprecated",),
        "harmless: an API deprecation notice",
        "tensorflow/tensorflow: tensorflow/python/util/deprecation.py",
    ),
)
