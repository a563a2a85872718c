"""The text read as a whole: the reader's causes fitted to the place the text shows."""

from __future__ import annotations

from tf_gpucheck.checks import wholetext
from tf_gpucheck.reading import textfacts


def test_a_place_started_without_a_gpu_is_named_as_the_place_the_text_shows() -> None:
    # https://github.com/kubeflow/community-distribution/issues/2683's title: a k3s cluster
    stated = textfacts.extract(
        ["Unable to run notebooks on GPU (on-premises), running kubeflow on ranchers k3s cluster"]
    )
    assert stated.place == "kubernetes"
    ranked = [("container_no_gpu", 0.4), ("cuda_libs_missing", 0.3), ("pod_no_gpu", 0.1)]
    assert wholetext._at_the_place(ranked, stated) == [
        ("pod_no_gpu", 0.4),
        ("cuda_libs_missing", 0.3),
    ]
    # nowhere said: the model's own order
    assert wholetext._at_the_place(ranked, textfacts.extract(["GPU not used"])) == ranked
