"""normalise(): text as people paste it, made into lines the log rules match.

Every input is real: quoted from the public issue named next to it (with the paste shape it
arrived in), or read from a recording of this project's machine (tests/data/logs/real).
"""

from __future__ import annotations

from tests.conftest import DATA
from tf_gpucheck.reading import logscan
from tf_gpucheck.reading.textlines import normalise

REAL = DATA / "logs" / "real"


def _rules(text: str) -> list[str | None]:
    return [line.rule.id if line.rule else None for line in logscan.classify(normalise(text))]


def test_typographic_quotes_and_code_fences() -> None:
    # https://github.com/qixuema/envs/issues/4, pasted with a left single quote (U+2018)
    pasted = (
        "```JavaScript\n"
        "NVIDIA-SMI has failed because it couldn\u2018t communicate with the NVIDIA driver.\n"
        "Make sure that the latest NVIDIA driver is installed and running.\n"
        "```\n"
    )
    lines = normalise(pasted)
    assert lines == [
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
        "Make sure that the latest NVIDIA driver is installed and running.",
    ]
    assert _rules(pasted)[0] == "smi_no_driver"


def test_markdown_quotes_and_crlf() -> None:
    # https://github.com/NVIDIA/nvidia-docker/issues/988: quoted, re-wrapped, and not a log line,
    # so the two halves stay apart (only prefixed log lines are ever joined)
    pasted = (
        "> NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure\r\n"
        " > that the latest NVIDIA driver is installed and running.\r\n"
    )
    assert normalise(pasted) == [
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure",
        "that the latest NVIDIA driver is installed and running.",
    ]
    # a quoted REPL keeps its prompt (https://github.com/tensorflow/tensorflow/issues/88676)
    assert normalise("> >>> print(tf.__version__)\n> 2.18.0") == [
        ">>> print(tf.__version__)",
        "2.18.0",
    ]


def test_a_line_wrapped_in_backticks() -> None:
    # https://github.com/keras-team/keras/issues/18878
    assert _rules("`ModuleNotFoundError: No module named 'keras.src'`") == ["keras_src_missing"]


def test_lines_cut_by_a_terminal_are_joined_back() -> None:
    # https://github.com/tensorflow/tensorflow/issues/24496: a 120-column terminal cut every line
    pasted = """2019-01-15 05:01:03.503415: I tensorflow/stream_executor/platform/default/dso_loader.cc:154] successfully opened CUDA li
brary libcublas.so.10.0 locally
2019-01-15 05:01:04.905618: E tensorflow/stream_executor/cuda/cuda_dnn.cc:493] Could not create cudnn handle: CUDNN_STAT
US_INTERNAL_ERROR
2019-01-15 05:01:04.908191: W tensorflow/core/framework/op_kernel.cc:1412] OP_REQUIRES failed at conv_ops_fused.cc:801 :
 Unknown: Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to se
e if a warning log message was printed above.
"""
    lines = logscan.classify(normalise(pasted))
    assert [(line.rule.id if line.rule else None, line.library) for line in lines] == [
        ("dlopen_ok", "libcublas.so.10.0"),
        ("cudnn_init_failed", None),
        ("cudnn_init_failed", None),
    ]
    assert lines[1].message == "Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"
    assert lines[2].message.endswith(
        "cuDNN failed to initialize, so try looking to see if a warning log message was printed above."
    )


def test_what_is_never_joined() -> None:
    # TensorFlow's own two-line messages stay two lines (run: tf215-py311/probe.stderr)
    recorded = (REAL / "tf215-py311_probe.stderr").read_text()
    assert normalise(recorded) == [line for line in recorded.splitlines() if line.strip()]
    # an exception line re-wrapped by e-mail: not a log line, left alone
    # (https://github.com/tensorflow/minigo/issues/843)
    pasted = (
        "ImportError: libcublas.so.10.0: cannot open shared object file: No such\n"
        "file or directory\n"
    )
    assert _rules(pasted) == ["importerror_cuda_lib", None]
    # a new log line or a traceback line is never a continuation, whatever the width
    # (https://github.com/tensorflow/tensorflow/issues/48558, lines as pasted)
    pasted = (
        "2021-04-16 16:46:25.889366: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1561] Found device 0 with properties: \n"
        "pciBusID: 0000:00:07.0 name: GRID T4-4Q computeCapability: 7.5\n"
    )
    assert _rules(pasted) == ["found_device", "device_properties"]


def test_a_log_line_rewrapped_at_a_space_is_joined_with_a_space() -> None:
    # The real line of https://github.com/Doodleverse/segmentation_gym/issues/118, re-wrapped at
    # a space the way an editor or e-mail client does (textwrap at 72 and at 100 columns).
    line = (
        "2023-02-21 17:12:32.645756: E tensorflow/compiler/xla/stream_executor/cuda/"
        "cuda_driver.cc:267] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
    )
    at_72 = (
        "2023-02-21 17:12:32.645756: E\n"
        "tensorflow/compiler/xla/stream_executor/cuda/cuda_driver.cc:267] failed\n"
        "call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    )
    at_100 = (
        "2023-02-21 17:12:32.645756: E tensorflow/compiler/xla/stream_executor/cuda/cuda_driver.cc:267]\n"
        "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
    )
    assert normalise(at_100) == [line]
    assert _rules(at_100) == ["cuda_no_device"]
    # cut after the severity, the prefix is no longer recognisable: left as it is
    assert len(normalise(at_72)) == 3
    assert _rules(at_72)[-1] == "cuda_no_device"  # the message still matches on its own


def test_keras_progress_bars_with_carriage_returns_backspaces_and_colours() -> None:
    # run: tf221-py311/fit-dense.stdout, byte for byte (\r, \b and ANSI escapes as printed)
    raw = (REAL / "tf221-py311_fit-dense.stdout").read_bytes().decode()
    assert "\x1b[" in raw
    assert "\b" in raw
    assert normalise(raw) == [
        "4/4 ━━━━━━━━━━━━━━━━━━━━ 1s 6ms/step - loss: 0.6611",
        "{'loss': [0.6610662937164307]}",
    ]


def test_ci_timestamps_and_editor_line_numbers() -> None:
    # A real line (run: tf221-andcuda-py311/probe.stderr) behind the prefixes GitHub Actions'
    # raw logs and a numbered editor or pastebin add.
    line = (
        "E0000 00:00:1795447581.342101   13750 cuda_platform.cc:52] failed call to cuInit: "
        "INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)"
    )
    for prefix in ("2024-05-01T10:00:00.1234567Z ", "[2024-05-01T10:00:00.123Z] ", "  12 | "):
        assert normalise(prefix + line) == [line]


def test_non_breaking_spaces_dashes_and_html_entities() -> None:
    # The real line of https://github.com/tensorflow/tensorflow/issues/42236 as a web page
    # renders it: a non-breaking space and HTML-escaped quotes.
    pasted = (
        "ValueError:\u00a0Unrecognized device: [PhysicalDevice(name=&#39;/physical_device:GPU:0&#39;, "
        "device_type=&#39;GPU&#39;)]"
    )
    assert normalise(pasted) == [
        "ValueError: Unrecognized device: [PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]"
    ]
    assert _rules(pasted) == ["unrecognized_device"]


def test_blank_text() -> None:
    assert normalise("") == []
    assert normalise("\n\r\n   \n```\n```\n") == []
