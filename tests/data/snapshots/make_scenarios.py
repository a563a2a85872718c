"""Write the hand-made scenario snapshots of this folder.

Each scenario starts from the snapshot recorded on a real machine
(real-cpu-only-tf-2.21-no-driver.json: a 2-core Linux VM, no GPU, `pip install tensorflow`
2.21) and changes only what the named failure mode changes. GPU facts (names, memory sizes,
driver versions, log lines) are copied from public nvidia-smi / TensorFlow output of such
machines. Run `python tests/data/snapshots/make_scenarios.py` after changing one; the tests
read the JSON files, never this script.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from tf_gpucheck.snapshot import (
    Distribution,
    FrameworkInfo,
    FrameworksInfo,
    GpuProcess,
    LibrariesInfo,
    LibraryInfo,
    LibraryLocation,
    NvmlGpu,
    NvmlInfo,
    Snapshot,
    TargetInfo,
    TfDevice,
    TfDeviceDetails,
    TfOpResult,
    load_snapshot,
)

HERE = Path(__file__).resolve().parent
REAL = HERE / "real-cpu-only-tf-2.21-no-driver.json"
SITE = "/home/user/venv/lib/python3.11/site-packages"
GIB = 1024**3
A100_TOTAL = 85_899_345_920  # nvidia-smi: 81920 MiB, NVIDIA A100-SXM4-80GB

SCENARIOS: dict[str, Callable[[Snapshot], Snapshot]] = {}


def scenario(
    name: str,
) -> Callable[[Callable[[Snapshot], Snapshot]], Callable[[Snapshot], Snapshot]]:
    def register(function: Callable[[Snapshot], Snapshot]) -> Callable[[Snapshot], Snapshot]:
        SCENARIOS[name] = function
        return function

    return register


def replace(obj: object, **changes: object) -> object:
    return dataclasses.replace(obj, **changes)  # type: ignore[type-var]


def tf_log(*lines: str) -> tuple[str, ...]:
    return (
        "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
        *lines,
    )


ONEDNN = (
    "I0000 00:00:1731000000.100000    4242 port.cc:153] oneDNN custom operations are on. You may see "
    "slightly different numerical results due to floating-point round-off errors from different "
    "computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`."
)


def a100(index: int, used: int = 0, processes: tuple[GpuProcess, ...] = ()) -> NvmlGpu:
    return NvmlGpu(
        index=index,
        name="NVIDIA A100-SXM4-80GB",
        uuid=f"GPU-3f9a2c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6{index}",
        pci_bus_id=f"00000000:{7 + index:02X}:00.0",
        compute_capability="8.0",
        memory_total_bytes=A100_TOTAL,
        memory_used_bytes=used or 4 * 1024**2 * 130,
        processes=processes,
    )


def pip_libs(cuda_major: int = 12) -> LibrariesInfo:
    """The CUDA libraries of `pip install tensorflow[and-cuda]` 2.21 plus the driver's libcuda."""
    packages = {
        "libcudart": (
            "nvidia-cuda-runtime-cu12",
            "cuda_runtime",
            f"libcudart.so.{cuda_major}",
            "12.5",
        ),
        "libcublas": ("nvidia-cublas-cu12", "cublas", "libcublas.so.12", "12.5.3"),
        "libcublasLt": ("nvidia-cublas-cu12", "cublas", "libcublasLt.so.12", "12.5.3"),
        "libcufft": ("nvidia-cufft-cu12", "cufft", "libcufft.so.11", "11.2.3"),
        "libcusparse": ("nvidia-cusparse-cu12", "cusparse", "libcusparse.so.12", "12.5.1"),
        "libcusolver": ("nvidia-cusolver-cu12", "cusolver", "libcusolver.so.11", "11.6.3"),
        "libcurand": ("nvidia-curand-cu12", "curand", "libcurand.so.10", "10.3.6"),
        "libcudnn": ("nvidia-cudnn-cu12", "cudnn", "libcudnn.so.9", "9.3.0"),
        "libnccl": ("nvidia-nccl-cu12", "nccl", "libnccl.so.2", "2.27.7"),
    }
    libraries = [
        LibraryInfo(
            name="libcuda",
            locations=(
                LibraryLocation(
                    "/lib/x86_64-linux-gnu/libcuda.so.1", "ldconfig", None, "560.35.03"
                ),
            ),
            loaded_path="/lib/x86_64-linux-gnu/libcuda.so.1",
            loadable=True,
            version="12.6",
        )
    ]
    for name, (package, folder, filename, version) in packages.items():
        path = f"{SITE}/nvidia/{folder}/lib/{filename}"
        libraries.append(
            LibraryInfo(
                name=name,
                locations=(LibraryLocation(path, "pip", package, filename.rsplit(".so.", 1)[1]),),
                loaded_path=path,
                loadable=True,
                version=version,
            )
        )
    libraries.append(LibraryInfo(name="libnvinfer", locations=()))
    return LibrariesInfo(
        probed=True,
        reason=None,
        libraries=tuple(libraries),
        ptxas=f"{SITE}/nvidia/cuda_nvcc/bin/ptxas",
        libdevice=f"{SITE}/nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc",
    )


AND_CUDA_WHEELS = (
    Distribution("nvidia-cublas-cu12", "12.5.3.2"),
    Distribution("nvidia-cuda-cupti-cu12", "12.5.82"),
    Distribution("nvidia-cuda-nvcc-cu12", "12.5.82"),
    Distribution("nvidia-cuda-nvrtc-cu12", "12.5.82"),
    Distribution("nvidia-cuda-runtime-cu12", "12.5.82"),
    Distribution("nvidia-cudnn-cu12", "9.3.0.75"),
    Distribution("nvidia-cufft-cu12", "11.2.3.61"),
    Distribution("nvidia-curand-cu12", "10.3.6.82"),
    Distribution("nvidia-cusolver-cu12", "11.6.3.83"),
    Distribution("nvidia-cusparse-cu12", "12.5.1.3"),
    Distribution("nvidia-nccl-cu12", "2.27.7"),
    Distribution("nvidia-nvjitlink-cu12", "12.5.82"),
)


def created_device(index: int, gpu: NvmlGpu, mb: int = 79_078) -> str:
    return (
        f"I0000 00:00:1731000003.{index:06d}    4242 gpu_device.cc:2020] Created device "
        f"/job:localhost/replica:0/task:0/device:GPU:{index} with {mb} MB memory:  -> device: "
        f"{index}, name: {gpu.name}, pci bus id: {gpu.pci_bus_id[4:].lower() if gpu.pci_bus_id else ''}, "
        f"compute capability: {gpu.compute_capability}"
    )


def with_gpus(
    base: Snapshot, gpus: tuple[NvmlGpu, ...], *, driver: str = "560.35.03", cuda: str = "12.6"
) -> Snapshot:
    """A Linux machine whose driver works and whose TensorFlow sees every GPU."""
    nvml = NvmlInfo(
        available=True,
        error=None,
        driver_version=driver,
        cuda_driver_version=cuda,
        nvml_version=f"12.{driver}",
        gpus=gpus,
    )
    physical = (
        TfDevice("/physical_device:CPU:0", "CPU"),
        *tuple(TfDevice(f"/physical_device:GPU:{g.index}", "GPU") for g in gpus),
    )
    logical = (
        TfDevice("/device:CPU:0", "CPU"),
        *tuple(TfDevice(f"/device:GPU:{g.index}", "GPU") for g in gpus),
    )
    details = tuple(
        TfDeviceDetails(
            f"/physical_device:GPU:{g.index}",
            {
                "compute_capability": [int(p) for p in (g.compute_capability or "0.0").split(".")],
                "device_name": g.name,
            },
        )
        for g in gpus
    )
    ops = (
        TfOpResult("/device:CPU:0", True, 385112.9375, 0.0791, None),
        *tuple(TfOpResult(f"/device:GPU:{g.index}", True, 385112.9375, 0.2114, None) for g in gpus),
    )
    log = tf_log(ONEDNN, *(created_device(g.index, g) for g in gpus))
    tensorflow = replace(
        base.tensorflow,
        physical_devices=physical,
        logical_devices=logical,
        device_details=details,
        ops=ops,
        log=log,
    )
    packages = replace(base.packages, nvidia=AND_CUDA_WHEELS)
    return replace(base, nvml=nvml, libraries=pip_libs(), tensorflow=tensorflow, packages=packages)  # type: ignore[return-value]


@scenario("two-a100")
def two_a100(base: Snapshot) -> Snapshot:
    """Two A100s, driver 560, `pip install tensorflow[and-cuda]` 2.21: everything works."""
    busy = (GpuProcess(pid=31337, kind="compute", used_memory_bytes=2 * GIB),)
    return with_gpus(base, (a100(0), a100(1, used=2 * GIB + 545_259_520, processes=busy)))


@scenario("tf-cpu-build")
def tf_cpu_build(base: Snapshot) -> Snapshot:
    """A working A100, but tensorflow-cpu is installed: no GPU support compiled in."""
    working = with_gpus(base, (a100(0),))
    build = {
        "cpu_compiler": "clang",
        "is_cuda_build": False,
        "is_rocm_build": False,
        "is_tensorrt_build": False,
    }
    tensorflow = replace(
        base.tensorflow,
        build_info=build,
        is_built_with_cuda=False,
        log=tf_log(ONEDNN),
    )
    packages = replace(
        base.packages,
        tensorflow=(Distribution("tensorflow-cpu", "2.21.0"),),
        and_cuda_requirements=(),
        nvidia=(),
    )
    return replace(working, tensorflow=tensorflow, packages=packages)  # type: ignore[return-value]


@scenario("gpu-hidden-by-cuda-visible-devices")
def gpu_hidden(base: Snapshot) -> Snapshot:
    """Driver and A100 fine, but CUDA_VISIBLE_DEVICES=-1 hides it from TensorFlow."""
    working = with_gpus(base, (a100(0),))
    env = dict(base.system.env, CUDA_VISIBLE_DEVICES="-1")
    tensorflow = replace(
        base.tensorflow,
        log=tf_log(
            ONEDNN,
            "E0000 00:00:1731000002.500000    4242 cuda_platform.cc:52] failed call to cuInit: "
            "INTERNAL: CUDA error: Failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
        ),
    )
    return replace(working, system=replace(base.system, env=env), tensorflow=tensorflow)  # type: ignore[return-value]


ABSL = "I0000 00:00:1731000002.{n:06d}    4242 {where}] {message}"


def line(where: str, message: str, severity: str = "I", n: int = 0) -> str:
    return severity + ABSL[1:].format(n=n, where=where, message=message)


def hide_gpus_from_tf(snapshot: Snapshot, *log_lines: str) -> Snapshot:
    """TensorFlow imported but created no GPU device."""
    tensorflow = replace(
        snapshot.tensorflow,
        physical_devices=(TfDevice("/physical_device:CPU:0", "CPU"),),
        logical_devices=(TfDevice("/device:CPU:0", "CPU"),),
        device_details=(),
        ops=(TfOpResult("/device:CPU:0", True, 385112.9375, 0.0791, None),),
        log=tf_log(ONEDNN, *log_lines),
    )
    return replace(snapshot, tensorflow=tensorflow)  # type: ignore[return-value]


def gpu(name: str, capability: str, total: int, index: int = 0) -> NvmlGpu:
    return NvmlGpu(
        index=index,
        name=name,
        uuid=f"GPU-7d1e0c4b-aa21-4c55-9f0e-2b3c4d5e6f7{index}",
        pci_bus_id=f"00000000:{1 + index:02X}:00.0",
        compute_capability=capability,
        memory_total_bytes=total,
        memory_used_bytes=268_435_456,
        processes=(),
    )


def drop_library(libraries: LibrariesInfo, *names: str) -> LibrariesInfo:
    return replace(
        libraries,
        libraries=tuple(  # type: ignore[return-value]
            LibraryInfo(lib.name, ()) if lib.name in names else lib for lib in libraries.libraries
        ),
    )


def drop_wheels(snapshot: Snapshot, *names: str) -> Snapshot:
    packages = replace(
        snapshot.packages, nvidia=tuple(d for d in snapshot.packages.nvidia if d.name not in names)
    )
    return replace(snapshot, packages=packages)  # type: ignore[return-value]


DLOPEN_SKIP = line(
    "gpu_device.cc:2344",
    "Cannot dlopen some GPU libraries. Please make sure the missing libraries "
    "mentioned above are installed properly if you would like to use GPU. Follow the guide at "
    "https://www.tensorflow.org/install/gpu for how to download and setup the required libraries "
    "for your platform.\nSkipping registering GPU devices...",
    "W",
).split("\n")


@scenario("nvml-driver-mismatch")
def nvml_driver_mismatch(base: Snapshot) -> Snapshot:
    """The driver was upgraded (535.129.03) while the old kernel module (535.104.05) still runs."""
    working = with_gpus(base, (a100(0),))
    nvml = NvmlInfo(
        available=False,
        error="RM has detected an NVML/RM version mismatch.",
        error_code="lib_rm_version_mismatch",
    )
    broken = hide_gpus_from_tf(
        working,
        line(
            "cuda_platform.cc:52",
            "failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: "
            "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: system has unsupported display driver / cuda driver combination",
            "E",
        ),
        line(
            "cuda_diagnostics.cc:135",
            "kernel version 535.104.5 does not match DSO version 535.129.3 -- cannot "
            "find working devices in this configuration",
            "I",
            1,
        ),
    )
    return replace(broken, nvml=nvml)  # type: ignore[return-value]


@scenario("driver-too-old")
def driver_too_old(base: Snapshot) -> Snapshot:
    """TensorFlow 2.21 (CUDA 12.5) on a driver from the 470 branch (CUDA 11.4)."""
    old = with_gpus(base, (a100(0),), driver="470.82.01", cuda="11.4")
    return hide_gpus_from_tf(
        old,
        line(
            "gpu_device.cc:2433",
            "cudaGetDevice() failed. Status: CUDA driver version is insufficient for "
            "CUDA runtime version",
            "W",
        ),
    )


@scenario("tf-not-installed")
def tf_not_installed(base: Snapshot) -> Snapshot:
    """A fresh virtual environment: gpucheck is there, TensorFlow is not."""
    packages = replace(base.packages, tensorflow=(), keras=None, and_cuda_requirements=())
    tensorflow = replace(
        base.tensorflow,
        installed=False,
        version=None,
        build_info=None,
        is_built_with_cuda=None,
        physical_devices=(),
        logical_devices=(),
        ops=(),
        import_seconds=None,
        error="TensorFlow is not installed in this Python",
        log=(),
        duration_s=0.04,
    )
    return replace(base, packages=packages, tensorflow=tensorflow)  # type: ignore[return-value]


@scenario("multiple-tf-distributions")
def multiple_tf(base: Snapshot) -> Snapshot:
    """`pip install tensorflow` then `pip install tensorflow-cpu`: the CPU build's files won."""
    cpu = tf_cpu_build(base)
    packages = replace(
        cpu.packages,
        tensorflow=(Distribution("tensorflow", "2.21.0"), Distribution("tensorflow-cpu", "2.21.0")),
    )
    return replace(cpu, packages=packages)  # type: ignore[return-value]


@scenario("python-3.14-no-tensorflow")
def python_unsupported(base: Snapshot) -> Snapshot:
    """Python 3.14, for which no TensorFlow release publishes wheels: pip install tensorflow fails."""
    fresh = tf_not_installed(base)
    system = replace(
        fresh.system, python_version="3.14.0", python_executable="/usr/local/bin/python3.14"
    )
    return replace(fresh, system=system)  # type: ignore[return-value]


@scenario("windows-native-tf-2.15")
def windows_native(base: Snapshot) -> Snapshot:
    """Native Windows 11, an RTX 3080 and TensorFlow 2.15: no GPU support after 2.10."""
    rtx = gpu("NVIDIA GeForce RTX 3080", "8.6", 10_737_418_240)
    nvml = NvmlInfo(
        available=True,
        error=None,
        driver_version="551.86",
        cuda_driver_version="12.4",
        nvml_version="12.551.86",
        gpus=(rtx,),
    )
    system = replace(
        base.system,
        os="Windows",
        os_release="10",
        os_pretty_name=None,
        arch="AMD64",
        python_version="3.11.7",
        python_executable="C:\\Users\\me\\proj\\.venv\\Scripts\\python.exe",
        cpu_model="Intel64 Family 6 Model 151 Stepping 2, GenuineIntel",
        cpu_count=16,
    )
    packages = replace(
        base.packages,
        tensorflow=(
            Distribution("tensorflow", "2.15.0"),
            Distribution("tensorflow-intel", "2.15.0"),
        ),
        keras="2.15.0",
        and_cuda_requirements=(),
    )
    build = {
        "is_cuda_build": False,
        "is_rocm_build": False,
        "is_tensorrt_build": False,
        "msvcp_dll_names": "msvcp140.dll,msvcp140_1.dll",
    }
    tensorflow = replace(
        base.tensorflow, version="2.15.0", build_info=build, is_built_with_cuda=False, log=()
    )
    libraries = LibrariesInfo(
        probed=False, reason="library search is implemented for Linux only (this is win32)"
    )
    target = TargetInfo(
        python_executable="C:\\Users\\me\\proj\\.venv\\Scripts\\python.exe",
        chosen_by="virtual_env",
        prefix="C:\\Users\\me\\proj\\.venv",
        base_prefix="C:\\Python311",
        kind="venv",
    )
    return replace(
        base,
        system=system,
        target=target,
        nvml=nvml,
        packages=packages,
        tensorflow=tensorflow,  # type: ignore[return-value]
        libraries=libraries,
    )


@scenario("macos-tensorflow-metal")
def macos(base: Snapshot) -> Snapshot:
    """An Apple M2 Mac with tensorflow 2.16 and tensorflow-metal: no CUDA exists there."""
    system = replace(
        base.system,
        os="Darwin",
        os_release="23.4.0",
        os_pretty_name=None,
        arch="arm64",
        python_version="3.11.7",
        python_executable="/Users/me/proj/.venv/bin/python",
        cpu_model="Apple M2",
        cpu_count=8,
        cpu_features=(),
    )
    nvml = NvmlInfo(
        available=False, error="NVML Shared Library Not Found", error_code="library_not_found"
    )
    packages = replace(
        base.packages,
        tensorflow=(
            Distribution("tensorflow", "2.16.2"),
            Distribution("tensorflow-metal", "1.1.0"),
        ),
        keras="3.3.3",
        and_cuda_requirements=(),
    )
    build = {"is_cuda_build": False, "is_rocm_build": False, "is_tensorrt_build": False}
    tensorflow = replace(
        base.tensorflow,
        version="2.16.2",
        build_info=build,
        is_built_with_cuda=False,
        physical_devices=(
            TfDevice("/physical_device:CPU:0", "CPU"),
            TfDevice("/physical_device:GPU:0", "GPU"),
        ),
        log=(),
    )
    libraries = LibrariesInfo(
        probed=False, reason="library search is implemented for Linux only (this is darwin)"
    )
    target = TargetInfo(
        python_executable="/Users/me/proj/.venv/bin/python",
        chosen_by="virtual_env",
        prefix="/Users/me/proj/.venv",
        base_prefix="/opt/homebrew/opt/python@3.11/Frameworks/Python.framework/Versions/3.11",
        kind="venv",
    )
    return replace(
        base,
        system=system,
        target=target,
        nvml=nvml,
        packages=packages,
        tensorflow=tensorflow,  # type: ignore[return-value]
        libraries=libraries,
    )


@scenario("cuda-libs-missing")
def cuda_libs_missing(base: Snapshot) -> Snapshot:
    """`pip install tensorflow` (without [and-cuda]) on a machine with a working driver and A100."""
    working = with_gpus(base, (a100(0),))
    libraries = drop_library(
        working.libraries,
        *(lib.name for lib in working.libraries.libraries if lib.name != "libcuda"),
    )
    bare = replace(working, libraries=libraries, packages=replace(working.packages, nvidia=()))
    return hide_gpus_from_tf(bare, *DLOPEN_SKIP)  # type: ignore[arg-type]


@scenario("cudnn-missing")
def cudnn_missing(base: Snapshot) -> Snapshot:
    """The and-cuda wheels without nvidia-cudnn-cu12 (uninstalled to save space)."""
    working = drop_wheels(with_gpus(base, (a100(0),)), "nvidia-cudnn-cu12")
    working = replace(working, libraries=drop_library(working.libraries, "libcudnn"))  # type: ignore[assignment]
    return hide_gpus_from_tf(working, *DLOPEN_SKIP)


@scenario("cudnn-version-mismatch")
def cudnn_mismatch(base: Snapshot) -> Snapshot:
    """TensorFlow 2.21 (cuDNN 9.3) finds a system cuDNN 9.1 first through LD_LIBRARY_PATH."""
    working = with_gpus(base, (a100(0),))
    system_cudnn = LibraryInfo(
        name="libcudnn",
        locations=(
            LibraryLocation(
                "/usr/local/cudnn-9.1/lib/libcudnn.so.9", "ld_library_path", None, "9.1.0"
            ),
            LibraryLocation(
                f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9", "pip", "nvidia-cudnn-cu12", "9"
            ),
        ),
        loaded_path="/usr/local/cudnn-9.1/lib/libcudnn.so.9",
        loadable=True,
        version="9.1.0",
    )
    libraries = replace(
        working.libraries,
        libraries=tuple(
            system_cudnn if lib.name == "libcudnn" else lib for lib in working.libraries.libraries
        ),
    )
    env = dict(working.system.env, LD_LIBRARY_PATH="/usr/local/cudnn-9.1/lib")
    tensorflow = replace(
        working.tensorflow,
        log=(
            *working.tensorflow.log,
            line(
                "cuda_dnn.cc:536",
                "Loaded runtime CuDNN library: 9.1.0 but source was compiled with: 9.3.0.  CuDNN library "
                "needs to have matching major version and equal or higher minor version. If using a binary install, upgrade "
                "your CuDNN library.  If building from sources, make sure the library loaded at runtime is compatible with "
                "the version specified during compile configuration.",
                "E",
                7,
            ),
        ),
    )
    return replace(
        working,
        libraries=libraries,
        system=replace(working.system, env=env),  # type: ignore[return-value]
        tensorflow=tensorflow,
    )


@scenario("compute-capability-too-old")
def cc_too_old(base: Snapshot) -> Snapshot:
    """A GeForce GTX 980 Ti (Maxwell, 5.2) with TensorFlow 2.21, whose oldest kernels are sm_60."""
    maxwell = gpu("NVIDIA GeForce GTX 980 Ti", "5.2", 6_442_450_944)
    working = with_gpus(base, (maxwell,))
    return hide_gpus_from_tf(
        working,
        line(
            "gpu_device.cc:2390",
            "Ignoring visible gpu device (device: 0, name: NVIDIA GeForce GTX 980 Ti, pci bus id: "
            "0000:01:00.0, compute capability: 5.2) with Cuda compute capability 5.2. The minimum required Cuda "
            "capability is 6.0.",
            "I",
        ),
    )


@scenario("ptx-jit-required")
def ptx_jit(base: Snapshot) -> Snapshot:
    """An H100 (9.0) with TensorFlow 2.21: no sm_90 kernels declared, compute_90 PTX is JIT-compiled."""
    h100 = gpu("NVIDIA H100 80GB HBM3", "9.0", 85_520_809_984)
    working = with_gpus(base, (h100,), driver="560.35.03", cuda="12.6")
    tensorflow = replace(
        working.tensorflow,
        log=(
            *working.tensorflow.log,
            line(
                "gpu_device.cc:2341",
                "TensorFlow was not built with CUDA kernel binaries compatible with compute "
                "capability 9.0. CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer.",
                "W",
                3,
            ),
        ),
    )
    return replace(working, tensorflow=tensorflow)  # type: ignore[return-value]


@scenario("compute-capability-unsupported")
def cc_unsupported(base: Snapshot) -> Snapshot:
    """TensorFlow 2.3 (sm_35 sm_37 sm_52 sm_60 sm_61 + compute_70) on a GTX 750 Ti (5.0): no kernels, no PTX."""
    maxwell = gpu("NVIDIA GeForce GTX 750 Ti", "5.0", 2_147_483_648)
    working = with_gpus(base, (maxwell,), driver="470.82.01", cuda="11.4")
    build = {
        "cpu_compiler": "/dt7/usr/bin/gcc",
        "cuda_compute_capabilities": ["sm_35", "sm_37", "sm_52", "sm_60", "sm_61", "compute_70"],
        "cuda_version": "10.1",
        "cudnn_version": "7",
        "is_cuda_build": True,
        "is_rocm_build": False,
        "msvcp_dll_names": None,
    }
    system = replace(
        working.system, python_version="3.8.10", python_executable="/usr/bin/python3.8"
    )
    libraries = []
    for lib in working.libraries.libraries:
        if lib.name in ("libcuda", "libnvinfer", "libnccl"):
            libraries.append(lib if lib.name == "libcuda" else LibraryInfo(lib.name, ()))
            continue
        soname = {"libcudart": "libcudart.so.10.1", "libcudnn": "libcudnn.so.7"}.get(
            lib.name, f"{lib.name}.so.10"
        )
        version = {"libcudart": "10.1", "libcudnn": "7.6.5"}.get(lib.name, "10.2.1")
        path = f"/usr/local/cuda-10.1/lib64/{soname}"
        libraries.append(
            LibraryInfo(
                lib.name,
                (LibraryLocation(path, "ldconfig", None, soname.split(".so.")[1]),),
                path,
                True,
                None,
                version,
            )
        )
    packages = replace(
        working.packages,
        tensorflow=(Distribution("tensorflow", "2.3.0"),),
        keras=None,
        nvidia=(),
        and_cuda_requirements=(),
    )
    ops = (
        TfOpResult("/device:CPU:0", True, 385112.9375, 0.0791, None),
        TfOpResult(
            "/device:GPU:0",
            False,
            None,
            None,
            "InternalError: CUDA runtime implicit initialization on GPU:0 failed. Status: "
            "device kernel image is invalid",
        ),
    )
    tensorflow = replace(working.tensorflow, version="2.3.0", build_info=build, ops=ops)
    return replace(
        working,
        system=system,
        packages=packages,
        tensorflow=tensorflow,  # type: ignore[return-value]
        libraries=replace(
            working.libraries,
            libraries=tuple(libraries),
            ptxas="/usr/local/cuda-10.1/bin/ptxas",
            libdevice="/usr/local/cuda-10.1/nvvm/libdevice/libdevice.10.bc",
        ),
    )


@scenario("gpu-busy-exclusive-process")
def gpu_busy(base: Snapshot) -> Snapshot:
    """Two A100s in exclusive-process mode; another job holds GPU 1, so TensorFlow gets only GPU 0."""
    busy = (GpuProcess(pid=31337, kind="compute", used_memory_bytes=40 * GIB),)
    working = two_a100(base)
    nvml = replace(working.nvml, gpus=(a100(0), a100(1, used=40 * GIB, processes=busy)))
    tensorflow = replace(
        working.tensorflow,
        physical_devices=working.tensorflow.physical_devices[:2],
        logical_devices=working.tensorflow.logical_devices[:2],
        device_details=working.tensorflow.device_details[:1],
        ops=working.tensorflow.ops[:2],
        log=(
            *working.tensorflow.log[:-1],
            line(
                "gpu_device.cc:2433",
                "cudaSetDevice() on GPU:1 failed. Status: CUDA-capable device(s) is/are busy or "
                "unavailable",
                "W",
                9,
            ),
        ),
    )
    return replace(working, nvml=nvml, tensorflow=tensorflow)  # type: ignore[return-value]


@scenario("tf-sees-fewer-gpus")
def fewer_gpus(base: Snapshot) -> Snapshot:
    """Two A100s, TensorFlow creates only GPU 0, and its log says nothing about GPU 1."""
    working = two_a100(base)
    tensorflow = replace(
        working.tensorflow,
        physical_devices=working.tensorflow.physical_devices[:2],
        logical_devices=working.tensorflow.logical_devices[:2],
        device_details=working.tensorflow.device_details[:1],
        ops=working.tensorflow.ops[:2],
        log=working.tensorflow.log[:-1],
    )
    return replace(working, tensorflow=tensorflow)  # type: ignore[return-value]


@scenario("xla-libdevice-missing")
def libdevice_missing(base: Snapshot) -> Snapshot:
    """The and-cuda wheels minus nvidia-cuda-nvcc-cu12: training with jit_compile=True fails."""
    working = drop_wheels(with_gpus(base, (a100(0),)), "nvidia-cuda-nvcc-cu12")
    libraries = replace(working.libraries, ptxas=None, libdevice=None)
    tensorflow = replace(
        working.tensorflow,
        log=(
            *working.tensorflow.log,
            line("nvptx_compiler.cc:312", "libdevice not found at ./libdevice.10.bc", "W", 12),
        ),
    )
    return replace(working, libraries=libraries, tensorflow=tensorflow)  # type: ignore[return-value]


@scenario("keras-mismatch")
def keras_mismatch(base: Snapshot) -> Snapshot:
    """TensorFlow 2.21 with keras 2.15 pinned by an old requirements file."""
    working = with_gpus(base, (a100(0),))
    return replace(working, packages=replace(working.packages, keras="2.15.0"))  # type: ignore[return-value]


def with_frameworks(snapshot: Snapshot, *found: FrameworkInfo) -> Snapshot:
    """The frameworks probe's facts, and the distributions that made it run."""
    dists: list[Distribution] = []
    for framework in found:
        dists.append(Distribution(framework.name, framework.version or ""))
        if framework.name == "jax":
            dists.append(Distribution("jaxlib", framework.version or ""))
    packages = replace(snapshot.packages, other_frameworks=tuple(dists))
    frameworks = FrameworksInfo(probed=True, reason=None, frameworks=found)
    return replace(snapshot, packages=packages, frameworks=frameworks)  # type: ignore[return-value]


@scenario("torch-sees-gpu-tf-does-not")
def torch_sees_gpu(base: Snapshot) -> Snapshot:
    """cuda-libs-missing (`pip install tensorflow` 2.21 without [and-cuda], a working A100 and
    driver 560) next to a PyTorch built with CUDA 13.0 that uses the A100: the driver works;
    TensorFlow lacks its CUDA 12 libraries (PyTorch's CUDA 13 wheels cannot stand in for them,
    and are left out of the package list)."""
    torch = FrameworkInfo(
        name="torch",
        version="2.11.0+cu130",
        cuda_version="13.0",
        gpu_usable=True,
        devices=("cuda:0 NVIDIA A100-SXM4-80GB",),
        built_with_cuda=True,
        duration_s=4.1,
    )
    return with_frameworks(cuda_libs_missing(base), torch)


@scenario("no-framework-sees-gpu")
def no_framework_sees_gpu(base: Snapshot) -> Snapshot:
    """nvml-driver-mismatch, and PyTorch 2.5.1 (CUDA 12.4) fails the same way: its
    cudaGetDeviceCount() returns error 803, in the words of PyTorch's public bug reports."""
    torch = FrameworkInfo(
        name="torch",
        version="2.5.1",
        cuda_version="12.4",
        gpu_usable=False,
        error="RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
        "functions before calling NumCudaDevices() that might have already set an error? Error "
        "803: system has unsupported display driver / cuda driver combination",
        built_with_cuda=True,
        duration_s=3.2,
    )
    return with_frameworks(nvml_driver_mismatch(base), torch)


@scenario("torch-jax-cpu-builds")
def cpu_builds(base: Snapshot) -> Snapshot:
    """The recorded machine (no driver) with PyTorch's and JAX's CPU wheels next to TensorFlow.
    The frameworks facts are the frameworks probe's own output on such a machine (2 cores, no
    GPU, `pip install jax torch==2.13.0+cpu`), recorded 2026-11-23: CPU-only builds, which say
    nothing about the GPU."""
    torch = FrameworkInfo(
        name="torch",
        version="2.13.0+cpu",
        gpu_usable=False,
        built_with_cuda=False,
        duration_s=1.7108799210000143,
    )
    jax = FrameworkInfo(
        name="jax",
        version="0.10.2",
        gpu_usable=False,
        built_with_cuda=False,
        duration_s=0.7743373580001389,
    )
    return with_frameworks(base, torch, jax)


def main() -> None:
    real = load_snapshot(REAL)
    # The recording names its venv with --python; the scenarios picture a user working in an
    # activated environment (fixes then say plain `pip`, as that user would type them).
    base = dataclasses.replace(
        real, target=dataclasses.replace(real.target, chosen_by="virtual_env")
    )
    for name, build in SCENARIOS.items():
        snapshot = build(base)
        if snapshot.packages.other_frameworks is None:
            # the recording predates that field; the hand-made machines have no other framework
            # unless the scenario says so
            snapshot = replace(  # type: ignore[assignment]
                snapshot, packages=replace(snapshot.packages, other_frameworks=())
            )
        (HERE / f"{name}.json").write_text(snapshot.to_json() + "\n", encoding="utf-8")
        print(f"wrote {name}.json")


if __name__ == "__main__":
    main()
