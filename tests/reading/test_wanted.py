"""The writer's words about the GPU: wanted and not had, none there, a GPU build named."""

from __future__ import annotations

import pytest

from tf_gpucheck.reading import logscan, textfacts, textlines, wanted


def _missed(text: str) -> bool:
    lines = textlines.normalise(text)
    classified = logscan.classify(lines)
    said = wanted.said(classified)
    return wanted.says_gpu_missed(
        textfacts.extract(lines), classified, wanted.says_no_gpu_here(said)
    )


@pytest.mark.parametrize(
    "text",
    [
        "why I can not start my GPU",  # https://github.com/Kyubyong/bytenet_translation/issues/2
        "[Windows] Tensorflow GPU fails to find CUDA.",  # tensorflow/tensorflow#5968
        "pip install of tensorflow-text disables tensorflow-gpu",  # tensorflow/text#195
        "JupyterHub singleuser not able to use tensorflow gpu support",  # systemdspawner#67
        "TensorFlow does not use my GPU",
        # keras-team/keras#19002 (the second with its real curly quotes)
        "tf.test.gpu_device_name()  #should get a name but return is empty",
        "tf.config.list_physical_devices(\u2018GPU\u2019) #  returns [ ] ",
        # keras-team/keras-hub#1321
        "The output of `tensorflow.test.gpu_device_name()` is an empty string.",
    ],
)
def test_the_gpu_wanted_and_not_had(text: str) -> None:
    assert _missed(text)


@pytest.mark.parametrize(
    "text",
    [
        "I don't have a GPU, so it trains on the CPU",
        "cuDNN, cuFFT, and cuBLAS Errors",  # tensorflow/tensorflow#62075: TF's own notices
        "TensorFlow on Windows logs an error when using GPUs",  # tensorflow/tensorflow#5986
    ],
)
def test_not_a_gpu_missed(text: str) -> None:
    assert not _missed(text)


def test_a_text_names_a_gpu_by_word_library_or_fact() -> None:
    def names(text: str) -> bool:
        lines = textlines.normalise(text)
        return wanted.names_a_gpu(textfacts.extract(lines), lines)

    assert names("训练时没有用到GPU")  # no word boundary between CJK and Latin letters
    assert names("Could not load dynamic library 'libcudart.so.11.0'")
    assert names("GeForce RTX 3090")
    assert not names("keras==2.3.1\ntensorflow==1.14\nAttributeError: module has no attribute 'v1'")
