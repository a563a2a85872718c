"""The TensorFlow that replaces the installed distributions (a CPU-only build, a second
distribution): the GPU build this machine runs, keeping the installed release where its own
requirements accept what is installed, so the user's other packages stay as they are."""

from __future__ import annotations

import os

from tf_gpucheck.checks.diagnosis import Known
from tf_gpucheck.installer import commands, intent
from tf_gpucheck.installer.intent import Fix
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import Snapshot


def replace_distributions(known: Known, matrix: Matrix, remove: list[str]) -> Fix:
    """Uninstall ``remove`` and install the GPU build this machine can run (the one resolver,
    keeping the installed release when it runs here)."""
    install = release_gpu_build(known, matrix, known.tf_version) or intent.install(
        "tensorflow[and-cuda]"
    )
    if known.snapshot is not None:
        from tf_gpucheck.installer.recommend import recommend

        prefer = kept_release(known.snapshot, matrix, known.tf_version)
        rec = recommend(known.snapshot, matrix, prefer=prefer)
        # where the resolver cannot tell (a text's Python unstated), the kept release as it is
        install = rec.plan or release_gpu_build(known, matrix, prefer) or install
        folder = commands.target_folder(known.snapshot)
        if folder and known.snapshot.system.os != "Windows":
            # a --target folder: pip uninstalls nothing there ("not installed" for a folder
            # outside the environment) and --upgrade replaces the package folders but keeps
            # another distribution's record: its records go, the install goes there
            records = [
                os.path.join(folder, f"{d.name.replace('-', '_')}-{d.version}.dist-info")
                for d in commands.main_distributions(known.snapshot)
                if d.name in remove or not remove
            ]
            into = intent.into_folder(install, folder)
            if records:
                return intent.then(intent.remove(*records), into)
            return into
    if not remove:
        return install
    return intent.then(intent.uninstall(*remove), install)


def release_gpu_build(known: Known, matrix: Matrix, version: str | None) -> Fix | None:
    """The GPU build of ``version`` as it is, never a move to another release: up to 2.0 the
    tensorflow-gpu package; from 2.14 on Linux the release's own and-cuda extra; else the
    release with its CUDA and cuDNN named. None where the matrix has no such release, or the
    release has no GPU build there (macOS; native Windows after 2.10)."""
    row = matrix.release(version) if version else None
    if row is None or version is None or known.os == "Darwin":
        return None
    name = "tensorflow-gpu" if row.minor < (2, 1) else "tensorflow"
    if row.and_cuda and known.os in (None, "Linux"):
        return intent.install(f"{name}[and-cuda]=={version}")
    windows = known.os == "Windows"
    cuda = row.windows_native_cuda if windows else row.cuda
    cudnn = row.windows_native_cudnn if windows else row.cudnn
    if not cuda:
        return None
    note = f"with CUDA {cuda} and cuDNN {cudnn}" if cudnn else f"with CUDA {cuda}"
    return intent.install(f"{name}=={version}", note=note)


def kept_release(snapshot: Snapshot, matrix: Matrix, default: str | None) -> str | None:
    """The TensorFlow release to install in place of the installed distributions: a release
    whose own requirements (the matrix's ``requires``: the wheels' METADATA) accept what is
    installed, so pip changes nothing the user has. In order:

    - ``default`` (the installed TensorFlow), or another installed release, where it accepts
      every distribution it names that is installed (Keras, NumPy, protobuf, ml-dtypes);
    - where none does, and the distributions they reject were installed after every TensorFlow
      distribution (the metadata folders' times: the user's later choice), the installed or
      newer release, oldest first, for this Python, that accepts those: TensorFlow is the stale
      side (a Keras 3.10 installed beside TensorFlow 2.12 and 2.16, with the NumPy 2 it brought,
      gets 2.20, not 2.12, which declares keras<2.13);
    - else ``default``."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    from tf_gpucheck.checks.releases import applies

    installed: dict[str, tuple[str, float | None]] = {}
    for item in snapshot.packages.requirements or ():
        try:
            name = canonicalize_name(Requirement(item.requirement).name)
        except InvalidRequirement:
            continue
        if item.installed:
            installed[name] = (item.installed, item.installed_at)
    if snapshot.packages.keras and "keras" not in installed:
        installed["keras"] = (snapshot.packages.keras, None)
    main = commands.main_distributions(snapshot)
    versions = list(dict.fromkeys(v for v in [default, *(d.version for d in main)] if v))
    python = snapshot.system.python_version

    def meets(version: str, names: set[str] | None = None) -> bool:
        row = matrix.release(version)
        if row is None or not row.requires:
            return False
        for line in row.requires:
            try:
                requirement = Requirement(line)
                name = canonicalize_name(requirement.name)
                have = installed.get(name)
                if have is None or (names is not None and name not in names):
                    continue
                if not applies(requirement, python):
                    continue
                if not requirement.specifier.contains(Version(have[0]), prereleases=True):
                    return False
            except (InvalidRequirement, InvalidVersion):
                return False
        return True

    if default is None or meets(default):
        return default
    found = next((v for v in versions if meets(v)), None)
    if found is not None:
        return found
    times = [d.installed_at for d in main]
    if not times or any(t is None for t in times):
        return default
    tensorflow_at = max(t for t in times if t is not None)
    later = {name for name, (_, at) in installed.items() if at is not None and at > tensorflow_at}
    if not later:
        return default
    try:
        newest = max(Version(v) for v in versions)
    except InvalidVersion:
        return default
    newer = [
        row.version
        for row in reversed(matrix.newest_first())
        if row.minor > (newest.major, newest.minor) and (not python or row.supports_python(python))
    ]
    return next((v for v in [*versions, *newer] if meets(v, later)), default)
