"""`matrix --recommend` over scenario machines."""

from __future__ import annotations

import dataclasses

from tests.conftest import scenario
from tf_gpucheck.installer.recommend import recommend
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.snapshot import NvmlInfo


def test_working_machine_gets_the_newest_release() -> None:
    rec = recommend(scenario("two-a100"), load_matrix())
    assert rec.release is not None
    assert rec.release.version == "2.21.0"
    assert rec.driver_upgrade is None


def test_old_driver_gets_an_older_release_and_the_upgrade() -> None:
    snapshot = scenario("two-a100")
    old = dataclasses.replace(
        snapshot,
        nvml=dataclasses.replace(
            snapshot.nvml, driver_version="535.104.05", cuda_driver_version="12.2"
        ),
    )
    rec = recommend(old, load_matrix())
    assert rec.release is not None
    assert rec.release.version == "2.15.0"  # CUDA 12.2, fully supported by 535.104.05
    assert rec.driver_upgrade == "555.42.02"  # what TensorFlow 2.21's CUDA 12.5 needs


def test_driver_470_gets_a_cuda_11_release() -> None:
    # Python 3.11 rules out 2.11 (CUDA 11.2, fully supported by 470); 2.14's CUDA 11.8 needs 520.61.05
    # but runs on 470.82.01 through CUDA 11 minor-version compatibility (>= 450.80.02).
    rec = recommend(scenario("driver-too-old"), load_matrix())
    assert rec.release is not None
    assert (rec.release.version, rec.release.cuda) == ("2.14.0", "11.8")
    assert rec.command == 'pip install "tensorflow[and-cuda]==2.14.*"'
    assert rec.driver_upgrade == "520.61.05"
    assert any("minor-version compatibility" in reason for reason in rec.reasons)
    on_python_310 = dataclasses.replace(
        scenario("driver-too-old"),
        system=dataclasses.replace(scenario("driver-too-old").system, python_version="3.10.12"),
    )
    full = recommend(on_python_310, load_matrix())
    assert full.release is not None
    assert (full.release.version, full.release.cuda) == ("2.11.0", "11.2")  # 470.82.01 >= 460.27.03
    assert full.command == 'pip install "tensorflow==2.11.*"  # with CUDA 11.2 and cuDNN 8.1'


def test_maxwell_gpu_gets_the_last_release_with_its_kernels() -> None:
    rec = recommend(scenario("compute-capability-too-old"), load_matrix())
    assert rec.release is not None
    assert rec.release.version == "2.16.1"


def test_python_without_any_release() -> None:
    rec = recommend(scenario("python-3.14-no-tensorflow"), load_matrix())
    assert rec.release is None
    assert any("Python 3.14.0" in reason for reason in rec.reasons)


def test_native_windows_is_held_at_2_10() -> None:
    windows = scenario("windows-native-tf-2.15")
    on_python_310 = dataclasses.replace(
        windows, system=dataclasses.replace(windows.system, python_version="3.10.11")
    )
    rec = recommend(on_python_310, load_matrix())
    assert rec.release is not None
    assert rec.release.version == "2.10.0"
    assert rec.command == 'pip install "tensorflow==2.10.*"  # then CUDA 11.2 and cuDNN 8.1'
    assert any("WSL2" in reason for reason in rec.reasons)
    # Python 3.11 has no native-Windows GPU release at all: say so, and point at WSL2
    none = recommend(windows, load_matrix())
    assert none.release is None
    assert any("WSL2 you could use 2.21.0" in reason for reason in none.reasons)


def test_no_driver_recommends_newest_and_a_driver() -> None:
    snapshot = scenario("two-a100")
    bare = dataclasses.replace(
        snapshot,
        nvml=NvmlInfo(False, "NVML Shared Library Not Found", error_code="library_not_found"),
    )
    rec = recommend(bare, load_matrix())
    assert rec.release is not None
    assert rec.release.version == "2.21.0"
    assert rec.driver_upgrade == "555.42.02"


def test_macos_gets_metal() -> None:
    rec = recommend(scenario("macos-tensorflow-metal"), load_matrix())
    assert rec.release is None
    assert rec.command == "pip install tensorflow tensorflow-metal"
