"""What a text says is installed, as opposed to what it asks for or names: a pin after other
words in its line (``pip install tensorflow-gpu==1.0.1``, a title, a resolver's message) is
said; pip freeze's own line is printed. Only printed distributions are installed at once, and
what the text states rules the reader's model causes out. The texts are real reports' lines."""

from __future__ import annotations

import dataclasses

import pytest

from tests.conftest import scenario
from tf_gpucheck.checks.layers.install import tf_install
from tf_gpucheck.checks.wholetext import _ruled_out
from tf_gpucheck.explain import explain
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.reading.textfacts import StatedFacts, extract
from tf_gpucheck.reading.textlines import normalise
from tf_gpucheck.snapshot import Distribution

# pandegroup/reaction_prediction_seq2seq#7 (settled: tensorflow==1.0.1 is the CPU package)
ASKED = (
    'In this Mr Liu you have given command to install tensorflow  "pip install '
    'tensorflow-gpu==1.0.1" . My only question is, by installing tensorflow-gpu will it use GPU '
    "while training work faster. Because i had installed tensorflow==1.0.1 which is still working "
    "but processing is very slow."
)


def _stated(text: str) -> StatedFacts:
    return extract(normalise(text))


def test_a_pin_in_a_command_or_prose_is_said_and_a_freeze_line_printed() -> None:
    stated = _stated(ASKED)
    assert stated.package("tensorflow-gpu") == "1.0.1"
    assert not stated.printed("package:tensorflow-gpu")
    assert not stated.printed("package:tensorflow")
    # tensorflow/tensorflow#39768's title quotes a pin; a line of pip freeze prints one
    assert not _stated("Issues with tensorflow==1.14").printed("package:tensorflow")
    freeze = _stated("absl-py==0.9.0\ntensorflow-gpu==1.14.0\n")
    assert freeze.printed("package:tensorflow-gpu")


def test_two_distributions_named_in_words_are_not_installed_at_once() -> None:
    """The text compares tensorflow and tensorflow-gpu; it does not list both installed: no
    stated fact says two distributions, and the model's reading, nearly level between them and
    the CPU-only build the thread settled on, names both and what decides."""
    result = explain(ASKED, load_matrix(), title="Query regarding Working with tensorflow")
    stated = [
        f
        for f in result.report.findings
        if f.cause == "multiple_tf_distributions" and f.status.value == "fail"
    ]
    assert stated == []
    first = result.report.first_fix
    assert first is not None
    if first.cause == "multiple_tf_distributions":
        assert first.summary.startswith("cannot tell for sure from the text")
        assert "else tf_cpu_only_build" in first.summary
    listed = "tensorflow          1.12.0\ntensorflow-gpu      1.12.0\n"
    both = explain(f"$ pip list | grep tensorflow\n{listed}", load_matrix())
    assert both.report.first_fix is not None
    assert both.report.first_fix.cause == "multiple_tf_distributions"


def test_the_plain_tensorflow_of_2_0_and_older_is_the_cpu_build() -> None:
    """tensorflow.org/install/pip: "For releases 1.15 and older, CPU and GPU packages are
    separate"; the fix is the same release's tensorflow-gpu, not a newer TensorFlow."""
    base = scenario("real-tf-2.10-py3.10-no-driver")
    for version, cause in (("1.12.0", "tf_cpu_only_build"), ("2.10.0", None)):
        packages = dataclasses.replace(
            base.packages, tensorflow=(Distribution("tensorflow", version),)
        )
        finding = tf_install(dataclasses.replace(base, packages=packages), load_matrix())
        assert finding.cause == cause, version
        if cause:
            assert finding.fix is not None
            assert "tensorflow-gpu==1.12.0" in finding.fix
            assert "and-cuda" not in finding.fix


@pytest.mark.parametrize(
    ("code", "facts", "out"),
    [
        ("multiple_tf_distributions", {"packages": (("tensorflow-gpu", "1.14.0"),)}, True),
        ("tf_cpu_only_build", {"packages": (("tensorflow-gpu", "1.14.0"),)}, True),
        ("tf_cpu_only_build", {"packages": (("tensorflow-cpu", "2.15.0"),)}, False),
        ("windows_native_unsupported", {"os": "Linux"}, True),
        ("windows_native_unsupported", {"os": "Windows", "tf_version": "2.10.0"}, True),
        ("windows_native_unsupported", {"os": "Windows", "tf_version": "2.15.0"}, False),
        ("macos_no_cuda", {"os": "Windows"}, True),
        ("python_unsupported", {"python_version": "3.10.12", "tf_version": "2.15.0"}, True),
        ("python_unsupported", {"python_version": "3.12.1", "tf_version": "2.15.0"}, False),
    ],
)
def test_what_the_text_states_rules_a_models_cause_out(
    code: str, facts: dict[str, object], out: bool
) -> None:
    spans: tuple[tuple[str, str, str], ...] = ()
    if code == "multiple_tf_distributions":  # a tool's listing of one
        spans = (("package:tensorflow-gpu", "tensorflow-gpu 1.14.0", "printed"),)
    stated = StatedFacts(**facts, spans=spans)  # type: ignore[arg-type]
    assert _ruled_out(code, stated, load_matrix()) is out


def test_an_old_templates_bullet_answered_on_the_next_line() -> None:
    """tensorflow/tensorflow#16670 (2018), the template's bullets answered below them."""
    text = (
        "- **OS Platform and Distribution (e.g., Linux Ubuntu 16.04)**:\nWindows 10\n"
        "- **TensorFlow installed from (source or binary)**:\npip install tensorflow-gpu\n"
        "- **TensorFlow version (use command below)**:\n1.5.0\n"
        "- **Python version**: \n3.5.4\n"
        "- **CUDA/cuDNN version**:\n8.0/6.0\n"
    )
    stated = _stated(text)
    assert (stated.tf_version, stated.python_version) == ("1.5.0", "3.5.4")
    assert (stated.cuda_version, stated.cudnn_version) == ("8.0", "6.0")
    result = explain(text, load_matrix(), similar=False)
    assert result.report.first_fix is not None
    assert result.report.first_fix.cause == "cuda_libs_missing"  # TensorFlow 1.5 needs CUDA 9.0


def test_a_pin_in_emphasis_is_one_distribution() -> None:
    """tensorflow/tensorflow#28022: "_pip install --upgrade tensorflow-gpu==2.0.0-alpha0_" and
    "TensorFlow version: 2.0.0-alpha0" are one tensorflow-gpu, not two distributions."""
    text = (
        "- TensorFlow installed from (source or binary): I used virtualenv and _pip install "
        "--upgrade tensorflow-gpu==2.0.0-alpha0_\n- TensorFlow version: 2.0.0-alpha0\n"
        "- CUDA/cuDNN version: cuda 9.2\n"
    )
    assert _stated(text).package("tensorflow-gpu") == "2.0.0-alpha0"
    result = explain(text, load_matrix(), similar=False)
    causes = [f.cause for f in result.report.findings if f.status.value == "fail"]
    assert "multiple_tf_distributions" not in causes
    assert causes[0] == "cuda_libs_missing"  # TensorFlow 2.0 needs CUDA 10.0


def test_a_row_with_a_short_version_is_the_writers() -> None:
    """pip and conda print whole versions (1.6.0): "tensorflow 1.6" alone on a line is the
    writer's (rpautrat/SuperPoint#121), and so said; "tensorflow-gpu 1.11" still names the
    GPU build (iperov/DeepFaceLab#102)."""
    machine = _stated("Ubuntu 16.04\ncuda9.0\ncudNN 7.6.4\ntensorflow 1.6\n")
    assert machine.tf_version == "1.6"
    assert not machine.printed("package:tensorflow")
    listed = _stated("tensorflow-gpu 1.11\n")
    assert listed.package("tensorflow-gpu") == "1.11"
    assert not listed.printed("package:tensorflow-gpu")
    assert _stated("tensorflow-gpu            1.11.0\n").printed("package:tensorflow-gpu")


def test_tensorflows_own_lines_rule_out_what_they_disprove() -> None:
    """rpautrat/SuperPoint#77 (a low-utilisation story): TensorFlow 1.x's "Found device 0 with
    properties" is printed only by its CUDA build once the driver answered. The reader's model
    read the story as a CPU-only build; that line rules it out, and a missing driver with it,
    while what it does not show (cuDNN, the libraries) stays possible."""
    from tf_gpucheck.reading import logrules, logscan

    line = (
        "2019-09-18 11:34:49.190911: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1411] "
        "Found device 0 with properties: "
    )
    classified = logscan.classify([line])
    assert [c.rule.id for c in classified if c.rule] == ["found_device"]
    shown = frozenset(s for c in classified if c.rule for s in c.rule.shows)
    stated = StatedFacts()
    for code, out in (
        ("tf_cpu_only_build", True),
        ("no_nvidia_driver", True),
        ("gpu_hidden_by_env", True),
        ("cudnn_missing", False),
        ("cuda_libs_missing", False),
    ):
        assert _ruled_out(code, stated, load_matrix(), shown) is out, code
    # a line that proves a GPU was reached is never itself an error
    assert all(r.kind in ("good", "context") for r in logrules.load() if r.shows)
