"""What a build says about itself, read right: native-Windows build_info, inferred builds,
NVIDIA's TensorFlow distribution, GPUs whose compute capability nobody reported."""

from __future__ import annotations

import dataclasses

from tests.conftest import scenario
from tf_gpucheck.checks import Status, facts, run_checks
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.probes.interpreter import InterpreterFacts, RawDistribution
from tf_gpucheck.probes.packages import classify

# tensorflow/python/platform/build_info.py of a native-Windows TensorFlow GPU wheel, as a public
# repository committed it (Maxi1324/DeepLearningInANutshell: Env/Lib/site-packages/...):
WINDOWS_BUILD_INFO = {
    "cuda_compute_capabilities": ["sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"],
    "cuda_version": "64_112",
    "cudart_dll_name": "cudart64_112.dll",
    "cudnn_dll_name": "cudnn64_8.dll",
    "cudnn_version": "64_8",
    "is_cuda_build": True,
    "is_rocm_build": False,
}


def test_windows_dll_suffixes_are_versions() -> None:
    assert facts.windows_build_version("64_112") == "11.2"
    assert facts.windows_build_version("64_101") == "10.1"  # cudart64_101.dll: CUDA 10.1
    assert facts.windows_build_version("64_8") == "8"
    assert facts.windows_build_version("12.5.1") is None


def test_native_windows_build_is_judged_with_its_cuda() -> None:
    windows = scenario("windows-native-tf-2.15")
    tensorflow = dataclasses.replace(
        windows.tensorflow, version="2.10.1", build_info=WINDOWS_BUILD_INFO
    )
    packages = dataclasses.replace(
        windows.packages,
        tensorflow=tuple(
            dataclasses.replace(d, version="2.10.1") for d in windows.packages.tensorflow
        ),
    )
    snapshot = dataclasses.replace(windows, tensorflow=tensorflow, packages=packages)
    matrix = load_matrix()
    assert facts.build_cuda(snapshot, matrix) == "11.2"
    assert facts.build_cudnn(snapshot, matrix) == "8.1"
    build = run_checks(snapshot, matrix, checks=["tf_build"]).findings[0]
    assert build.summary == "built with CUDA 11.2 and cuDNN 8.1"
    assert "64_" not in build.summary
    old_driver = dataclasses.replace(
        snapshot, nvml=dataclasses.replace(snapshot.nvml, driver_version="452.06")
    )
    driver = run_checks(old_driver, matrix, checks=["driver_version"]).findings[0]
    assert driver.cause == "driver_too_old"  # CUDA 11.2 needs 460.82 on Windows (460.89 GA)
    assert "CUDA 11.2" in driver.summary


def test_nvidia_tensorflow_is_a_tensorflow_not_a_cuda_wheel() -> None:
    # pypi.org/project/nvidia-tensorflow: NVIDIA's TensorFlow 1.15 build
    found = classify(
        InterpreterFacts(
            "3.8.10",
            "/venv/bin/python",
            (
                RawDistribution("nvidia-tensorflow", "1.15.5+nv22.12", (), None),
                RawDistribution("nvidia-cudnn-cu11", "8.6.0.163", None, ()),
            ),
        )
    )
    assert [d.name for d in found.tensorflow] == ["nvidia-tensorflow"]
    assert [d.name for d in found.nvidia] == ["nvidia-cudnn-cu11"]


def test_unknown_compute_capability_is_said_to_be_unknown() -> None:
    two = scenario("two-a100")
    gpus = tuple(dataclasses.replace(g, compute_capability=None) for g in two.nvml.gpus)
    snapshot = dataclasses.replace(two, nvml=dataclasses.replace(two.nvml, gpus=gpus))
    finding = run_checks(snapshot, load_matrix(), checks=["compute_capability"]).findings[0]
    assert finding.status is Status.INFO
    assert "unknown" in finding.summary
    assert "every visible GPU" not in finding.summary
