"""Sort the target interpreter's distributions into what matters for TensorFlow on GPUs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from packaging.markers import InvalidMarker, UndefinedComparison, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from tf_gpucheck.probes.interpreter import InterpreterFacts, RawDistribution
from tf_gpucheck.snapshot import Distribution, PackagesInfo, RequirementInfo

TENSORFLOW_DISTRIBUTIONS: frozenset[str] = frozenset(
    {
        "tensorflow",
        "tensorflow-cpu",
        "tensorflow-gpu",
        "tensorflow-intel",
        "tensorflow-macos",
        "tensorflow-metal",
        "tensorflow-aarch64",
        "tensorflow-cpu-aws",
        "tensorflow-rocm",
        "tensorflow-directml",
        "tensorflow-directml-plugin",
        "intel-tensorflow",
        "intel-tensorflow-avx512",
        "nvidia-tensorflow",
        "tf-nightly",
        "tf-nightly-cpu",
        "tf-nightly-gpu",
        "tf-nightly-intel",
        "tf-nightly-macos",
    }
)
"""Distributions that provide (or plug into) the ``tensorflow`` module. ``nvidia-tensorflow`` is
NVIDIA's TensorFlow 1.15 build (pypi.org/project/nvidia-tensorflow), not a CUDA wheel."""


NVIDIA_BINDINGS: frozenset[str] = frozenset({"nvidia-ml-py", "nvidia-ml-py3", "nvidia-pyindex"})
"""nvidia-* distributions that are Python bindings or helpers, not CUDA libraries."""


OTHER_FRAMEWORKS: frozenset[str] = frozenset({"torch", "jax", "jaxlib", "cupy"})
"""GPU frameworks besides TensorFlow; ``jax-cuda*`` plugins and ``cupy-*`` wheels count too."""


def is_other_framework(name: str) -> bool:
    return name in OTHER_FRAMEWORKS or name.startswith(("jax-cuda", "cupy-"))


def classify(facts: InterpreterFacts) -> PackagesInfo:
    tensorflow = []
    nvidia = []
    others = []
    keras = tf_keras = None
    and_cuda: tuple[str, ...] = ()
    for dist in facts.distributions:
        if dist.name in TENSORFLOW_DISTRIBUTIONS:
            tensorflow.append(
                Distribution(dist.name, dist.version, dist.location, dist.installed_at, dist.pth)
            )
            extra = _and_cuda(dist.requires or ())
            if extra and not and_cuda:
                and_cuda = extra
        elif dist.name.startswith("nvidia-") and dist.name not in NVIDIA_BINDINGS:
            # NVIDIA's own nvidia-tensorflow is a TensorFlow distribution (caught above), the
            # other nvidia-* wheels are CUDA libraries
            nvidia.append(Distribution(dist.name, dist.version))
        elif dist.name == "keras":
            keras = dist.version
        elif dist.name == "tf-keras":
            tf_keras = dist.version
        elif is_other_framework(dist.name):
            others.append(Distribution(dist.name, dist.version))
    keras_distribution = None
    if keras is None:
        keras_distribution = keras_owner(facts)
        keras = next((d.version for d in facts.distributions if d.name == keras_distribution), None)
    return PackagesInfo(
        tensorflow=tuple(tensorflow),
        keras=keras,
        tf_keras=tf_keras,
        nvidia=tuple(nvidia),
        and_cuda_requirements=and_cuda,
        error=facts.error,
        other_frameworks=tuple(others),
        requirements=requirements(facts) if facts.markers and not facts.error else None,
        keras_distribution=keras_distribution,
    )


def keras_owner(facts: InterpreterFacts) -> str | None:
    """The installed distribution whose RECORD lists the ``keras`` module the target imports
    (``keras-nightly``), called where no ``keras`` distribution is installed; ``None``: none, or
    not recorded."""
    modules = facts.imports.modules if facts.imports else ()
    found = next((m for m in modules if m.name == "keras"), None)
    installed = {d.name: d.installed_at or 0.0 for d in facts.distributions}
    owners = [o for o in (found.owners or ()) if o in installed] if found else []
    if (
        not owners
        and found is not None
        and found.distribution is False
        and "keras-nightly" in installed
    ):
        # the module imported is no distribution's (a keras.py in the working folder hides it,
        # which the shadowing check says): the Keras installed is still keras-nightly, the name
        # a nightly TensorFlow declares (tensorflow/tools/pip_package/setup.py)
        return "keras-nightly"
    # two: the later install wrote the files that are there now
    return max(owners, key=lambda o: installed[o]) if owners else None


REQUIREMENTS_OF = (
    TENSORFLOW_DISTRIBUTIONS - {"tensorflow-metal", "tensorflow-directml-plugin"}
) | {
    "keras",
    "tf-keras",
}
"""Whose declared requirements are judged: whichever TensorFlow distribution is installed
(tensorflow-cpu declares as many as tensorflow), and Keras's."""


def requirements(facts: InterpreterFacts) -> tuple[RequirementInfo, ...]:
    """What TensorFlow and Keras declare (extras left out, markers evaluated for the target),
    each with the version the target has installed (``pip check`` for these two)."""
    installed = {dist.name: dist.version for dist in facts.distributions}
    times = {dist.name: dist.installed_at for dist in facts.distributions}
    found: list[RequirementInfo] = []
    judged = REQUIREMENTS_OF | {keras_owner(facts)}
    for dist in facts.distributions:
        if dist.name not in judged or not dist.requires:
            continue
        found += _declared(dist, installed, facts.markers, times)
    return tuple(found)


def _declared(
    dist: RawDistribution,
    installed: dict[str, str],
    markers: dict[str, str] | None,
    times: dict[str, float | None] | None = None,
) -> list[RequirementInfo]:
    found = []
    # an extra (and-cuda, gcs-filesystem) is judged elsewhere or not at all
    for requirement in holding(dist, markers, extras=False):
        name = canonicalize_name(requirement.name)
        requirement.marker = None
        found.append(
            RequirementInfo(
                dist.name, str(requirement), installed.get(name), (times or {}).get(name)
            )
        )
    return found


def holding(
    dist: RawDistribution, markers: Mapping[str, str] | None, *, extras: bool = True
) -> Iterator[Requirement]:
    """Each requirement ``dist`` declares whose marker holds for the target, with no extra (pip's
    ``iter_dependencies``); a line that does not parse, or a marker that cannot be evaluated,
    is left out as pip leaves it. ``markers`` ``None`` (the target did not say what it is): the
    unmarked ones only. ``extras=False``: none whose marker names an extra."""
    for line in dist.requires or ():
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.marker is not None:
            if markers is None or (not extras and "extra" in str(requirement.marker)):
                continue
            try:
                if not requirement.marker.evaluate({**markers, "extra": ""}):
                    continue
            except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
                continue
        yield requirement


def _and_cuda(requires: tuple[str, ...]) -> tuple[str, ...]:
    """The requirements of the ``and-cuda`` extra, written without their marker."""
    found = []
    for line in requires:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        marker = requirement.marker
        if marker is None or "and-cuda" not in str(marker):
            continue
        requirement.marker = None
        found.append(str(requirement))
    return tuple(found)
