"""A text's stated facts as a snapshot: the versions, packages, OS, GPU and variables a report
states, in the form the doctor's own checks judge (``explain``; what a text does not state is
left unknown, never assumed)."""

from __future__ import annotations

from tf_gpucheck.checks.layers.install import merged_into_tensorflow
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.probes.packages import TENSORFLOW_DISTRIBUTIONS
from tf_gpucheck.reading import textfacts
from tf_gpucheck.snapshot import (
    ENV_VARS,
    SCHEMA_VERSION,
    Distribution,
    FrameworksInfo,
    LibrariesInfo,
    LibraryInfo,
    LibraryLocation,
    NodeInfo,
    NvmlGpu,
    NvmlInfo,
    PackagesInfo,
    RequirementInfo,
    Snapshot,
    SystemInfo,
    TargetInfo,
    TensorflowInfo,
)


def stated_snapshot(stated: textfacts.StatedFacts, matrix: Matrix | None = None) -> Snapshot:
    """A snapshot holding only what the text states; everything else says "not known"."""
    tf = stated.tf_version
    build: dict[str, object] | None = None
    if stated.cuda_build_version or stated.cudnn_build_version:
        build = {
            "cuda_version": stated.cuda_build_version,
            "cudnn_version": stated.cudnn_build_version,
            "is_cuda_build": True,
        }
    gpus = tuple(
        NvmlGpu(
            index=index,
            name=name,
            uuid=None,
            pci_bus_id=None,
            compute_capability=capability,
            memory_total_bytes=None,
            memory_used_bytes=None,
            processes=(),
        )
        for index, (name, capability) in enumerate(stated.gpus)
    )
    nvml = (
        NvmlInfo(
            available=True,
            error=None,
            driver_version=stated.driver_version,
            cuda_driver_version=stated.cuda_driver_version,
            gpus=gpus,
        )
        if stated.driver_version
        else NvmlInfo(available=False, error="not stated in the text", gpus=gpus)
    )
    os_name = "Linux" if stated.is_wsl else (stated.os or "")
    if not os_name and _cuda_stated(stated):
        # CUDA facts with no OS named: the official CUDA builds are Linux's (every release
        # since 2.1; native Windows only to 2.10, and a report from there names Windows)
        os_name = "Linux"
    listed = [
        Distribution(name, version)
        for name, version in stated.packages
        if name in TENSORFLOW_DISTRIBUTIONS
    ]
    if len(listed) > 1:
        # several TensorFlow distributions are installed at once where a tool printed them;
        # named in commands and prose ("pip install tensorflow-gpu==1.0.1 instead of
        # tensorflow==1.0.1"), they are what the writer asked for or compared
        listed = [d for d in listed if stated.printed(f"package:{d.name}")]
    # the plain tensorflow of 2.0 and older is the CPU build: installed where a tool printed it
    # (pip list), not where a command or a requirement names it ("pip install tensorflow==1.14"
    # may be what failed)
    listed = [
        d
        for d in listed
        if d.name != "tensorflow"
        or merged_into_tensorflow(d.version)
        or stated.printed("package:tensorflow")
    ]
    if tf and not any(d.version == tf for d in listed):
        # a report about a GPU names the GPU build: before 2.1 that was tensorflow-gpu
        old_gpu_build = tf.split(".")[0] in ("0", "1") or tf.startswith("2.0")
        name = "tensorflow-gpu" if old_gpu_build else "tensorflow"
        # one distribution of a name: the TensorFlow version the text settles on is its version
        listed = [Distribution(name, tf), *(d for d in listed if d.name != name)]
    libraries = tuple(
        LibraryInfo(
            name=name,
            locations=(LibraryLocation(path="(stated in the text)", source="stated"),),
            version=version,
        )
        for name, version in (
            ("libcudart", stated.cuda_version),
            ("libcudnn", stated.cudnn_version),
        )
        # in an image with its own CUDA, a version the text names is the host's
        if version and not stated.cuda_image
    )
    env = {"CUDA_VISIBLE_DEVICES": stated.cuda_visible_devices}
    env.update({name: value for name, value in stated.env if name in ENV_VARS})
    return Snapshot(
        schema_version=SCHEMA_VERSION,
        created_at="",
        gpucheck_version="",
        node=NodeInfo(hostname=None),
        system=SystemInfo(
            os=os_name,
            os_release="",
            os_pretty_name=None,
            arch="arm64" if stated.arch == "arm64" else "x86_64",
            is_wsl=bool(stated.is_wsl),
            python_version=stated.python_version,
            python_executable="",
            cpu_model=None,
            cpu_count=None,
            cpu_features=(),
            env=env,
        ),
        target=TargetInfo(python_executable="", chosen_by="stated"),
        packages=PackagesInfo(
            tensorflow=tuple(listed),
            keras=stated.package("keras"),
            tf_keras=stated.package("tf-keras"),
            nvidia=tuple(
                Distribution(name, version)
                for name, version in stated.packages
                if name.startswith("nvidia-")
            ),
            and_cuda_requirements=(),
            requirements=_stated_requirements(stated, matrix),
        ),
        nvml=nvml,
        libraries=LibrariesInfo(probed=True, reason=None, libraries=libraries)
        if libraries
        else LibrariesInfo(probed=False, reason="not stated in the text"),
        tensorflow=TensorflowInfo(
            probed=False, installed=True if tf else None, version=tf, build_info=build
        ),
        frameworks=FrameworksInfo(probed=False, reason="not stated in the text"),
    )


def _cuda_stated(stated: textfacts.StatedFacts) -> bool:
    """The text states a CUDA-side fact: a CUDA or cuDNN version, a driver, an NVIDIA GPU."""
    return bool(
        stated.cuda_version
        or stated.cudnn_version
        or stated.cuda_build_version
        or stated.cudnn_build_version
        or stated.driver_version
        or stated.gpus
    )


def _stated_requirements(
    stated: textfacts.StatedFacts, matrix: Matrix | None
) -> tuple[RequirementInfo, ...] | None:
    """The stated TensorFlow release's declared requirements for the packages the text states."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    row = matrix.release(stated.tf_version) if matrix and stated.tf_version else None
    if row is None:
        return None
    markers = {"python_version": ".".join((stated.python_version or "3.11").split(".")[:2])}
    found = []
    for line in row.requires:
        try:
            requirement = Requirement(line)
            applies = requirement.marker is None or requirement.marker.evaluate(
                {**markers, "extra": ""}
            )
        except (InvalidRequirement, ValueError):
            continue
        have = stated.package(canonicalize_name(requirement.name))
        if applies and have is not None:
            requirement.marker = None
            found.append(RequirementInfo("tensorflow", str(requirement), have))
    return tuple(found) if found else None


# Which stated facts each check judges (it runs only when they are all stated), and how the
# finding names them.
CHECK_FACTS: dict[str, tuple[str, ...]] = {
    "platform": ("os", "tf_version"),
    "python": ("python_version", "tf_version"),
    "tf_install": ("tf_packages",),
    "tf_requirements": ("tf_version", "requirements"),
    "driver_version": ("driver_version", "tf_or_build"),
    "cuda_libraries": ("cuda_version", "tf_version", "pypi_build"),
    "cudnn": ("cudnn_version", "tf_version", "pypi_build"),
    "compute_capability": ("tf_version", "capability", "pypi_build"),
    "keras": ("keras", "tf_version"),
}


def has_fact(stated: textfacts.StatedFacts, snapshot: Snapshot, fact: str) -> bool:
    if fact == "tf_packages":
        return bool(stated.tf_version) and any(
            name in TENSORFLOW_DISTRIBUTIONS for name, _ in stated.packages
        )
    if fact == "requirements":
        return bool(snapshot.packages.requirements)
    if fact == "tf_or_build":  # the build's CUDA: stated, or the matrix's for PyPI's wheel
        return bool(stated.cuda_build_version or (stated.tf_version and not stated.tf_build))
    if fact == "pypi_build":  # the matrix's CUDA and kernels for the release are the build's
        return stated.tf_build is None
    if fact == "capability":
        return any(capability for _, capability in stated.gpus)
    if fact == "keras":
        return stated.package("keras") is not None
    return bool(getattr(stated, fact))


def said_for(stated: textfacts.StatedFacts, check_id: str) -> list[str]:
    """The words of the text each judged fact came from ("TensorFlow 2.15", "numpy==2.0.1")."""
    names = {
        "platform": ("os", "is_wsl", "tf_version"),
        "python": ("python_version", "tf_version"),
        "tf_install": tuple(
            f"package:{n}" for n, _ in stated.packages if n in TENSORFLOW_DISTRIBUTIONS
        ),
        "tf_requirements": ("tf_version", *(f"package:{n}" for n, _ in stated.packages)),
        "driver_version": ("driver_version", "tf_version"),
        "cuda_libraries": ("cuda_version", "tf_version"),
        "cudnn": ("cudnn_version", "tf_version"),
        "compute_capability": ("tf_version",),
        "keras": ("package:keras", "tf_version"),
    }[check_id]
    seen: list[str] = []
    for name in names:
        words = stated.span_of(name)
        if words and words not in seen:
            seen.append(words)
    return seen
