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

from gpucheck.snapshot import (
    Distribution,
    GpuProcess,
    LibrariesInfo,
    LibraryInfo,
    LibraryLocation,
    NvmlGpu,
    NvmlInfo,
    Snapshot,
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
                    "/lib/x86_64-linux-gnu/libcuda.so.1", "ldconfig", None, "535.104.05"
                ),
            ),
            loaded_path="/lib/x86_64-linux-gnu/libcuda.so.1",
            loadable=True,
            version="12.2",
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
    return LibrariesInfo(probed=True, reason=None, libraries=tuple(libraries))


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
    base: Snapshot, gpus: tuple[NvmlGpu, ...], *, driver: str = "535.104.05", cuda: str = "12.2"
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
    """Two A100s, driver 535, `pip install tensorflow[and-cuda]` 2.21: everything works."""
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


def main() -> None:
    base = load_snapshot(REAL)
    for name, build in SCENARIOS.items():
        snapshot = build(base)
        (HERE / f"{name}.json").write_text(snapshot.to_json() + "\n", encoding="utf-8")
        print(f"wrote {name}.json")


if __name__ == "__main__":
    main()
