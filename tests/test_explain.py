"""`gpucheck explain`: real logs and real pasted reports, explained; bad input is exit 2.

Every text here is real: a recording of this project's machine (tests/data/logs/real, the
command that made each is in its README) or quoted from the public issue named next to it.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA
from tf_gpucheck.checks.findings import Report
from tf_gpucheck.explain import explain
from tf_gpucheck.matrix import load_matrix

REAL = DATA / "logs" / "real"
EXPLAIN_KEYS = {
    "schema_version",
    "note",
    "verdict",
    "exit_code",
    "first_fix",
    "findings",
    "causes",
    "stated",
    "similar",
    "lines_read",
    "lines",
}

# https://github.com/tensorflow/tensorflow/issues/41401 (nvidia-smi on the reporter's machine),
# with TensorFlow 2.10's dlerror line as this project's machine printed it
# (tests/data/logs/real/tf210-py310_probe.stderr).
PASTED = """I installed CUDA but TensorFlow does not use my GPU.

```
| NVIDIA-SMI 451.48       Driver Version: 451.48       CUDA Version: 11.0     |
```

and the log says:

> 2026-11-23 15:22:36.628604: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library \u2018libcudart.so.11.0\u2019; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory
> 2026-11-23 15:22:36.628634: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.
"""


def test_numpy_2_failure_is_explained(run_cli: Any) -> None:
    result = run_cli(["explain", "--json", str(REAL / "tf210-np2-py310_import-tensorflow.stderr")])
    assert result.exit_code == 1
    data = result.json()
    assert set(data) == EXPLAIN_KEYS
    assert data["verdict"] == "fail"
    assert data["first_fix"]["cause"] == "numpy_incompatible"
    assert data["first_fix"]["fix"].startswith('pip install "numpy<2"')
    assert data["stated"]["python_version"] == "3.10"
    for line in data["lines"]:
        assert set(line) == {"text", "kind", "cause", "explanation", "rule", "count", "last"}
    assert any(line["cause"] == "numpy_incompatible" for line in data["lines"])


def test_pasted_report_with_a_gpu_names_the_missing_library(run_cli: Any, tmp_path: Path) -> None:
    report = tmp_path / "issue.md"
    report.write_text(PASTED, encoding="utf-8")
    result = run_cli(["explain", "--json", str(report)])
    data = result.json()
    assert result.exit_code == 1
    assert data["stated"]["driver_version"] == "451.48"
    first = data["first_fix"]
    assert first["cause"] == "cuda_libs_missing"
    assert "libcudart.so.11.0" in first["summary"]
    assert first["status"] == "fail"


def test_the_same_lines_without_a_gpu_are_not_an_alarm(run_cli: Any) -> None:
    # TensorFlow 2.10 on this machine: no driver, no GPU. Nothing to fix on a CPU machine;
    # the likely cause on a machine that has a GPU is still named.
    result = run_cli(["explain", "--json", str(REAL / "tf210-py310_probe.stderr")])
    data = result.json()
    assert result.exit_code == 0
    assert data["verdict"] == "ok"
    assert data["first_fix"]["cause"] == "no_nvidia_driver"
    assert data["first_fix"]["status"] == "info"
    assert not [c for c in data["causes"] if c["status"] in ("fail", "warn")]


@pytest.mark.parametrize(
    "name",
    [
        "tf215-py311_probe.stderr",
        "tf221-py311_probe.stderr",
        "tfcpu221-py311_probe.stderr",
        "tf221-py311_fit-dense.stdout",
        "tf221-andcuda-py311_probe.stderr",
    ],
)
def test_real_noise_is_never_a_warning_or_a_failure(run_cli: Any, name: str) -> None:
    result = run_cli(["explain", "--json", str(REAL / name)])
    data = result.json()
    assert result.exit_code == 0
    assert data["verdict"] == "ok"
    assert not [line for line in data["lines"] if line["kind"] == "actionable"]


def test_config_after_init_from_a_real_traceback() -> None:
    result = explain((REAL / "tf221-py311_logical-after-init.stderr").read_text(), load_matrix())
    first = result.report.first_fix
    assert first is not None
    assert first.cause == "config_after_init"
    assert first.fix is not None
    assert "before any op" in first.fix


def test_pip_refusing_a_release_for_this_python_gets_an_install_that_works() -> None:
    # `pip install tensorflow==2.15.0` on Python 3.13, on this machine
    text = (REAL / "pip-py313-tf2150_pip-install.stderr").read_text()
    result = explain(text, load_matrix())
    first = result.report.first_fix
    assert first is not None
    assert first.cause in ("install_resolution_failed", "python_unsupported")
    assert first.fix is not None


def test_a_wheel_built_for_another_python_is_that_pythons_file() -> None:
    # the pip-py311-cp38wheel run: the command typed (its README), `python -V` of that CPython
    # 3.11.7, and pip's refusal; the command's own file name is no statement of the Python
    refusal = (REAL / "pip-py311-cp38wheel_pip-install.stderr").read_text()
    wheel = "MarkupSafe-2.1.5-cp38-cp38-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    text = f"$ python -V\nPython 3.11.7\n$ python -m pip install --progress-bar off whl38/{wheel}\n{refusal}"
    result = explain(text, load_matrix())
    assert result.stated.python_version == "3.11.7"
    first = result.report.first_fix
    assert first is not None
    assert first.cause == "python_unsupported"
    assert "CPython 3.8 (its cp38 tag)" in first.summary
    assert first.fix is not None
    assert "use Python 3.8 for this file" in first.fix
    recognised = [line.text for line in result.lines]
    assert any(t.startswith((wheel, f"ERROR: {wheel}")) for t in recognised)


def test_a_python_outside_a_packages_requires_python_is_the_cause() -> None:
    # the pip-py311-reqpython run: a wheel whose Requires-Python excludes CPython 3.11.7
    text = (REAL / "pip-py311-reqpython_pip-install.stderr").read_text()
    first = explain(text, load_matrix()).report.first_fix
    assert first is not None
    assert first.cause == "python_unsupported"
    assert first.fix is not None
    assert "for typing, or a typing release whose Requires-Python holds Python 3.11.7" in first.fix


def test_a_pin_of_tensorflows_extra_the_index_lacks_is_not_a_python_problem() -> None:
    """`pip install --dry-run "tensorflow[and-cuda]==2.14.1"` on Python 3.11, on this machine:
    pip cannot meet the extra's `tensorrt==8.5.3.1` (the index offers 8.6.1 and later), and its
    "Ignored the following versions that require a different python version" lists other
    packages' versions (numpy's 1.21.x): Python 3.11 is not the problem, 2.15's extra installs."""
    text = (REAL / "pip-py311-tf2141-andcuda_pip-install-dry-run.stderr").read_text()
    result = explain(text, load_matrix())
    first = result.report.first_fix
    assert first is not None
    assert first.cause == "install_resolution_failed"
    assert first.fix is not None
    assert first.fix.startswith(
        'pip install "tensorflow[and-cuda]==2.15.*"  # the and-cuda extra of 2.14 pins tensorrt==8.5.3.1'
    )
    assert "python_unsupported" not in {c.code for c in result.report.causes}


def test_stdin_and_formats(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (REAL / "tf210-np2-py310_import-tensorflow.stderr").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text)))
    markdown = run_cli(["explain", "-", "--format", "markdown"])
    assert markdown.exit_code == 1
    assert markdown.stdout.startswith("### gpucheck explain")
    assert "`numpy_incompatible`" in markdown.stdout
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text)))
    human = run_cli(["explain"])
    assert human.stdout.startswith("FAIL  ")
    assert "first fix: pip install" in human.stdout


def test_empty_input_is_nothing_to_explain(run_cli: Any, tmp_path: Path) -> None:
    empty = tmp_path / "empty.log"
    empty.write_text("")
    result = run_cli(["explain", str(empty)])
    assert result.exit_code == 0
    assert "nothing to explain" in result.stdout
    assert run_cli(["explain", "--json", str(empty)]).json()["verdict"] == "ok"


@pytest.mark.parametrize(
    ("content", "reference"),
    [(None, "input-missing"), (b"\x7fELF\x02\x01\x01\x00\x00\x00", "input-binary")],
)
def test_unreadable_input_is_one_line_and_exit_2(
    run_cli: Any, tmp_path: Path, content: bytes | None, reference: str
) -> None:
    path = tmp_path / "job.log"
    if content is not None:
        path.write_bytes(content)
    result = run_cli(["explain", str(path)])
    assert result.exit_code == 2
    assert f"[{reference}]" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    folder = run_cli(["explain", str(tmp_path)])
    assert folder.exit_code == 2


def test_logs_in_other_encodings_are_read(run_cli: Any, tmp_path: Path) -> None:
    text = (REAL / "tf210-np2-py310_import-tensorflow.stderr").read_text()
    for name, data in (
        ("latin1.log", "Caf\xe9 training\n".encode("latin-1") + text.encode("utf-8")),
        ("utf16.log", text.encode("utf-16")),  # PowerShell's `>`
    ):
        path = tmp_path / name
        path.write_bytes(data)
        result = run_cli(["explain", "--json", str(path)])
        assert result.exit_code == 1, name
        assert result.json()["first_fix"]["cause"] == "numpy_incompatible"


def test_an_extra_that_did_not_exist_yet_gets_a_release_that_has_it() -> None:
    # pip on this machine: "tensorflow 2.13.1 does not provide the extra 'and-cuda'"
    text = (REAL / "pip-py311-tf213-andcuda_pip-install.stderr").read_text()
    first = explain(text, load_matrix()).report.first_fix
    assert first is not None
    assert first.cause == "install_resolution_failed"
    assert first.fix is not None
    assert first.fix.startswith('pip install "tensorflow[and-cuda]>=2.14"')


def test_pip_finding_nothing_for_a_python_no_release_supports() -> None:
    # https://github.com/tensorflow/tfjs/issues/8540: the Python is stated only by the pyenv
    # command that made it; pip's line names the range tensorflowjs asks for
    text = """pyenv install 3.6.8
pyenv global 3.6.8
python -m venv venv
source venv/bin/activate
pip install tensorflowjs[wizard]

ERROR: Could not find a version that satisfies the requirement tensorflow<3,>=2.13.0 (from tensorflowjs)
"""
    result = explain(text, load_matrix(), similar=False)
    assert result.stated.python_version == "3.6.8"
    first = result.report.first_fix
    assert first is not None
    assert first.cause == "python_unsupported"
    assert "'pyenv install 3.6.8'" in first.summary
    assert (first.fix or "").startswith("use a Python in 3.")
    # a Python that a matching release supports: pip's failure has another reason
    other = explain(text.replace("3.6.8", "3.11.9"), load_matrix(), similar=False)
    assert other.report.first_fix is not None
    assert other.report.first_fix.cause == "install_resolution_failed"


def test_cudnn_failing_in_colab_means_another_tensorflow_was_installed() -> None:
    # https://github.com/googlecolab/colabtools/issues/2818 (the maintainer: TensorFlow had been
    # upgraded under the notebook's pinned install)
    text = """I am working on Tensorflow object detection API. Everything was working fine but suddenly this error appeared. please colab help me with this

Node: 'ssd_mobile_net_v2_fpn_keras_feature_extractor/model/Conv1/Conv2D'
DNN library is not found.
"""
    first = explain(text, load_matrix(), similar=False).report.first_fix
    assert first is not None
    assert first.cause == "cudnn_version_mismatch"
    assert "!pip install of tensorflow" in (first.fix or "")
    # the same line elsewhere is cuDNN not found
    elsewhere = explain(text.replace("colab ", ""), load_matrix(), similar=False)
    assert elsewhere.report.first_fix is not None
    assert elsewhere.report.first_fix.cause == "cudnn_missing"


def test_a_container_started_with_the_gpu_is_not_blamed_in_wsl2() -> None:
    # https://github.com/tensorflow/tensorflow/issues/68711: `--gpus all` was given; the Windows
    # driver of the day broke CUDA inside WSL2
    text = """### OS platform and distribution

Windows 11 Pro + WSL2 Ubuntu 22.04

### Current behavior?

I am using Docker Desktop with WSL2 on Windows 11 Pro to run the `tensorflow-gpu:latest` Docker container. After starting it no GPU is found and the error `failed call to cuInit: CUDA_ERROR_NOT_FOUND: named symbol not found` occurs.

```shell
docker run --rm --gpus all -it tensorflow/tensorflow:latest-gpu bash
```
"""
    result = explain(text, load_matrix(), similar=False)
    assert result.stated.place == "docker"
    assert result.stated.gpu_requested == "true"
    assert result.report.first_fix is not None
    assert result.report.first_fix.cause == "wsl_driver_problem"
    # without --gpus the container is what lacks the GPU
    bare = explain(
        text.replace("--gpus all ", "").replace("WSL2", "Ubuntu"), load_matrix(), similar=False
    )
    assert bare.stated.gpu_requested is None


# numpy/numpy#12977 (settled: the NumPy was too old; `pip install --upgrade numpy`)
NUMPY_TOO_OLD = """hi!
I succeeded in installing tensorflow in python3.7
* Failed on first install Message: ModuleNotFoundError: No module named 'numpy.core._multiarray_umath'
* ModuleNotFoundError:No module named 'numpy.core._multiarray_umath'
"""


def test_a_numpy_older_than_the_build_is_upgraded_not_pinned_below_2() -> None:
    """The line says the NumPy installed is older than a module was compiled against: the fix
    upgrades it (`pip install "numpy<2"` would leave a NumPy 1.15 as it is)."""
    first = explain(NUMPY_TOO_OLD, load_matrix()).report.first_fix
    assert first is not None
    assert first.cause == "numpy_incompatible"
    assert first.fix is not None
    assert first.fix.startswith('pip install --upgrade "numpy<2"'), first.fix


@pytest.mark.parametrize(
    ("tf", "wanted"),
    [
        ("2.3.0", "numpy<1.19.0,>=1.16.0"),  # its own requirement
        ("2.10.0", "numpy<2,>=1.20"),  # declares no upper bound, built against NumPy 1
        ("2.21.0", "numpy>=1.26.0"),  # built against NumPy 2
    ],
)
def test_the_upgrade_stays_within_the_tensorflow_releases_own_requirement(
    tf: str, wanted: str
) -> None:
    from tf_gpucheck.checks import remedies
    from tf_gpucheck.checks.diagnosis import Evidence, Known
    from tf_gpucheck.installer.intent import Fix, Install
    from tf_gpucheck.reading import logscan

    # CorentinJ/Real-Time-Voice-Cloning#1183
    line = "RuntimeError: module compiled against API version 0xf but this version of numpy is 0xe"
    (scanned,) = logscan.classify([line])
    evidence = [Evidence("the text", scanned, "numpy_incompatible")]
    fix = remedies.REMEDIES["numpy_incompatible"](Known(tf_version=tf), load_matrix(), evidence)
    assert isinstance(fix, Fix)
    assert fix.steps == (Install((wanted,), ("--upgrade",)),), fix
    assert fix.text().startswith(f'pip install --upgrade "{wanted}"'), fix


# jupyter/docker-stacks#1616: conda's own plan, replacing the CPU build it had installed
CONDA_CPU_BUILD = """In order to get a cuda enabled tensorflow I have to install the package again with `conda install tensorflow-gpu`
These are the packages that change with the installation

```
  tensorflow                       2.7.0-cpu_py39h4655687_0 --> 2.7.0-cuda112py39h01bd6f0_0
  tensorflow-base                  2.7.0-cpu_py39hf4995fd_0 --> 2.7.0-cuda112py39hd98b2dd_0
  tensorflow-estima~               2.7.0-cpu_py39ha241409_0 --> 2.7.0-cuda112py39h23446aa_0
```
"""

# rlworkgroup/garage#698: `conda list tensorflow` of a GPU build
CONDA_GPU_BUILD = """conda list tensorflow:
`# Name                    Version                   Build  Channel
tensorflow                1.13.1          gpu_py36h3991807_0
tensorflow-base           1.13.1          gpu_py36h8d69cac_0
tensorflow-estimator      1.13.0                     py_0
tensorflow-gpu            1.13.1               h0d30ee6_0
"""


def test_a_conda_cpu_build_is_replaced_by_condas_cuda_build_not_by_pip() -> None:
    result = explain(CONDA_CPU_BUILD, load_matrix())
    first = result.report.first_fix
    assert first is not None
    assert first.cause == "tf_cpu_only_build"
    assert first.fix == 'conda install -c conda-forge "tensorflow=2.7.0=cuda*"'  # its build string
    assert result.stated.tf_version == "2.7.0"  # the version, not the version and the build


def test_a_conda_gpu_build_is_not_called_a_cpu_build() -> None:
    result = explain(CONDA_GPU_BUILD, load_matrix())
    assert all(f.cause != "tf_cpu_only_build" for f in result.report.findings)
    assert result.stated.tf_version == "1.13.1"


def test_a_conda_search_listing_is_not_what_is_installed() -> None:
    # nanoporetech/medaka#232: `conda search tensorflow` lists every build of the channel
    listing = (
        "tensorflow                     2.2.0 eigen_py36h84d285f_0  pkgs/main\n"
        "tensorflow                     2.2.0 gpu_py36hf933387_0  pkgs/main\n"
        "tensorflow                     2.2.0 mkl_py36h5a57954_0  pkgs/main\n"
    )
    result = explain(listing, load_matrix(), similar=False)
    assert not any(line.rule == "conda_tensorflow_cpu_build" for line in result.lines)


def _first_cause(text: str) -> str | None:
    report = explain(text, load_matrix(), similar=False).report
    return report.causes[0].code if report.causes else None


def _first_fix(text: str, cause: str) -> str:
    """The first fix explain prints for ``text``, whose cause must be ``cause``."""
    first = explain(text, load_matrix(), similar=False).report.first_fix
    assert first is not None
    assert first.cause == cause
    assert first.fix is not None
    return first.fix


def test_a_dll_tensorflow_2_1_cannot_find_on_windows_is_the_visual_cpp_runtime() -> None:
    """TF 2.1+ loads CUDA only when asked: a DLL its own extension cannot find is the Visual C++
    2015-2019 runtime (so is it for 2.0, whose library links no CUDA DLL either); a DLL whose
    initialisation failed is a CPU without AVX."""
    missing = "ImportError: DLL load failed: The specified module could not be found."
    assert _first_cause(f"I use TensorFlow 2.3.0 on Windows 10\n{missing}") == (
        "msvc_runtime_missing"
    )
    assert _first_cause(f"I use TensorFlow 2.0.0 on Windows 10\n{missing}") == (
        "msvc_runtime_missing"
    )
    avx = (
        "ImportError: DLL load failed: A dynamic link library (DLL) initialization routine failed."
    )
    assert _first_cause(f"I use TensorFlow 2.3.0 on Windows 10\n{avx}") != "msvc_runtime_missing"


def test_cuda_facts_with_no_os_named_are_judged_as_a_linux_cuda_build() -> None:
    assert _first_cause("I installed tensorflow 2.16.1 and I have CUDA 11.8") == (
        "cuda_libs_missing"
    )
    assert _first_cause("I installed tensorflow 2.16.1 and I have CUDA 12.3") is None


def test_judging_as_linux_a_text_that_names_no_os_is_said() -> None:
    """The OS was assumed, not stated: the finding says so beside what it judged."""
    text = "I installed tensorflow 2.16.1 and I have CUDA 11.8"
    finding = next(
        f
        for f in explain(text, load_matrix(), similar=False).report.findings
        if f.cause == "cuda_libs_missing"
    )
    assert "names no OS, so it was judged as Linux" in finding.details
    on_linux = explain(f"{text} on Ubuntu 22.04", load_matrix(), similar=False).report.findings
    named = next(f for f in on_linux if f.cause == "cuda_libs_missing")
    assert "names no OS" not in named.details


def test_a_cuda_runtime_is_judged_at_the_precision_the_build_is_known() -> None:
    """TF 1.5-1.12 are listed as built with "CUDA 9" (tested configurations): CUDA 9.0 meets it;
    CUDA 10.0 does not, nor does CUDA 9.0 a release listed with 10.0 (its soname is 10.0's)."""
    # the text of tensorflow/tensorflow#21832 (places.yaml)
    said = "`tensorflow 1.11` + CUDA runtime 9.0 + cudnn 7.3 + nvidia driver 390 on Ubuntu"
    assert _first_cause(said) != "cuda_libs_missing"
    assert _first_cause(said.replace("runtime 9.0", "runtime 10.0")) == "cuda_libs_missing"
    assert _first_cause(said.replace("1.11", "1.13.1")) == "cuda_libs_missing"


def test_a_cuda_version_beside_an_image_with_its_own_cuda_is_not_judged() -> None:
    """tensorflow/tensorflow#41132: the host's CUDA 10.2 is not what TensorFlow loads in the
    tensorflow/tensorflow:2.3.0rc0-gpu image; the GTX 960M (5.0) it cannot run on is the cause."""
    text = (
        "It seem that the Docker image tensorflow/tensorflow:2.3.0rc0-gpu won't work with my GPU\n"
        "- Ubuntu 20.4\n"
        "- GPU model and memory: Geforce GTX 960M, coreClock: 1.176GHz coreCount: 5\n"
        "- GPU drivers: 440.100\n"
        "440.100 and CUDA 10.2 seem to be the default on Ubuntu 20.04 (fresh install)."
    )
    assert _first_cause(text) == "compute_capability_unsupported"
    bare = text.replace("the Docker image tensorflow/tensorflow:2.3.0rc0-gpu", "TensorFlow 2.3.0")
    causes = explain(bare, load_matrix(), similar=False).report.causes
    assert "cuda_libs_missing" in {c.code for c in causes}


def test_pips_conflict_line_names_a_major_break_and_its_own_requirement_is_the_fix() -> None:
    """Protobuf 4 under a TensorFlow that declares protobuf 3 (tensorflow/tensorflow#56815),
    Keras 3 under one that declares Keras 2 (tensorflow/tensorflow#62825): pip's own line is
    the observation, and the requirement it prints is what to install (the 2.9 row of the
    matrix is 2.9.0's, without the <3.20 that 2.9.1 added). A miss within the major (protobuf
    3.20.3 under <3.20, a thread that settled it was harmless) names nothing."""
    broken = (
        "tensorflow 2.9.1 requires protobuf<3.20,>=3.9.2, but you have protobuf 4.21.2 which is "
        "incompatible."
    )
    first = explain(broken, load_matrix(), similar=False).report.first_fix
    assert first is not None
    assert first.cause == "protobuf_incompatible"
    assert (first.fix or "").startswith('pip install "protobuf<3.20,>=3.9.2"')
    keras = (
        "tensorflow 2.15.0.post1 requires keras<2.16,>=2.15.0, but you have keras 3.0.3 which is "
        "incompatible."
    )
    assert _first_cause(keras) == "keras_mismatch"
    harmless = broken.replace("2.9.1", "2.10.0").replace("4.21.2", "3.20.3")
    assert _first_cause(harmless) is None


def test_the_versions_pip_offered_say_which_python_it_was() -> None:
    # https://github.com/openai/gpt-2/issues/277 (settled: TensorFlow 1.x has no wheel for the
    # Python 3.8 the user had): no Python stated; pip's own list starts at 2.2.0rc1, the first
    # release with Python 3.8 wheels, and 1.12 supports 2.7 and 3.3-3.6
    text = """I am trying `pip3 install tensorflow==1.12.0`

Which returns:
`ERROR: Could not find a version that satisfies the requirement tensorflow==1.12.0 (from versions: 2.2.0rc1, 2.2.0rc2, 2.2.0rc3, 2.2.0rc4, 2.2.0, 2.2.1, 2.3.0rc0, 2.3.0rc1, 2.3.0rc2, 2.3.0, 2.3.1, 2.4.0rc0, 2.4.0rc1, 2.4.0rc2, 2.4.0rc3, 2.4.0rc4)
ERROR: No matching distribution found for tensorflow==1.12.0`
"""
    result = explain(text, load_matrix(), similar=False)
    assert result.stated.python_version is None
    first = result.report.first_fix
    assert first is not None
    assert first.cause == "python_unsupported"
    assert "Python 3.8" in first.summary
    # a list that starts where no Python starts (another platform's) says nothing of the Python
    other = explain(text.replace("2.2.0rc1, 2.2.0rc2, 2.2.0rc3, 2.2.0rc4, ", "").replace(
        "2.2.0, 2.2.1, ", ""), load_matrix(), similar=False)  # fmt: skip
    assert other.report.first_fix is not None
    assert other.report.first_fix.cause == "install_resolution_failed"


def test_a_quoted_title_does_not_stand_for_pips_own_line() -> None:
    # https://github.com/tensorflow/tensorflow/issues/60512: the title quotes pip without a
    # version; pip's own line names tensorflow==2.3.0, and 2.3 supports Python 3.5-3.8
    text = """"No matching distribution found for tensorflow" when installing with pip on macOS
### Tensorflow Version

2.3.0

### Python version

3.9

### Current Behaviour?

`ERROR: No matching distribution found for tensorflow==2.3.0`
"""
    first = explain(text, load_matrix(), similar=False).report.first_fix
    assert first is not None
    assert first.cause == "python_unsupported"
    assert "tensorflow==2.3.0" in first.summary


# https://github.com/tensorflow/tensorflow/issues/808 (its title and first post, trimmed):
# CUDA_ERROR_NO_DEVICE inside a container started without the GPU
NO_DEVICE_IN_A_CONTAINER = """CUDA_ERROR_NO_DEVICE inside docker with GTX Titan X

Running `b.gcr.io/tensorflow/tensorflow:latest-gpu` having CUDA 7.0 installed on the host when I try to create the session it returns `CUDA_ERROR_NO_DEVICE` and `was unable to find libcuda.so DSO loaded into this program`

root@5b1e79697b49:~# python
Python 2.7.6 (default, Jun 22 2015, 17:58:13)
>>> import tensorflow as tf
I tensorflow/stream_executor/dso_loader.cc:101] successfully opened CUDA library libcuda.so locally
"""


def test_no_device_inside_a_container_not_given_one_is_the_container() -> None:
    result = explain(NO_DEVICE_IN_A_CONTAINER, load_matrix(), similar=False)
    assert result.stated.place == "docker"
    assert result.report.first_fix is not None
    assert result.report.first_fix.cause == "container_no_gpu"
    # the same words where the text shows the driver answering there (a driver version):
    # the GPU reached the container, and a variable that hides it is the suspect again
    shown = explain(
        NO_DEVICE_IN_A_CONTAINER + "driver version: 418.113\n", load_matrix(), similar=False
    )
    assert shown.report.first_fix is not None
    assert shown.report.first_fix.cause == "gpu_hidden_by_env"
    # and outside any container, nothing but the variable is named
    bare = explain(
        NO_DEVICE_IN_A_CONTAINER.replace(" inside docker", ""), load_matrix(), similar=False
    )
    assert bare.stated.place is None
    assert bare.report.first_fix is not None
    assert bare.report.first_fix.cause == "gpu_hidden_by_env"


def test_a_missing_visual_cpp_runtime_in_tensorflow_1s_words_is_not_cuda() -> None:
    # tensorflow/python/platform/self_check.py (1.x) names msvcp140.dll in the words it uses for
    # CUDA's DLLs: https://github.com/tensorflow/tensorflow/issues/18116
    text = (
        "ImportError: Could not find 'msvcp140.dll'. TensorFlow requires that this DLL be "
        "installed in a directory that is named in your %PATH% environment variable. You may "
        "install this DLL by downloading Visual C++ 2015 Redistributable Update 3 from this URL: "
        "https://www.microsoft.com/en-us/download/details.aspx?id=53587\n"
    )
    first = explain(text, load_matrix(), similar=False).report.first_fix
    assert first is not None
    assert first.cause == "msvc_runtime_missing"
    cuda = explain(text.replace("msvcp140.dll", "cudart64_100.dll"), load_matrix(), similar=False)
    assert cuda.report.first_fix is not None
    assert cuda.report.first_fix.cause == "cuda_libs_missing"


def test_a_gpu_the_text_says_was_wanted_makes_the_no_gpu_lines_evidence() -> None:
    # https://github.com/manishsoni1908/Mobilenet-ssd-keras/issues/10: its title and text say the
    # program does not see the GPU; the one line is normal on a machine without a GPU
    title = "code does not see gpu"
    text = (
        "If I run python and import tensorflow, it sees my gpu fine. But when I run training or "
        "inferencing with this code, it does not:\n"
        "2020-01-19 11:16:48.866550: E tensorflow/stream_executor/cuda/cuda_driver.cc:318] failed "
        "call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    )
    wanted = explain(text, load_matrix(), similar=False, title=title)
    assert wanted.report.verdict.value == "fail"
    assert wanted.report.first_fix is not None
    assert wanted.report.first_fix.cause == "gpu_hidden_by_env"
    line = text.splitlines()[1]
    # the same line beside words that say there is no GPU there, that the CPU is wanted, or that
    # only name a GPU, stays what it is there: normal (tensorflow/tensorflow#57916's "I do not
    # have a GPU and TF is showing me:"; the others as people write them)
    for words in (
        "I do not have a GPU and TF is showing me:",
        "I don't have a GPU, so these can't matter?",
        "My laptop has no GPU and cannot run CUDA",
        "I set CUDA_VISIBLE_DEVICES=-1 so it runs only on the CPU, as I want",
        "I'm not using the GPU on purpose",
    ):
        none = explain(f"{words}\n{line}\n", load_matrix(), similar=False)
        assert none.report.verdict.value == "ok", words
    # words that say neither: with a GPU the line is the cause, without one it is normal; the
    # text is not read as harmless, so it is "cannot tell for sure", never "nothing to fix"
    unsure = explain(
        f"CUDA is not installed. Safe to ignore?\n{line}\n", load_matrix(), similar=False
    )
    assert unsure.report.verdict.value == "warn"
    assert unsure.report.first_fix is not None
    assert unsure.report.first_fix.summary.startswith("cannot tell for sure")
    for words in ("TensorFlow does not use my GPU", "training runs only on the CPU", "GPU无法使用"):
        said = explain(f"{words}\n{line}\n", load_matrix(), similar=False)
        assert said.report.verdict.value == "fail", words


# iterative/cml#654's line: normal on a machine without a GPU
_CUDART_101 = (
    "2021-07-12 10:52:47.496789: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] "
    "Could not load dynamic library 'libcudart.so.10.1'; dlerror: libcudart.so.10.1: cannot open "
    "shared object file: No such file or directory; LD_LIBRARY_PATH: "
    "/usr/local/nvidia/lib:/usr/local/nvidia/lib64"
)


@pytest.mark.parametrize(
    ("words", "verdict"),
    [
        # tensorflow/tensorflow#39132: CUDA stated installed, and TensorFlow's own "if you do not
        # have a GPU set up" quoted: TensorFlow's words, not the user's
        (
            "I'm having this message with cuda 11 installed. It also shows \"Ignore above cudart "
            'dlerror if you do not have a GPU set up on your machine."',
            "fail",
        ),
        ("I installed CUDA 10.0 and cuDNN, then pip install tensorflow-gpu==2.2.0", "fail"),
        ("Then I installed the CUDA 9.0", "fail"),  # tensorflow/tensorflow#16479
        # the set-up beside words that say there is no GPU there, Markdown emphasis and a quoted
        # message around them included (tensorflow/tensorflow#37689)
        (
            "ubuntu 18.04, CUDA 10.1, TF 2.1\non a machine *without* a GPU, the following code "
            'emits "error:  failed call to cuInit: UNKNOWN ERROR".',
            "ok",
        ),
        ("CUDA 10.1 installed, tensorflow-gpu, but this laptop has no GPU", "ok"),
        ("I installed tensorflow-gpu but I do not have a GPU", "ok"),
        # TensorFlow's own words pasted without a prefix are not the writer's
        (
            "I have cuda 11 installed\nIgnore above cudart dlerror if you do not have a GPU set "
            "up on your machine.",
            "fail",
        ),
        ("I use tensorflow-gpu 1.14", "fail"),
        # no set-up, only asked, undone or named otherwise: with a GPU the line is the cause,
        # without one normal, so "cannot tell for sure" (a warning, never "nothing to fix")
        ("Do I need to install CUDA for this?", "warn"),
        ("I uninstalled tensorflow-gpu yesterday", "warn"),
        ("tensorflow-gpu is deprecated so I installed plain tensorflow", "warn"),
        ("pip install tensorflow, not tensorflow-gpu", "warn"),
        # a machine without a GPU, or the CPU wanted, in other words
        ("I run it on the CPU without installing CUDA", "ok"),
        ("I have not installed CUDA since my laptop has no NVIDIA card", "ok"),
        ("I installed CUDA 12.5 but this laptop has no NVIDIA card", "ok"),
        ("CUDA 10.1 installed, but I have no GPU", "ok"),
        ("my laptop only has Intel integrated graphics and CUDA 10.1 is installed", "ok"),
        ("TF 2.15 is built against CUDA 12.2 but I'm on a CPU laptop", "ok"),
        ('My 13" MacBook, without a GPU, has "CUDA 10.1" installed', "ok"),
    ],
)
def test_a_text_set_up_for_a_gpu_makes_the_no_gpu_lines_evidence(words: str, verdict: str) -> None:
    said = explain(f"{words}\n{_CUDART_101}\n", load_matrix(), similar=False).report
    assert said.verdict.value == verdict, words
    if verdict == "fail":
        assert said.first_fix is not None
        assert said.first_fix.cause == "cuda_libs_missing"


def test_no_version_at_all_for_a_python_the_release_supports_is_the_platform() -> None:
    # derrian-distro/LoRA_Easy_Training_Scripts#35: Python 3.10 and tensorflow==2.10.1 (which
    # supports 3.7-3.10); the thread settled on a Mac that needed tensorflow-macos
    title = "No matching distribution found for tensorflow==2.10.1"
    text = (
        "I was having issues with my default 3.10.10 Python version. So I downgraded to 3.10.6 "
        "per your instructions. However now I get the following when running `pip install "
        "--upgrade -r requirements.txt`:\n"
        "ERROR: Could not find a version that satisfies the requirement tensorflow==2.10.1 "
        "(from versions: none)\n"
        "ERROR: No matching distribution found for tensorflow==2.10.1\n"
    )
    first = explain(text, load_matrix(), similar=False, title=title).report.first_fix
    assert first is not None
    assert first.cause == "install_resolution_failed"
    assert "platform" in first.summary
    # the same for a Python no release of 2.10 supports, which came out before any release had
    # wheels for it (3.13.0, 2024-10-07; tensorflow 2.20.0's, 2025-08-13): the Python
    newer = explain(
        text.replace("3.10.10", "3.13.0").replace("3.10.6", "3.13.0"),
        load_matrix(),
        similar=False,
        title=title,
    )
    assert newer.report.first_fix is not None
    assert newer.report.first_fix.cause == "python_unsupported"
    # one that came out after PyPI had tensorflow wheels for it (3.12.6; 2.16.1's, 2024-03-09):
    # pip would list those releases, so "none" is the platform whatever the pin
    later = explain(text.replace("3.10.", "3.12."), load_matrix(), similar=False, title=title)
    assert later.report.first_fix is not None
    assert later.report.first_fix.cause == "install_resolution_failed"
    assert "came out on 20" in later.report.first_fix.summary
    # a bare name, for a Python that releases of today support: the releases of the day the
    # text was written are not known (efenatuyo/xool#9, Python 3.13 in 2025), so the Python
    bare = (
        "When i run requirements\n"
        "pip install -r requirements.txt Requirement already satisfied: requests in "
        "c:\\users\\user\\appdata\\local\\programs\\python\\python313\\lib\\site-packages (from "
        "-r requirements.txt (line 1)) (2.32.3) ERROR: Could not find a version that satisfies the "
        "requirement tensorflow (from versions: none) [notice] A new release of pip is available: "
        "24.3.1 -> 25.0.1 [notice] To update, run: python.exe -m pip install --upgrade pip ERROR: "
        "No matching distribution found for tensorflow\n"
    )
    said = explain(bare, load_matrix(), similar=False).report.first_fix
    assert said is not None
    assert said.cause == "python_unsupported"


def test_a_dll_not_found_is_the_one_that_build_links() -> None:
    # Windows' "The specified module could not be found" (126) importing TensorFlow's library:
    # every CPU build, and GPU builds from tensorflow-gpu 1.15, link only the Visual C++ runtime
    # besides Windows' own DLLs; tensorflow-gpu up to 1.14 links CUDA's and cuDNN's too (the
    # wheels' import tables, rules/install.yaml dll_module_not_found)
    line = "ImportError: DLL load failed: The specified module could not be found."
    first = _first_cause
    # Unity-Technologies/ml-agents#4033: the line alone
    assert first(f"{line}\n") == "msvc_runtime_missing"
    # tensorflow/tensorflow#26298: "I'm running Windows 10 PRO and I'm using Geforce RTX 2070 and
    # TensorFlow-GPU 1.13.1", CUDA 10.1 installed where 1.13 links CUDA 10.0's DLLs
    gpu = "I'm running Windows 10 PRO and I'm using Geforce RTX 2070 and TensorFlow-GPU 1.13.1"
    assert first(f"{line}\n{gpu}\n") == "cuda_libs_missing"
    assert first(f"{line}\n{gpu.replace('1.13.1', '2.0.0')}\n") == "msvc_runtime_missing"
    # a GPU build of a release not stated: either
    assert first(f"{line}\nI'm using TensorFlow-GPU\n") == "tf_import_failed"


def test_a_python_version_before_the_word_is_not_another_names() -> None:
    from tf_gpucheck.reading.textfacts import extract

    assert extract(["keras 3.3 python 3.11"]).python_version == "3.11"
    assert extract(["tensorflow 2.7 python 3.9"]).python_version == "3.9"
    assert extract(["QGIS 3.10 python console"]).python_version is None


def test_no_version_at_all_is_not_the_platform_where_pip_could_not_reach_the_index() -> None:
    # pip 23.2.1, run here: pip download --no-deps --retries 1 --timeout 2 --index-url
    # https://pypi.invalid/simple tensorflow==2.12.0 (its two last lines but one)
    text = (
        "Python 3.10 on Ubuntu\n"
        "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) "
        "after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection."
        "HTTPSConnection object at 0x7f9eaec71550>: Failed to establish a new connection: [Errno "
        "-2] Name or service not known')': /simple/tensorflow/\n"
        "ERROR: Could not find a version that satisfies the requirement tensorflow==2.12.0 (from "
        "versions: none)\n"
    )
    first = explain(text, load_matrix(), similar=False).report.first_fix
    assert first is not None
    assert "platform" not in first.summary


def test_a_dll_another_module_cannot_find_is_not_read_as_tensorflows() -> None:
    # numpy's extension, Python 3.8+'s wording (dynload_win.c): the wheels' import tables say
    # nothing of it
    line = (
        "ImportError: DLL load failed while importing _multiarray_umath: The specified module "
        "could not be found.\n"
    )
    assert _first_cause(line) != "msvc_runtime_missing"


def test_a_library_tensorflow_loads_only_for_a_found_gpu_is_a_failure_on_its_own() -> None:
    # cuDNN and the math libraries are dlopened only after the driver listed a GPU (TF's
    # dlopen_checker.cc from gpu_device.cc): alone, the line still means a GPU goes unused.
    # Titles of https://github.com/tensorflow/tensorflow/issues/45200 and
    # https://github.com/Visual-Behavior/detr-tensorflow/issues/8, as their reporters wrote them.
    for text, cause in (
        ("Could not load dynamic library 'libcudnn.so.8'", "cudnn_missing"),
        (
            "Could not load dynamic library 'libcusolver.so.10'; dlerror: libcusolver.so.10",
            "cuda_libs_missing",
        ),
    ):
        report = explain(text, load_matrix(), similar=False).report
        assert report.verdict.value == "fail", text
        assert report.causes[0].code == cause
    # the CUDA runtime alone is tried with or without a GPU: never a failure by itself
    # (https://github.com/google/lightweight_mmm/issues/23, which ran fine on the CPU); where
    # the text as a whole does not read as harmless, both readings are named
    report = explain(
        "2022-06-22 15:44:53.578885: W tensorflow/stream_executor/platform/default/dso_loader.cc:64]"
        " Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
        load_matrix(),
        similar=False,
    ).report
    _normal_without_a_gpu(report)


def test_lines_normal_without_a_gpu_beside_words_of_a_failure_cannot_be_told_ok() -> None:
    # https://github.com/volotat/DiffMorph/issues/19, title and text as written: the line is
    # normal without a GPU, the words say it was an error: neither "ok" nor a sure failure
    report = explain(
        "\"Could not load dynamic library 'cudart64_110.dll'\"\n",
        load_matrix(),
        similar=False,
        title="Need to mention CUDA 11.3 lib as a requirement if running on RTX for missing "
        "cudart64_110.dll error",
    ).report
    assert report.verdict.value == "warn"
    first = report.first_fix
    assert first is not None
    assert first.cause == "cuda_libs_missing"
    assert first.summary.startswith("cannot tell for sure from the text whether this machine has")
    assert "nvidia-smi on that machine" in first.summary
    assert first.fix  # the fix for the machine that has the GPU is still given


def test_words_of_a_failure_outweigh_a_reading_as_harmless() -> None:
    # https://github.com/Kyubyong/dc_tts/issues/59 (settled: CUDA 10.0's runtime was missing),
    # title and text as written: whatever the model reads, the writer says it can't find the
    # library, so the answer is "cannot tell", never "nothing to fix"
    text = (
        "When I am running prepo.py, it says:\n`W tensorflow/stream_executor/platform/default/"
        "dso_loader.cc:55] Could not load dynamic library 'cudart64_100.dll'; dlerror: "
        "cudart64_100.dll not found`\n"
    )
    report = explain(
        text,
        load_matrix(),
        similar=False,
        title="Prepo.py says it can't find cudart64_100.dll",
        exclude="https://github.com/Kyubyong/dc_tts/issues/59",
    ).report
    assert report.verdict.value == "warn"
    assert report.first_fix is not None
    assert report.first_fix.cause == "cuda_libs_missing"
    # the same lines with no words of the writer's are never a failure by themselves
    _normal_without_a_gpu(explain(text.split("\n", 1)[1], load_matrix(), similar=False).report)


def _normal_without_a_gpu(report: Report) -> None:
    """A line that is normal without a GPU, alone: "nothing to fix", or "cannot tell for sure"
    with both readings and what decides; never a failure."""
    assert report.verdict.value in ("ok", "warn")
    if report.verdict.value == "warn":
        first = report.first_fix
        assert first is not None
        assert first.summary.startswith("cannot tell for sure from the text whether this machine")
        assert "without one these lines are normal" in first.summary


def test_the_writers_words_beside_a_message_quoted_without_its_prefix_are_read() -> None:
    # https://stackguides.com/questions/59823283 (title and text as posted): "CPU-only" is the
    # writer's, around the quoted message; TensorFlow's own "if you do not have a GPU set up"
    # after "Ignore above cudart dlerror" is TensorFlow's (the rule's real example shows it)
    from tf_gpucheck.reading import logscan, wanted

    title = "Could not load dynamic library 'cudart64_101.dll' on tensorflow CPU-only installation"
    assert wanted.said(logscan.classify([title])) == ["on tensorflow cpu-only installation"]
    tf_words = "Ignore above cudart dlerror if you do not have a GPU set up on your machine."
    assert wanted.said(logscan.classify([tf_words])) == []
    report = explain(
        "2020-01-20 12:27:44.554767: W tensorflow/stream_executor/platform/default/dso_loader.cc:55]"
        " Could not load dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found\n",
        load_matrix(),
        similar=False,
        title=title,
    ).report
    assert report.verdict.value == "ok"


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/tensorflow/fold/issues/64",  # "GPU utilisation around 10%"
        "https://github.com/xuyanfu/TensorFlow_RLRE/issues/12",  # "训练RL模型效率非常慢"
        "https://github.com/google-research/google-research/issues/1139",  # "gpus are idle"
        "https://github.com/mozilla/DeepSpeech/issues/776",  # "a computational bottleneck"
    ],
)
def test_a_performance_complaint_is_never_nothing_to_fix(url: str) -> None:
    """Real performance stories (benchmarks/samples/seventeenth, settled as the GPU waiting for
    work): no log line names a cause, and the words say something is wrong (slow, idle, low
    utilisation, a bottleneck): the answer is never "nothing to fix"."""
    import yaml

    sample = Path(__file__).parents[1] / "benchmarks" / "samples" / "seventeenth"
    report = next(
        r for r in yaml.safe_load((sample / "b_noise_perf.yaml").read_text()) if r["url"] == url
    )
    assert report["cause"] == "gpu_underused"
    result = explain(report["text"], load_matrix(), title=report["title"])
    assert result.report.verdict.value != "ok", result.report.first_fix


def test_a_cuda_named_by_its_major_alone_is_not_judged_against_a_minor() -> None:
    # https://github.com/keras-team/keras/issues/12379: "CUDA:10" beside TensorFlow 2.0, which
    # needs 10.0: the text does not say which CUDA 10, so nothing says it is the wrong one
    text = "TensorFlow-gpu-2.0-preview\nKeras :2.2.4\nOS:Windows 10\npython:3.6\nCUDA:10\n"
    result = explain(text, load_matrix())
    assert not any("TensorFlow needs" in f.summary for f in result.report.findings)


def test_cuda_8_supports_pascal() -> None:
    # https://github.com/tensorflow/tensorflow/issues/7648: a GTX 1060 (Pascal, 6.1) with
    # TensorFlow 1.0, built with CUDA 8 (the matrix writes "8"), the first CUDA with Pascal
    text = (
        "* a GTX 1060 that I want to dedicate to tensorflow\nI use:\n"
        "* [tensorflow-1.0.0](https://pypi.python.org/pypi/tensorflow)\n"
        "* cuda-8.0 ([ls -l /usr/local/cuda/lib64/libcud*](https://gist.github.com/oelmekki/"
        "6e5e9d7d1ea871e1d73efae307efe9ce))\n* cudnn-5.1.10\n"
    )
    result = explain(text, load_matrix())
    assert result.stated.tf_version == "1.0.0"
    assert not any("predates" in f.summary for f in result.report.findings)


@pytest.mark.parametrize(
    "text",
    [
        # https://github.com/tensorflow/tensorflow/issues/36429 (a Raspberry Pi's RAM ran out)
        "2020-02-01 11:57:36.437688: W tensorflow/core/framework/cpu_allocator_impl.cc:81] "
        "Allocation of 10616832 exceeds 10% of system memory.\nKilled\n",
        # https://github.com/tensorflow/tensorflow/issues/49928 (pasted without the timestamp)
        "W tensorflow/core/framework/allocator.cc:108] Allocation of 105062400000 exceeds 10% of "
        "system memory. \nSegmentation fault\n",
    ],
)
def test_a_harmless_notice_followed_by_the_process_dying_is_not_nothing(text: str) -> None:
    result = explain(text, load_matrix())
    assert [line.rule for line in result.lines] == ["cpu_allocation_share"]  # harmless alone
    assert result.report.verdict.value != "ok"


def test_a_question_about_the_versions_it_states_is_not_answered_nothing_to_fix() -> None:
    """mozilla/DeepSpeech#2178: two CUDA versions and a question. Whoever asks whether it will
    run does not know that it works, so the short text is read as a whole, not passed as fine;
    the same versions stated without a question are judged and left alone."""
    title = "What happens if I run DeepSpeech with CUDA 10.1.105 instead of 10.0.103?"
    asked = explain("Will deepspeech even run? Can I upgrade?", load_matrix(), title=title)
    assert asked.report.verdict.value != "ok"
    assert asked.report.causes
    told = explain("I installed tensorflow 2.16.1 and I have CUDA 12.3", load_matrix())
    assert told.report.verdict.value == "ok"


def test_a_tensorflow_gpu_release_pip_cannot_find_gets_the_python_that_release_needs() -> None:
    """tensorflow-gpu had wheels up to 2.11: a pinned 1.x pip finds no build of names the Python
    that release has wheels for (compat_matrix.yaml), not "tensorflow-gpu is gone" and not a move
    to the newest TensorFlow. The pip line of dmis-lab/biobert#120, whose reply says "You're
    probably using python 3.7 or 3.8"."""
    text = (
        "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==1.11.0 "
        '(from -r requirements.txt (line 1)) (from versions: 1.13.1,..."\n'
    )
    fix = _first_fix(text, "install_resolution_failed")
    assert "tensorflow-gpu 1.11.0" in fix
    assert "3.3-3.6" in fix  # tensorflow.org's tested build configurations: 1.11.0, 2.7, 3.3-3.6
    assert "gone" not in fix
    assert "2.21" not in fix


def test_tensorflow_gpu_as_an_alias_is_replaced_by_the_same_release() -> None:
    """serengil/deepface#235 states its release and no Python: the fix keeps TensorFlow 2.5.0
    (with CUDA 11.2 and cuDNN 8.1, as tensorflow.org's tested build configurations list it)
    instead of an unpinned install of the newest."""
    text = (
        "I installed tensorflow-gpu==2.5.0 instead of tensorflow. While the inference is still "
        "running on CPU, which is pretty slow."
    )
    assert _first_fix(text, "tensorflow_gpu_deprecated") == (
        'pip uninstall -y tensorflow-gpu && pip install "tensorflow==2.5.0"'
        "  # with CUDA 11.2 and cuDNN 8.1"
    )


def test_a_build_that_is_not_pypi_s_is_not_judged_by_pypi_s_kernels() -> None:
    """tensorflow/tensorflow#24677 ran TensorFlow 1.11 from NVIDIA's image on RTX 2080 Ti cards
    (settled: only the lack of peer-to-peer access without NVLink): NVIDIA builds its own, with
    its own CUDA, so PyPI's CUDA 9 wheel of 1.11 says nothing about that GPU. The same facts
    with PyPI's wheel are judged."""
    facts = (
        "- TensorFlow version (use command below): v1.11.0-0-gc19e29306c 1.11.0\n"
        "- Python version: 3.5.2\n"
        "- GPU model and memory: RTX 2080Ti (4 pcs.)\n"
    )
    matrix = load_matrix()
    image = "- TensorFlow installed from (source or binary): NVIDIA DOCKER Image\n"
    report = explain(image + facts, matrix, similar=False).report
    assert all(f.check != "compute_capability" for f in report.findings)
    assert report.verdict.value != "fail"  # nothing here is known to be wrong
    wheel = "- TensorFlow installed from (source or binary): binary\n"
    judged = explain(wheel + facts, matrix, similar=False).report
    assert [f.cause for f in judged.findings if f.check == "compute_capability"] == [
        "compute_capability_unsupported"
    ]


def test_a_real_pip_run_that_finds_no_tensorflow_gpu_1_15_for_python_3_11() -> None:
    """A real pip 23.2.1 run under CPython 3.11.7 (tests/data/logs/real/README.md): pip offers
    only tensorflow-gpu 2.12.0, so the Python is the cause, and the fix names the Pythons of
    1.15 (tensorflow.org's tested build configurations: 3.3-3.7), not "tensorflow-gpu is gone"."""
    text = (REAL / "pip-py311-tfgpu115_pip-install.stderr").read_text()
    fix = _first_fix(text, "python_unsupported")
    assert "1.15.0" in fix
    assert "3.3-3.7" in fix
    assert "gone" not in fix


def test_tensorflows_own_no_device_line_is_not_the_writer_saying_there_is_no_gpu() -> None:
    """cuda_diagnostics.cc prints "no NVIDIA GPU device is present: /dev/nvidia0 does not exist"
    when the kernel module is loaded but the process has no device node (a container or job
    given no GPU). Quoted in a title or pasted with its prefix, it is TensorFlow's line, not the
    writer saying the machine has no GPU, so the report is not answered "nothing to fix"
    (real lines of deepmedic/deepmedic#128)."""
    from tf_gpucheck.reading import logscan, wanted

    printed = (
        "2018-09-10 16:52:29.739595: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:152] "
        "no NVIDIA GPU device is present: /dev/nvidia0 does not exist"
    )
    classified = logscan.classify([printed, "no NVIDIA GPU device is present!"])
    assert classified[0].rule is not None
    assert classified[0].rule.id == "no_device_node"
    assert not wanted.says_no_gpu_here(wanted.said(classified))
    assert wanted.says_no_gpu_here(wanted.said(logscan.classify(["My laptop has no NVIDIA GPU."])))
    text = (
        "I am trying to run your code on a server including several NVIDIA GPUs. When I submit "
        "the job I get the following errors:\n"
        "2018-09-10 16:52:29.739483: E tensorflow/stream_executor/cuda/cuda_driver.cc:397] "
        f"failed call to cuInit: CUDA_ERROR_NO_DEVICE\n{printed}\n"
    )
    report = explain(text, load_matrix(), title="no NVIDIA GPU device is present!").report
    assert report.verdict.value != "ok"
    assert any(f.cause == "container_no_gpu" for f in report.findings)


@pytest.mark.parametrize(
    "text",
    [
        # https://github.com/xuyanfu/TensorFlow_RLRE/issues/12
        "训练RL模型效率非常慢\n跑在GPU上，比跑在CPU上还要慢。这可能是什么原因导致的呢？",
        # https://github.com/stanleylsx/entity_extractor_by_ner/issues/32
        "predict接口 cpu下推理速度比GPU下快\n请教一个问题，predict.py代码在cpu下的性能压测竟然比"
        "GPU下快，不知道楼主有没有遇到过，谢谢。",
    ],
)
def test_a_gpu_the_writer_finds_slower_than_the_cpu_is_waiting_for_work(text: str) -> None:
    first = explain(text, load_matrix()).report.first_fix
    assert first is not None
    assert first.cause == "gpu_underused"


# https://github.com/bojone/bert4keras/issues/373: versions stated, a Keras import error, and no
# word of a GPU anywhere
NO_GPU_WORDS = """请教一下大家的配置问题，在导入keras时总是版本错误报错。
我的配置 mac os 10.15.7 (19H2)
python 3.6
keras==2.3.1
tensorflow==1.14
两者都是直接使用pip3安装，但是导入keras时/运行程序时报错：
`AttributeError: module 'tensorflow._api.v1.compat.v2.compat' has no attribute 'v1'`
"""


def test_a_build_without_gpu_support_is_no_fault_where_the_text_names_no_gpu() -> None:
    report = explain(NO_GPU_WORDS, load_matrix()).report
    first = report.first_fix
    assert first is not None
    assert first.cause not in ("tf_cpu_only_build", "macos_no_cuda")
    notes = {
        f.cause: f.status
        for f in report.findings
        if f.cause in ("tf_cpu_only_build", "macos_no_cuda")
    }
    # said beside what the text is about, below it
    assert set(notes) == {"tf_cpu_only_build", "macos_no_cuda"}
    assert all(status.severity < first.status.severity for status in notes.values())
    # the same facts in a text that wants the GPU: the CPU build is the fault again
    wanted = explain(NO_GPU_WORDS + "训练时没有用到GPU\n", load_matrix()).report
    assert wanted.first_fix is not None
    assert wanted.first_fix.cause in ("tf_cpu_only_build", "macos_no_cuda")


def test_keras_before_it_followed_tensorflows_numbers_is_tf_keras() -> None:
    from tf_gpucheck.checks import remedies
    from tf_gpucheck.checks.diagnosis import Known

    fix = remedies.fix_for(Known(tf_version="1.14"), load_matrix())("keras_mismatch", [])
    assert fix is not None
    assert "keras~=1.14" not in fix
    assert "from tensorflow import keras" in fix
    later = remedies.fix_for(Known(tf_version="2.12.0"), load_matrix())("keras_mismatch", [])
    assert later is not None
    assert "keras~=2.12.0" in later


def test_another_package_pip_cannot_find_is_not_fixed_by_installing_tensorflow() -> None:
    # https://github.com/tensorflow/io/issues/2117
    text = (
        'When I run "pip install tensorflow-io"\n\n'
        "ERROR: Could not find a version that satisfies the requirement tensorflow-io (from "
        "versions: none)\nERROR: No matching distribution found for tensorflow-io\n"
    )
    first = explain(text, load_matrix()).report.first_fix
    assert first is not None
    assert first.fix is not None
    assert "https://pypi.org/project/tensorflow-io/#files" in first.fix
    assert "tensorflow[and-cuda]" not in first.fix


def test_no_tensorflow_at_all_for_a_python_the_named_release_supports_is_the_platform() -> None:
    # https://github.com/tensorflow/tensorflow/issues/42384 (it was a 32-bit Python)
    text = (
        "- OS Platform and Distribution (e.g., Linux Ubuntu 16.04): Windows 10 Home\n"
        "- TensorFlow version: 2.3\n- Python version: 3.8\n"
        "Cannot install any tensorflow version.\n\n"
        "ERROR: Could not find a version that satisfies the requirement tensorflow (from "
        "versions: none)\nERROR: No matching distribution found for tensorflow\n"
    )
    first = explain(text, load_matrix()).report.first_fix
    assert first is not None
    assert first.cause == "install_resolution_failed"
    assert "the TensorFlow 2.3.0 it names supports Python 3.8" in first.summary
    assert "32-bit Python" in first.summary


def test_harmless_lines_do_not_settle_a_gpu_the_writer_says_will_not_start() -> None:
    # https://github.com/Kyubyong/bytenet_translation/issues/2: only TensorFlow 1.x's CPU-feature
    # notices, under the title "why I can not start my GPU"
    guard = (
        "2017-06-14 19:57:14.658704: W tensorflow/core/platform/cpu_feature_guard.cc:45] The "
        "TensorFlow library wasn't compiled to use SSE4.1 instructions, but these are available "
        "on your machine and could speed up CPU computations.\n"
    )
    text = f"CUDA_VISIBLE_DEVICES=0 python train.py\nGraph loaded\n{guard}"
    assert explain(text, load_matrix()).report.verdict.value == "ok"  # the lines alone: harmless
    titled = explain(text, load_matrix(), title="why I can not start my GPU").report
    assert titled.verdict.value != "ok"


@pytest.mark.parametrize(
    ("title", "text"),
    [
        (  # https://github.com/Unity-Technologies/ml-agents/issues/3199 (gpu_busy: the editor)
            "Training using GPU crashes when unity editor is running",
            "Training immediately crashes when running against unity editor.\n"
            "2020-01-10 10:40:45.137803: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1304]"
            " Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 6283 MB"
            " memory) -> physical GPU (device: 0, name: GeForce RTX 2070 SUPER, pci bus id: "
            "0000:01:00.0, compute capability: 7.5)\n",
        ),
        (  # https://github.com/tensorflow/tensorflow/issues/526: a failed CHECK quoted in prose
            "Context in use?",
            "I am still seeing the same cuda error for tensorflow 0.7. The error is ```Check "
            "failed: CUDA_SUCCESS == dynload::cuCtxSetCurrent(context) (0 vs. 216)```\n"
            "I tensorflow/stream_executor/dso_loader.cc:105] successfully opened CUDA library "
            "libcublas.so.7.5 locally\n",
        ),
        (  # https://github.com/keras-team/keras/issues/19002: TensorFlow's listing comes back empty
            "Can get CUDA to work with torch but not with tensorflow",
            "2023-12-30 07:34:38.891617: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38]"
            " TF-TRT Warning: Could not find TensorRT\n\n"
            "tf.test.gpu_device_name()  #should get a name but return is empty\n"
            "tf.config.list_physical_devices(\u2018GPU\u2019) #  returns [ ] \n",
        ),
    ],
)
def test_harmless_lines_do_not_settle_a_crash_or_an_empty_gpu_list(title: str, text: str) -> None:
    """Every line a rule knows here is harmless, but the writer says the program crashed, quotes
    TensorFlow's failed CHECK, or says the GPU listing came back empty: never "nothing to fix"."""
    report = explain(text, load_matrix(), title=title).report
    assert report.verdict.value != "ok"
    assert report.first_fix is not None
