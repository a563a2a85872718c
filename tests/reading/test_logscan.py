"""The log scanner: every rule on real lines, real recordings, and the meaning of the tricky ones.

Example lines live with their rules in src/tf_gpucheck/knowledge/rules/ (each with its origin: a
run on this project's machine, a public issue, or the source that prints it); whole recordings
from the project's machine live in tests/data/logs/real/ (see its README.md).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from tests.conftest import scenario
from tests.paths import DATA, ROOT
from tf_gpucheck.reading import logrules, logscan

LOGS = DATA / "logs"
REAL = LOGS / "real"
EXAMPLES: list[dict[str, Any]] = [
    {"rule": rule.id, "line": example.line, "origin": example.origin}
    for rule in logrules.load()
    for example in rule.examples
]
RULES = {rule.id: rule for rule in logrules.load()}
README_CAUSES = set(
    re.findall(
        r"^\| `([a-z_]+)` \|",
        (ROOT / "docs" / "causes.md").read_text(),
        flags=re.M,
    )
)


def _real(name: str) -> list[str]:
    return (REAL / name).read_text().splitlines()


def _brute_force(message: str) -> logrules.Rule | None:
    return next((r for r in logrules.load() if r.pattern.search(message)), None)


# --- the rule table ---------------------------------------------------------------------------


def test_rule_ids_are_unique_and_every_rule_is_complete() -> None:
    assert len(RULES) == len(logrules.load())
    for rule in logrules.load():
        assert rule.source.strip(), rule.id
        assert rule.explanation.strip(), rule.id
        assert rule.keys, rule.id
        assert all(re.fullmatch(r"[A-Za-z0-9_]+", key) for key in rule.keys), rule.id
        assert rule.kind in ("actionable", "harmless", "no_gpu", "good", "context")
        if rule.kind in ("actionable", "no_gpu"):
            assert rule.cause, f"{rule.id}: an actionable line needs a cause"
        if rule.cause:
            assert rule.cause in README_CAUSES, f"{rule.cause} is not in docs/causes.md's table"


def test_every_rule_has_an_example_and_every_example_an_origin() -> None:
    covered = Counter(example["rule"] for example in EXAMPLES)
    assert set(covered) == set(RULES), sorted(set(RULES) ^ set(covered))
    for example in EXAMPLES:
        assert re.match(r"(run|issue|source): \S", example["origin"]), example
        if example["origin"].startswith("issue: "):
            assert example["origin"].startswith("issue: https://github.com/"), example


@pytest.mark.parametrize(
    "example", EXAMPLES, ids=[f"{e['rule']}-{i}" for i, e in enumerate(EXAMPLES)]
)
def test_example_lines_hit_their_rule(example: dict[str, Any]) -> None:
    (line,) = logscan.classify([example["line"]])
    assert line.rule is not None, example["line"]
    assert line.rule.id == example["rule"]
    # the pre-filter never hides a rule: the first matching rule, tried one by one, is the same
    assert _brute_force(line.message) is line.rule
    # one of the rule's keys is a word of the line
    assert set(re.findall(r"[A-Za-z0-9_]+", line.message)) & set(line.rule.keys)


@pytest.mark.parametrize(
    "example", [e for e in EXAMPLES if logscan.parse(e["line"])[0] is not None], ids=str
)
def test_a_message_pasted_without_its_prefix_still_matches(example: dict[str, Any]) -> None:
    _, message = logscan.parse(example["line"])
    assert logscan.find_rule(message) is RULES[example["rule"]]


# --- prefixes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "severity", "location", "message"),
    [
        # classic TensorFlow logger (run: tf210-py310/probe.stderr)
        (
            "2026-11-23 15:22:40.429400: W tensorflow/stream_executor/cuda/cuda_driver.cc:263] failed call to cuInit: UNKNOWN ERROR (303)",
            "W",
            "tensorflow/stream_executor/cuda/cuda_driver.cc:263",
            "failed call to cuInit: UNKNOWN ERROR (303)",
        ),
        # abseil, TF 2.17+ (run: tf221-py311/probe.stderr)
        (
            "E0000 00:00:1795447628.245707   17476 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)",
            "E",
            "cuda_platform.cc:52",
            "failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)",
        ),
        # absl-py (issue: https://github.com/google/deepvariant/issues/358)
        (
            "I0924 03:47:41.667636 140325876573952 estimator.py:1149] Done calling model_fn.",
            "I",
            "estimator.py:1149",
            "Done calling model_fn.",
        ),
        # Python logging (issue: https://github.com/tensorflow/models/issues/7983)
        ("INFO:tensorflow:Running local_init_op.", "I", None, "Running local_init_op."),
        # pip's tag (run: pip-py39-tf221/pip-install.stderr)
        (
            "ERROR: No matching distribution found for tensorflow==2.21.*",
            "E",
            None,
            "No matching distribution found for tensorflow==2.21.*",
        ),
        # no prefix: a continuation line (run: tf210-py310/probe.stderr)
        (
            "To enable them in other operations, rebuild TensorFlow with the appropriate compiler flags.",
            None,
            None,
            "To enable them in other operations, rebuild TensorFlow with the appropriate compiler flags.",
        ),
    ],
)
def test_prefixes(line: str, severity: str | None, location: str | None, message: str) -> None:
    assert logscan.parse(line) == (severity, message)
    (classified,) = logscan.classify([line])
    assert (classified.severity, classified.location, classified.message) == (
        severity,
        location,
        message,
    )


# --- real recordings ------------------------------------------------------------------------

RECORDED_STARTS = [
    "tf210-py310_probe.stderr",
    "tf211-py37_probe.stderr",
    "tf213-andcuda-py311_probe.stderr",
    "tf215-py311_probe.stderr",
    "tf221-py311_probe.stderr",
    "tf221-andcuda-py311_probe.stderr",
    "tfcpu221-py311_probe.stderr",
]


@pytest.mark.parametrize("name", RECORDED_STARTS)
def test_real_start_ups_without_a_gpu_have_nothing_actionable_and_every_line_is_known(
    name: str,
) -> None:
    lines = logscan.classify(_real(name))
    assert all(line.rule is not None for line in lines), [
        line.text for line in lines if line.rule is None
    ]
    assert not [line.text for line in lines if line.kind == "actionable"]
    harmless = {line.rule.id for line in lines if line.rule and line.kind == "harmless"}
    assert harmless <= {
        "absl_prelude",
        "onednn",
        "cpu_guard",
        "factory_registered",
        "tensorrt",
        "dlopen_tensorrt",
    }


def test_what_each_release_says_without_a_gpu() -> None:
    def no_gpu(name: str) -> list[tuple[str, str | None]]:
        return [
            (line.rule.id, line.cause)
            for line in logscan.classify(_real(name))
            if line.rule and line.kind == "no_gpu"
        ]

    # 2.10: every dlopen failure is shown, libcuda.so.1 is the driver, not a CUDA library
    assert no_gpu("tf210-py310_probe.stderr") == [
        ("dlopen_failed", "cuda_libs_missing"),
        ("cudart_dlerror", "cuda_libs_missing"),
        ("dlopen_libcuda", "no_nvidia_driver"),
        ("cuinit_303", "no_nvidia_driver"),
        ("kernel_driver_not_running", "no_nvidia_driver"),
    ]
    # 2.15 (plain tensorflow, no CUDA wheels): "cuda drivers" is libcudart, and no cuInit line
    assert {r for r, _ in no_gpu("tf215-py311_probe.stderr")} == {"cudart_not_found"}
    # 2.21 with the CUDA wheels: libcudart loads, only the driver is missing
    assert no_gpu("tf221-andcuda-py311_probe.stderr") == [("cuinit_303", "no_nvidia_driver")]
    # tensorflow-cpu 2.21 says nothing about CUDA at all
    assert no_gpu("tfcpu221-py311_probe.stderr") == []


def test_the_recorded_snapshot_says_why_there_is_no_gpu() -> None:
    lines = logscan.classify(scenario("real-cpu-only-tf-2.21-no-driver").tensorflow.log)
    assert not [line for line in lines if line.kind == "actionable"]
    assert {line.rule.id for line in lines if line.kind == "no_gpu" and line.rule} == {
        "cudart_not_found",
        "cuinit_303",
    }
    assert all(line.rule is not None for line in lines)


def test_numpy_2_with_tf_210_is_numpy_incompatible() -> None:
    lines = logscan.classify(_real("tf210-np2-py310_import-tensorflow.stderr"))
    causes = Counter(line.cause for line in lines if line.kind == "actionable")
    assert set(causes) == {"numpy_incompatible"}
    assert causes["numpy_incompatible"] >= 3  # the banner (twice) and "_ARRAY_API not found"


def test_real_pip_failures() -> None:
    by_file = {
        name: [(line.rule.id, line.cause) for line in logscan.classify(_real(name)) if line.rule]
        for name in (
            "pip-py313-tf2150_pip-install.stderr",
            "pip-py311-tf213-andcuda_pip-install.stderr",
            "pip-py311-tfgpu212_pip-install-no-build-isolation-with-wheel.stderr",
        )
    }
    assert by_file["pip-py313-tf2150_pip-install.stderr"] == [
        ("pip_no_version", "install_resolution_failed"),
        ("pip_no_distribution", "install_resolution_failed"),
    ]
    assert ("pip_no_extra", "install_resolution_failed") in by_file[
        "pip-py311-tf213-andcuda_pip-install.stderr"
    ]
    assert ("tensorflow_gpu_removed", "tensorflow_gpu_deprecated") in by_file[
        "pip-py311-tfgpu212_pip-install-no-build-isolation-with-wheel.stderr"
    ]


# --- what the tricky lines mean ---------------------------------------------------------------


def _rule_of(example_rule: str) -> logscan.LogLine:
    line = next(e["line"] for e in EXAMPLES if e["rule"] == example_rule)
    (classified,) = logscan.classify([line])
    return classified


def test_libcuda_is_the_driver_wherever_it_appears() -> None:
    for rule_id in ("dlopen_libcuda", "importerror_libcuda", "selfcheck_nvcuda"):
        line = _rule_of(rule_id)
        assert line.cause == "no_nvidia_driver", rule_id
        assert "driver" in line.rule.explanation if line.rule else False
    assert logrules.load().index(RULES["dlopen_libcuda"]) < logrules.load().index(
        RULES["dlopen_failed"]
    )
    assert logrules.load().index(RULES["importerror_libcuda"]) < logrules.load().index(
        RULES["importerror_cuda_lib"]
    )


def test_what_is_tried_without_a_gpu_is_no_gpu_the_rest_actionable_and_named() -> None:
    # Tried at import or at cuInit, with or without a GPU: the CUDA runtime and the driver.
    for rule_id in ("dlopen_libcuda", "dlopen_failed", "cudart_dlerror"):
        assert RULES[rule_id].kind == "no_gpu", rule_id
    # Tried only once the driver has listed a GPU (dlopen_checker.cc, from GetValidDeviceIds):
    # cuDNN and the math libraries; the real runs without a GPU never print them (above).
    for rule_id in ("dlopen_cudnn", "dlopen_gpu_library"):
        assert RULES[rule_id].kind == "actionable", rule_id
    for line, rule_id in (  # each as a real report or run printed it
        # https://github.com/Visual-Behavior/detr-tensorflow/issues/8 (its title)
        (
            "Could not load dynamic library 'libcusolver.so.10'; dlerror: libcusolver.so.10",
            "dlopen_gpu_library",
        ),
        # https://github.com/atulapra/Emotion-detection/issues/65
        (
            "2024-02-23 14:22:42.335515: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cublasLt64_11.dll'; dlerror: cublasLt64_11.dll not found",
            "dlopen_gpu_library",
        ),
        # https://github.com/tensorflow/tensorflow/issues/45200 (its title)
        ("Could not load dynamic library 'libcudnn.so.8'", "dlopen_cudnn"),
        # https://github.com/aws/deep-learning-containers/pull/235 (TensorBoard's profiler)
        (
            "2020-06-03 01:47:51.923816: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library 'libcupti.so.10.1'; dlerror: libcupti.so.10.1: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/local/openmpi/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64",
            "dlopen_failed",
        ),
    ):
        (seen,) = logscan.classify([line])
        assert seen.rule is not None, line
        assert seen.rule.id == rule_id, line
    libraries = {
        line.library
        for line in logscan.classify([e["line"] for e in EXAMPLES])
        if line.rule and line.rule.id.startswith("dlopen_")
    }
    assert {
        "libcudart.so.11.0",
        "cudart64_101.dll",
        "cudart64_110.dll",
        "cudnn64_8.dll",
        "libcudnn.so.8",
        "libcuda.so.1",
        "nvcuda.dll",
        "libcusolver.so.11",
        "libnvinfer.so.7",
    } <= libraries


def test_no_device_is_no_gpu_and_lists_the_possibilities() -> None:
    rule = RULES["cuda_no_device"]
    # the driver answered and listed no device to this process: the variable is the first
    # suspect; the diagnosis makes it "no GPU" where the machine's variables show it unset
    assert rule.cause == "gpu_hidden_by_env"
    for possibility in ("CUDA_VISIBLE_DEVICES", "container", "no NVIDIA GPU"):
        assert possibility in rule.explanation
    from tf_gpucheck.checks.diagnosis import Known, refine

    assert refine(rule.cause, Known()) == "no_nvidia_gpu"  # doctor: observed unset
    assert refine(rule.cause, Known(env_observed=False)) == "gpu_hidden_by_env"  # a text
    assert refine(rule.cause, Known(cuda_visible_devices="-1")) == "gpu_hidden_by_env"


def test_busy_or_unavailable_does_not_claim_one_cause() -> None:
    rule = RULES["gpu_busy"]
    assert rule.cause == "gpu_busy"
    for possibility in ("exclusive-process", "bad state", "container", "MIG"):
        assert possibility in rule.explanation


def test_cudart_stub_means_the_runtime_not_the_driver() -> None:
    rule = RULES["cudart_not_found"]
    assert (rule.kind, rule.cause) == ("no_gpu", "cuda_libs_missing")
    assert "libcudart" in rule.explanation


def test_harmless_noise_stays_harmless() -> None:
    for rule_id in (
        "numa",
        "tensorrt",
        "dlopen_tensorrt",
        "factory_registered",
        "onednn",
        "cpu_guard",
        "delay_kernel",
        "xla_service",
        "soft_oom",
    ):
        assert RULES[rule_id].kind == "harmless", rule_id
    for rule_id in ("created_device", "cudnn_loaded", "dlopen_ok"):
        assert RULES[rule_id].kind == "good", rule_id


def test_a_cut_line_still_matches_after_normalise() -> None:
    # issue: https://github.com/tensorflow/tensorflow/issues/24496 (a terminal 120 columns wide)
    pasted = (
        "2019-01-15 05:01:04.905618: E tensorflow/stream_executor/cuda/cuda_dnn.cc:493] Could not create cudnn handle: CUDNN_STAT\n"
        "US_INTERNAL_ERROR\n"
    )
    (line,) = logscan.classify(logscan.normalise(pasted))
    assert line.rule is RULES["cudnn_init_failed"]
    assert line.message.endswith("CUDNN_STATUS_INTERNAL_ERROR")


@pytest.mark.parametrize(
    "line",
    [
        "I tensorflow/stream_executor/dso_loader.cc:105] Couldn't open CUDA library libcudnn.so. "
        "LD_LIBRARY_PATH: ",
        "ImportError: Could not find 'cudnn64_7.dll'. TensorFlow requires that this DLL be "
        "installed in a directory that is named in your %PATH% environment variable.",
    ],
)
def test_a_missing_library_that_is_cudnns_is_cudnn_missing(line: str) -> None:
    """Whichever message names it, a cuDNN library that did not load is cuDNN missing; the
    same message about libcublas stays a CUDA library missing."""
    (classified,) = logscan.classify([line])
    assert classified.cause == "cudnn_missing", classified
    (cublas,) = logscan.classify([line.replace("libcudnn.so", "libcublas.so")])
    if "libcublas" in cublas.text:
        assert cublas.cause == "cuda_libs_missing"
