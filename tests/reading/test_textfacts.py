"""textfacts.extract(): what pasted text states about the machine, and nothing it does not.

Every input is real: quoted from the public issue named next to it, or read from a recording
of this project's machine (tests/data/logs/real and its README.md).
"""

from __future__ import annotations

import dataclasses

import pytest

from tests.paths import DATA, ROOT
from tf_gpucheck.reading.textfacts import StatedFacts, extract
from tf_gpucheck.reading.textlines import normalise

REAL = DATA / "logs" / "real"


def _facts(text: str) -> StatedFacts:
    return extract(normalise(text))


def test_nvidia_smi_on_windows_with_a_truncated_name() -> None:
    # https://github.com/tensorflow/tensorflow/issues/41401
    pasted = """nvidia-smi

```
Wed Jul 15 15:14:29 2020
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 451.48       Driver Version: 451.48       CUDA Version: 11.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  GeForce GTX 108... WDDM  | 00000000:01:00.0 Off |                  N/A |
| 25%   30C    P8     9W / 250W |   1310MiB / 11264MiB |      1%      Default |
+-------------------------------+----------------------+----------------------+
```
"""
    facts = _facts(pasted)
    assert (facts.driver_version, facts.cuda_driver_version) == ("451.48", "11.0")
    assert facts.gpus == ()  # "GeForce GTX 108..." is cut: no name rather than a wrong one
    assert facts.line_of("driver_version") == 3


def test_nvidia_smi_without_a_cuda_version_and_with_an_error() -> None:
    # https://github.com/fireice-uk/xmr-stak-nvidia/issues/39 (driver 384: no "CUDA Version")
    old = extract(
        [
            "| NVIDIA-SMI 384.66                 Driver Version: 384.66                    |",
            "|   0  TITAN Xp            Off  | 00000000:41:00.0  On |                  N/A |",
        ]
    )
    assert (old.driver_version, old.cuda_driver_version) == ("384.66", None)
    # nvidia-smi names no compute capability: NVIDIA's list does (knowledge/gpus.yaml)
    assert old.gpus == (("TITAN Xp", "6.1"),)
    # https://github.com/microsoft/WSL/issues/11589: "CUDA Version: ERR!" is no version
    broken = extract(
        [
            "| NVIDIA-SMI 545.46                 Driver Version: 546.80       CUDA Version: ERR!     |",
            "|   0  NVIDIA GeForce RTX 3060 ...    On  | 00000000:01:00.0  On |                  N/A |",
        ]
    )
    assert (broken.driver_version, broken.cuda_driver_version, broken.gpus) == (
        "546.80",
        None,
        (),
    )


def test_tensorflow_2_20_log_names_the_gpu_and_its_compute_capability() -> None:
    # https://github.com/wutzebaer/tensorflow-5090/issues/3
    facts = extract(
        [
            "TensorFlow Version: 2.20.0-dev0+selfbuilt",
            "I0000 00:00:1748720218.610720      27 gpu_device.cc:2019] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 13272 MB memory:  -> device: 0, name: NVIDIA GeForce RTX 5060 Ti, pci bus id: 0000:2b:00.0, compute capability: 12.0",
            "2025-05-31 19:36:59.180792: I external/local_xla/xla/service/service.cc:161]   StreamExecutor device (0): NVIDIA GeForce RTX 5060 Ti, Compute Capability 12.0",
        ]
    )
    assert facts.tf_version == "2.20.0-dev0+selfbuilt"
    assert facts.gpus == (("NVIDIA GeForce RTX 5060 Ti", "12.0"),)
    assert facts.line_of("gpus") == 1


def test_tensorflow_2_4_found_device_and_a_python_banner() -> None:
    # https://github.com/tensorflow/tensorflow/issues/48558
    facts = extract(
        [
            "[GCC 7.3.0] :: Anaconda, Inc. on linux",
            "2021-04-16 16:46:25.884063: I tensorflow/stream_executor/platform/default/dso_loader.cc:44] Successfully opened dynamic library libcuda.so.1",
            "2021-04-16 16:46:25.889366: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1561] Found device 0 with properties: ",
            "pciBusID: 0000:00:07.0 name: GRID T4-4Q computeCapability: 7.5",
        ]
    )
    assert facts.gpus == (("GRID T4-4Q", "7.5"),)
    assert facts.os == "Linux"
    # TF 2.0 prints major and minor apart (https://github.com/tensorflow/tensorflow/issues/33375)
    older = extract(
        [
            "2019-10-15 15:23:07.780261: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1618] Found device 0 with properties: ",
            "name: GeForce RTX 2080 Ti major: 7 minor: 5 memoryClockRate(GHz): 1.545",
        ]
    )
    assert older.gpus == (("GeForce RTX 2080 Ti", "7.5"),)


def test_a_quoted_repl_session() -> None:
    # https://github.com/tensorflow/tensorflow/issues/88676
    pasted = "\n".join(
        [
            "> ```",
            "> (tf_env) maayara@venkat-gpu1:~$ python3",
            "> Python 3.9.21 (main, Dec 11 2024, 16:24:11) ",
            "> [GCC 11.2.0] :: Anaconda, Inc. on linux",
            '> Type "help", "copyright", "credits" or "license" for more information.',
            "> >>> import tensorflow as tf",
            "> >>> print(tf.__version__)",
            "> 2.18.0",
            '> >>> print(tf.config.list_physical_devices("GPU"))',
            "> [PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU'), PhysicalDevice(name='/physical_device:GPU:1', device_type='GPU')]",
            "> >>> exit()",
        ]
    )
    facts = _facts(pasted)
    assert (facts.tf_version, facts.python_version, facts.os) == ("2.18.0", "3.9.21", "Linux")


def test_windows_traceback_paths() -> None:
    # https://github.com/tensorflow/models/issues/7784
    facts = extract(
        [
            '  File "c:\\users\\f174s322\\pycharmprojects\\nn_trial run\\trial_1_jan_19_2020\\venv\\lib\\site-packages\\tensorflow_core\\python\\pywrap_tensorflow.py", line 58, in <module>',
            '  File "C:\\Program Files\\Python37\\lib\\imp.py", line 242, in load_module',
            "ImportError: DLL load failed: The specified module could not be found.",
        ]
    )
    assert (facts.os, facts.python_version) == ("Windows", "3.7")
    assert facts.is_wsl is None


def test_issue_template_answers_and_wsl() -> None:
    # https://github.com/tensorflow/tensorflow/issues/60101 (headings and answers, blank lines
    # between them as in the issue)
    pasted = """### Tensorflow Version

2.12.0

### OS Platform and Distribution

Windows 11 + WSL2

### Python version

3.11
"""
    facts = _facts(pasted)
    assert (facts.tf_version, facts.python_version) == ("2.12.0", "3.11")
    assert (facts.os, facts.is_wsl) == ("Linux", True)
    # a WSL1 kernel (https://github.com/microsoft/WSL/issues/5554)
    wsl1 = extract(["Error! Your kernel headers for kernel 4.4.0-19041-Microsoft cannot be found."])
    assert wsl1.is_wsl is True


def test_cuda_visible_devices() -> None:
    # https://github.com/tensorflow/tensorflow/issues/45200
    assert extract(['os.environ["CUDA_VISIBLE_DEVICES"]="7, 8, 9"']).cuda_visible_devices == (
        "7, 8, 9"
    )
    # set empty, which hides every GPU (https://github.com/Franck-Dernoncourt/NeuroNER/issues/66)
    facts = extract(
        [
            'CUDA_VISIBLE_DEVICES="" python3.5 ./src/main.py',
            '  File "/usr/local/lib/python3.5/dist-packages/tensorflow/python/pywrap_tensorflow.py", line 41, in <module>',
        ]
    )
    assert facts.cuda_visible_devices == ""
    assert (facts.python_version, facts.os) == ("3.5", "Linux")


def test_a_real_environment_from_this_machine() -> None:
    # run: tf210-py310 (pip-freeze, pip-version, python-V) and tf221-andcuda-py311 (probe.stdout)
    lines = (REAL / "tf210-py310_pip-freeze.stdout").read_text().splitlines()
    lines += [
        "pip 23.0.1 from /work/corpus/envs/tf210-py310/lib/python3.10/site-packages/pip (python 3.10)",
        "Python 3.10.13",
    ]
    facts = extract(lines)
    assert (facts.tf_version, facts.python_version, facts.os) == ("2.10.1", "3.10.13", "Linux")
    build = extract((REAL / "tf221-andcuda-py311_probe.stdout").read_text().splitlines())
    assert (build.cuda_build_version, build.cudnn_build_version) == ("12.5.1", "9")
    assert build.tf_version is None  # a bare "2.21.0" on its own line is not a stated fact


def test_contradictions_give_no_fact() -> None:
    # two environments pasted together (run: tf210-py310 and tf215-py311 pip-freeze.stdout)
    facts = extract(["tensorflow==2.10.1", "tensorflow==2.15.1"])
    assert facts.tf_version is None
    # pip's "different python version" names a TensorFlow version, not a Python version
    # (format of pypa/pip: src/pip/_internal/resolution/resolvelib/factory.py)
    pip = extract(
        [
            "ERROR: Ignored the following versions that require a different python version: 2.16.1 Requires-Python >=3.9"
        ]
    )
    assert pip.python_version is None
    assert extract([]) == StatedFacts()


def test_skipping_plain_lines_changes_no_answer() -> None:
    # every real text in the repository: recordings, and the examples of every log rule
    from tf_gpucheck.reading.logrules import load

    texts = [
        path.read_text(encoding="utf-8", errors="replace")
        for path in sorted(REAL.iterdir())
        if path.is_file()
    ]
    texts.append("\n".join(example.line for rule in load() for example in rule.examples))
    assert len(texts) > 10
    for text in texts:
        lines = normalise(text)
        assert extract(lines) == extract(lines, skip_plain=False)


def test_gpu_names_get_nvidias_compute_capability() -> None:
    """Every example of knowledge/gpus.yaml maps to its entry's compute capability (the first
    entry that matches wins, so an example taken by an earlier entry fails here)."""
    import yaml

    from tf_gpucheck.reading.gpunames import capability_of

    data = yaml.safe_load((ROOT / "src/tf_gpucheck/knowledge/gpus.yaml").read_text())
    for entry in data["gpus"]:
        for example in entry["examples"]:
            assert capability_of(example) == entry["cc"], example
    assert capability_of("a GPU nobody makes") is None


@pytest.mark.parametrize(
    ("line", "fact", "needed", "installed"),
    [
        # tensorflow/tensorflow#26254
        (
            "TF installation via pip is pointing to 1.13.1, requiring CUDA 10",
            "cuda_version",
            "10",
            None,
        ),
        # THUNLP-MT/THUMT#43: "must CUDA be 9.0? my machine has CUDA 8.0"
        ("CUDA一定要9.0吗？我的机器是CUDA 8.0的，并不能使用GPU训练", "cuda_version", "9.0", "8.0"),
    ],
)
def test_a_version_said_to_be_needed_is_not_the_installed_one(
    line: str, fact: str, needed: str, installed: str | None
) -> None:
    facts = extract([line])
    assert (fact, needed) in facts.needed
    assert getattr(facts, fact) == installed


def test_versions_inside_cjk_prose_are_read() -> None:
    # czy36mengfei/tensorflow2_tutorials_chinese#12: "TF version is the 2.0 release"
    assert extract(["TF版本是2.0正式版，电脑重启试过还是同样的问题。"]).tf_version == "2.0"
    # THUNLP-MT/THUMT#43: "my machine is CUDA 8.0's"
    assert extract(["我的机器是CUDA 8.0的"]).cuda_version == "8.0"
    # "12 GB" after CUDA is memory, not a version
    assert extract(["CUDA 12 GB of memory"]).cuda_version is None


# Real lines of non-English reports (each from the thread named), and what they state: the
# versions are read inside the prose of their script, and a needed version apart from an
# installed one.
LINES_IN_OTHER_LANGUAGES = [
    # https://github.com/lltcggie/waifu2x-caffe/issues/65: "update to the newest driver for CUDA 8.0"
    ("CUDA 8.0に対応した最新のドライバーに更新してください", {}, {"cuda_version": "8.0"}),
    # https://github.com/SIAnalytics/simplified_rbox_cnn/issues/5
    (
        "Tensorflow1.6을 사용하라고 제시되어있는데, 제가 사용하는 GPU가 CUDA9.0이랑 호환이 되지 않기에",
        {"tf_version": "1.6", "cuda_version": "9.0"},
        {},
    ),
    # https://kaen2891.tistory.com (Korean notes on installing CUDA)
    (
        "최근 tensorflow 2.0이 release 된 이후로, cuda 설치가 매우 간단해졌다.",
        {"tf_version": "2.0"},
        {},
    ),
    # https://github.com/ria-com/nomeroff-net/issues/91
    (
        "Здравствуйте. Пытаюсь запустить Ваш код на tensorflow 2.2.0, вылетает ошибка:",
        {"tf_version": "2.2.0"},
        {},
    ),
    # https://github.com/ria-com/nomeroff-net/issues/95
    (
        "Пытаюсь прикрутить вашу работу на Jetson Nano,  все установилось, tensorflow 1.15.3 "
        "взял из ресурсов Nvidia.",
        {"tf_version": "1.15.3"},
        {},
    ),
    # https://github.com/soeaver/py-RFCN-priv/issues/18
    (
        "Hi, 非常感谢你们的工作。我使用k40, cuda8.0, cudnn6.0编译不通过，请问你们用的是什么版本的cuda和cudnn？",
        {"cuda_version": "8.0", "cudnn_version": "6.0"},
        {},
    ),
    # https://github.com/CalayZhou/MBNet/issues/40
    (
        "您好，我的环境配置是GTX1080Ti-cuda10.0.130-cudnn7.6.5-tensorflow1.14.0-keras2.1.6，请问是哪个版本不对呢？",
        {"tf_version": "1.14.0", "cuda_version": "10.0.130", "cudnn_version": "7.6.5"},
        {},
    ),
    # https://github.com/zouguojian/RCL-Learning/issues/3
    (
        "我的环境是：CUDA 10.0+tensorflow-gpu1.13+py3.6 3060的显卡",
        {"tf_version": "1.13", "cuda_version": "10.0", "python_version": "3.6"},
        {},
    ),
    # https://github.com/opendatalab/PDF-Extract-Kit/issues/76: "recommended: cuda 11.8 + cudnn 8.7.0"
    ("推荐cuda11.8+cudnn8.7.0", {}, {"cuda_version": "11.8", "cudnn_version": "8.7.0"}),
    # https://github.com/fenghuayumo/DIVSHOT/issues/12
    ("gpu driver版本：546.30", {"driver_version": "546.30"}, {}),
    # http://www.mynw.cn/news/389122.html: "CUDA Toolkit: must be 11.2"
    ("- CUDA Toolkit:必须是11.2", {}, {"cuda_version": "11.2"}),
]


@pytest.mark.parametrize(("line", "installed", "needed"), LINES_IN_OTHER_LANGUAGES)
def test_versions_in_the_prose_of_other_languages(
    line: str, installed: dict[str, str], needed: dict[str, str]
) -> None:
    facts = extract([line])
    for fact in ("tf_version", "cuda_version", "cudnn_version", "python_version", "driver_version"):
        assert getattr(facts, fact) == installed.get(fact), (fact, line)
    assert dict(facts.needed) == needed


def test_a_long_job_log_that_repeats_its_lines_states_what_one_copy_states() -> None:
    """A training job's log repeats a few lines for hours (each pair of lines is read once):
    repeated, a real recording states what it states once; a line that comes only after
    100,000 repeated ones is still read, at its own index."""
    probe = normalise(
        (REAL / "tf210-np2-py310_import-tensorflow.stderr").read_text(encoding="utf-8")
    )
    fit = normalise((REAL / "tf221-py311_fit-dense.stdout").read_text(encoding="utf-8"))
    freeze = normalise((REAL / "tf210-py310_pip-freeze.stdout").read_text(encoding="utf-8"))

    once, thrice = extract(probe), extract(probe * 3)
    assert dataclasses.replace(thrice, evidence=(), spans=()) == dataclasses.replace(
        once, evidence=(), spans=()
    )
    assert once.python_version  # the recording states something

    repeats = 100_000 // len(fit)
    late = extract(fit * repeats + freeze)
    alone = extract(freeze)
    assert alone.tf_version == "2.10.1"
    assert late.tf_version == alone.tf_version
    assert late.line_of("tf_version") == len(fit) * repeats + (alone.line_of("tf_version") or 0)


@pytest.mark.parametrize(
    ("line", "fact", "value"),
    [
        ("I use TF 2.1.", "tf_version", "2.1"),  # a sentence's full stop ends the version
        ("I have CUDA 11.2.", "cuda_version", "11.2"),
        ("Python 3.8.", "python_version", "3.8"),
        ("tensorflow 1.14.0下默认使用cpu", "tf_version", "1.14.0"),  # CJK prose right after it
        ("tensorflow-gpu==1.14.0下默认使用cpu", "tf_version", "1.14.0"),
        ("tf 2.1.x is broken", "tf_version", None),  # "2.1.x" is no version
    ],
)
def test_a_version_ends_where_the_prose_around_it_begins(
    line: str, fact: str, value: str | None
) -> None:
    assert getattr(extract([line]), fact) == value


@pytest.mark.parametrize(
    ("text", "gpu"),
    [
        # tensorflow/tensorflow#41132: a laptop GPU's "M" is part of its name (5.0, not 5.2)
        (
            "- GPU model and memory: Geforce GTX 960M, coreClock: 1.176GHz",
            ("Geforce GTX 960M", "5.0"),
        ),
        ("I have a GTX 960M", ("GTX 960M", "5.0")),
        ("GPU model and memory: GTX 1060 6GB", ("GTX 1060", "6.1")),
    ],
)
def test_a_laptop_gpus_m_is_read_with_its_name(text: str, gpu: tuple[str, str]) -> None:
    assert _facts(text).gpus == (gpu,)


def test_pip_show_names_each_package_it_shows() -> None:
    """OCR-D/ocrd_all#220: two `pip show` blocks, two TensorFlow distributions."""
    text = (
        "(headless-tf1) root@5e85f82cd11c:/data# pip show tensorflow-gpu\n"
        "Name: tensorflow-gpu\nVersion: 1.15.4\n"
        "(headless-tf1) root@5e85f82cd11c:/data# pip show tensorflow\n"
        "Name: tensorflow\nVersion: 1.15.4\n"
        "Name: numpy\nVersion: 1.18.5\n"
    )
    facts = _facts(text)
    assert dict(facts.packages) == {
        "tensorflow-gpu": "1.15.4",
        "tensorflow": "1.15.4",
        "numpy": "1.18.5",
    }
    assert facts.tf_version == "1.15.4"


def test_an_image_with_its_own_cuda_is_read() -> None:
    said = "It seem that the Docker image tensorflow/tensorflow:2.3.0rc0-gpu won't work with my GPU"
    assert _facts(said).cuda_image == "tensorflow/tensorflow:2.3.0rc0-gpu"
    assert _facts("docker run nvcr.io/nvidia/tensorflow:23.10-tf2-py3").cuda_image == (
        "nvcr.io/nvidia/tensorflow:23.10-tf2-py3"
    )
    assert _facts("docker run tensorflow/tensorflow:2.15.0").cuda_image is None  # the CPU image


def test_a_python_version_written_before_the_word() -> None:
    # derrian-distro/LoRA_Easy_Training_Scripts#35
    said = extract(["I was having issues with my default 3.10.10 Python version."])
    assert said.python_version == "3.10.10"
    # deeppomf/DeepCreamPy#26
    assert extract(["Installed 3.6.7 python on win7 x64"]).python_version == "3.6.7"


def test_versions_in_markdown_inline_code_are_read_as_written() -> None:
    # OpenNMT/OpenNMT-tf#638's first sentence (TensorFlow 2.1 is built with CUDA 10.1: the
    # thread's settled cause)
    text = (
        "I installed the latest version `2.8.1` . tf version is `2.1.0` and cuda version is `10.2`."
    )
    stated = _facts(text)
    assert stated.tf_version == "2.1.0"
    assert stated.cuda_version == "10.2"
    from tf_gpucheck.explain import explain
    from tf_gpucheck.matrix import load_matrix

    said = explain(text, load_matrix(), similar=False).report
    assert said.first_fix is not None
    assert said.first_fix.cause == "cuda_libs_missing"


def test_a_cudnn_version_under_the_cuda_cudnn_heading_is_cudnns() -> None:
    # https://github.com/tensorflow/tensorflow/issues/62781: one version under "CUDA/cuDNN
    # version" that no CUDA release has (CUDA 8 had only 8.0): it is cuDNN's
    pasted = "### CUDA/cuDNN version\n\n8.9.5\n\n### GPU model and memory\n\nA100 PCIe\n"
    facts = _facts(pasted)
    assert facts.cuda_version is None
    assert facts.cudnn_version == "8.9.5"
    # a CUDA release stays CUDA's, and CUDA then cuDNN stays so
    assert _facts("### CUDA/cuDNN version\n\n9.1\n").cuda_version == "9.1"
    both = _facts("### CUDA/cuDNN version\n\n11.8/8.6\n")
    assert (both.cuda_version, both.cudnn_version) == ("11.8", "8.6")


def test_nvccs_full_version_is_cudas_not_cudnns() -> None:
    # https://github.com/tensorflow/models/issues/1854
    facts = _facts("- **CUDA/cuDNN version**: Cuda compilation tools, release 8.0, V8.0.44\n")
    assert (facts.cuda_version, facts.cudnn_version) == ("8.0", None)


def test_a_version_no_tensorflow_release_has_is_not_tensorflows() -> None:
    # https://github.com/tensorflow/hub/issues/765 (the reporter's words for another package)
    assert _facts("> tensorflow-gpu 4.0 / 4.1\n").tf_version is None
    assert _facts("> tensorflow-gpu 2.4 / 2.4\n").tf_version == "2.4"


def test_a_release_line_and_a_patch_in_it_are_one_release() -> None:
    # https://github.com/tensorflow/tensorflow/issues/39768: the template's line, then prose
    facts = _facts(
        "- TensorFlow version: 1.15\n"
        "- Python version: 3.8.2\n"
        "It seems that tensorflow 1.15.2 binaries are not available for Python 3.8 at this time."
    )
    assert (facts.tf_version, facts.python_version) == ("1.15.2", "3.8.2")
    # two different patches are still two statements: no fact rather than a wrong one
    assert _facts("I run tensorflow 2.4.1\nwith tensorflow 2.4.3 it works").tf_version is None


def test_a_sentence_s_full_stop_is_not_part_of_a_version() -> None:
    # https://github.com/kubeflow/kubeflow/issues/2573
    facts = _facts(
        "which in turn depends on `tensorflow==1.13.1`. Currently have both the stock kubeflow"
    )
    assert facts.tf_version == "1.13.1"
    assert facts.package("tensorflow") == "1.13.1"


def test_git_describe_of_a_tensorflow_build_is_its_tag_s_release() -> None:
    # the template answers of tensorflow/tensorflow#40466 and mozilla/DeepSpeech#1767
    # (tf.version.GIT_VERSION, then VERSION): the commits after a tag are not a release
    answer = "- TensorFlow version (use command below): v2.1.0-rc2-17-ge5bf8de 2.1.0"
    assert _facts(answer).tf_version == "2.1.0"
    said = _facts("Tensorflow version: v1.12.0-rc2-0-g748435b8ef 1.12.0-rc2").tf_version
    assert said is not None
    assert said.startswith("1.12.0")  # the release line the matrix is read by


def test_a_tensorflow_that_is_not_pypi_s_wheel_is_told_apart() -> None:
    # the old bug template's answers of tensorflow/tensorflow#24677 (NVIDIA's image),
    # NVIDIA/tensorflow#12 (a build from source) and tensorflow/tensorflow#36974 (Docker Hub's
    # images hold PyPI's wheel)
    field = "- TensorFlow installed from (source or binary): "
    assert _facts(field + "NVIDIA DOCKER Image").tf_build == "image"
    assert _facts(field + "Source").tf_build == "source"
    assert _facts(field + "Docker Hub").tf_build is None
    assert _facts(field + "binary").tf_build is None


def test_a_pre_release_and_its_release_line_are_one_statement() -> None:
    # keras-team/tf-keras#676's template answer, with the release line said in prose (a line
    # written for this test); two different pre-releases are still two statements
    said = _facts(
        "- TensorFlow version (use command below): 2.16.0-dev20231101\nwith TensorFlow 2.16.0"
    )
    assert said.tf_version == "2.16.0-dev20231101"
    assert _facts("tensorflow 2.0.0-beta1\ntensorflow 2.0.0-beta0").tf_version is None
