"""Above the GPUs: XLA's tools, the pip CUDA wheels' pins, Keras, a real computation, evidence
from other frameworks, multi-worker configuration, and TensorFlow's own log."""

from __future__ import annotations

import os

from tf_gpucheck import factwords
from tf_gpucheck.checks import facts, remedies
from tf_gpucheck.checks.findings import Finding, fail, info, ok, skip, warn
from tf_gpucheck.checks.layers.libraries import unmet_pins
from tf_gpucheck.checks.layers.platform import minor_version
from tf_gpucheck.checks.layers.requirements import not_recorded
from tf_gpucheck.checks.registry import check
from tf_gpucheck.installer import intent
from tf_gpucheck.installer.intent import Fix
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.probes.frameworks import cpu_only
from tf_gpucheck.reading import logscan
from tf_gpucheck.snapshot import FileOwner, Snapshot


@check("xla", "XLA can compile for the GPU (ptxas, libdevice)", gpu=True)
def xla(snapshot: Snapshot, matrix: Matrix) -> Finding:
    if (
        not snapshot.nvml.gpus
        or facts.is_cuda_build(snapshot) is not True
        or not snapshot.libraries.probed
    ):
        return skip("xla", "no GPU or not a CUDA build")
    if facts.stated_only(snapshot):
        return skip("xla", "the text does not state where ptxas and libdevice are")
    log_says = [
        line
        for line in logscan.classify_cached(snapshot.tensorflow.log)
        if line.rule and line.rule.cause in ("xla_libdevice_missing", "xla_ptxas_missing")
    ]
    libdevice, ptxas = snapshot.libraries.libdevice, snapshot.libraries.ptxas
    fix = remedies.remedy_for("xla_libdevice_missing", snapshot, matrix)
    if libdevice is None:
        status = fail if log_says else warn
        return status(
            "xla",
            "xla_libdevice_missing",
            "libdevice.10.bc not found: jit_compile=True will fail on the GPU",
            "Looked in the pip nvidia-cuda-nvcc wheel, --xla_gpu_cuda_data_dir and CUDA_HOME/nvvm/libdevice.",
            fix,
        )
    if ptxas is None:
        return warn(
            "xla",
            "xla_ptxas_missing",
            "ptxas not found: XLA falls back to the driver's PTX compiler",
            f"libdevice: {libdevice}",
            fix,
        )
    return ok("xla", "ptxas and libdevice found", f"ptxas: {ptxas}\nlibdevice: {libdevice}")


@check("cuda_wheels", "pip CUDA wheels satisfy TensorFlow's and-cuda pins", gpu=True)
def cuda_wheels(snapshot: Snapshot, matrix: Matrix) -> Finding:
    pins = snapshot.packages.and_cuda_requirements
    if not pins:
        return skip("cuda_wheels", "this TensorFlow has no and-cuda extra")
    if not snapshot.packages.nvidia:
        return skip(
            "cuda_wheels", "no pip nvidia-* wheels: the CUDA libraries come from the system"
        )
    unmet, wanted = unmet_pins(snapshot)
    if not unmet:
        return ok("cuda_wheels", f"the pip CUDA wheels satisfy all {len(pins)} and-cuda pins")
    return fail(
        "cuda_wheels",
        "and_cuda_pins_unmet",
        f"{len(unmet)} pip CUDA wheel{'s do' if len(unmet) != 1 else ' does'} not match TensorFlow's "
        f"and-cuda pins: {unmet[0]}",
        "TensorFlow "
        + (facts.tf_version(snapshot) or "")
        + " was built against these versions; pip does not enforce an extra's pins once "
        "another install changed a wheel.\n" + "\n".join(unmet),
        intent.install(*wanted),
    )


@check("cuda_files", "TensorFlow's CUDA library files are its own wheels' files", gpu=True)
def cuda_files(snapshot: Snapshot, matrix: Matrix) -> Finding:
    if not snapshot.packages.and_cuda_requirements:
        return skip("cuda_files", "this TensorFlow has no and-cuda extra")
    if not snapshot.libraries.probed:
        return skip("cuda_files", f"not searched: {snapshot.libraries.reason}")
    if snapshot.schema_version < 5:
        return skip("cuda_files", "not recorded (a snapshot before schema 5)")
    if not snapshot.libraries.owners:
        return skip(
            "cuda_files",
            "no library file the loader gives TensorFlow is listed by an installed RECORD",
        )
    overwritten = overwritten_files(snapshot)
    if overwritten:
        return _overwritten(snapshot, overwritten)
    owners = sorted({o.owner for o in snapshot.libraries.owners})
    return ok(
        "cuda_files",
        f"each of the {len(snapshot.libraries.owners)} library files the loader gives TensorFlow "
        f"is its installer's own ({', '.join(owners)})",
        "\n".join(
            f"{o.path}: {o.owner} {o.owner_version or ''}" for o in snapshot.libraries.owners
        ),
    )


def overwritten_files(snapshot: Snapshot) -> list[FileOwner]:
    """Library files the loader gives TensorFlow that a wheel of TensorFlow's ``and-cuda`` extra
    installed and another distribution installed again over it (both RECORDs list the path, the
    other one's install came later): the file there now is the other one's."""
    declared = {_pin_name(line) for line in snapshot.packages.and_cuda_requirements}
    out = []
    for owner in snapshot.libraries.owners:
        before = {entry.split(" ", 1)[0] for entry in owner.also_listed_by}
        if owner.owner not in declared and before & declared:
            out.append(owner)
    return out


def _pin_name(line: str) -> str:
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    try:
        return str(canonicalize_name(Requirement(line).name))
    except InvalidRequirement:
        return line


def _overwritten(snapshot: Snapshot, overwritten: list[FileOwner]) -> Finding:
    declared = {_pin_name(line) for line in snapshot.packages.and_cuda_requirements}
    installed = {d.name: d.version for d in snapshot.packages.nvidia}
    ours = sorted(
        {
            entry.split(" ", 1)[0]
            for owner in overwritten
            for entry in owner.also_listed_by
            if entry.split(" ", 1)[0] in declared
        }
    )
    first = overwritten[0]
    frameworks = [
        f"{d.name} {d.version}"
        for d in snapshot.packages.other_frameworks or ()
        if d.name == "torch"
    ]
    lines = [
        f"{o.path}: now {o.owner} {o.owner_version or ''}'s, installed after "
        f"{', '.join(o.also_listed_by)} (both list this file)".replace("  ", " ")
        for o in overwritten
    ]
    if frameworks:
        lines.append(
            f"{frameworks[0]} is installed: its CUDA wheels install into the same nvidia/*/lib "
            "folders as TensorFlow's"
        )
    lines.append(
        "Reinstalling TensorFlow's wheels puts its files back and overwrites the other "
        "distribution's in turn: to use both frameworks, give each its own virtual "
        "environment, or install releases of both that declare the same CUDA wheels."
    )
    fix = intent.install(
        *(f"{name}=={installed[name]}" for name in ours if name in installed),
        options=("--force-reinstall", "--no-deps"),
    )
    return warn(
        "cuda_files",
        "cuda_files_overwritten",
        f"{len(overwritten)} of TensorFlow's CUDA library files "
        f"{'were' if len(overwritten) != 1 else 'was'} overwritten by another distribution: "
        f"{os.path.basename(first.path)} is now {first.owner} {first.owner_version or ''}'s "
        f"(installed after {', '.join(first.also_listed_by)})".replace("  ", " "),
        "\n".join(lines),
        fix if ours else None,
    )


@check("keras", "Keras matches TensorFlow")
def keras(snapshot: Snapshot, matrix: Matrix) -> Finding:
    version = facts.tf_version(snapshot)
    if not version:
        return skip("keras", "TensorFlow is not installed")
    tf_minor = minor_version(version)
    keras_version = snapshot.packages.keras
    tf_keras = snapshot.packages.tf_keras
    legacy = (snapshot.system.env.get("TF_USE_LEGACY_KERAS") or "").lower() in ("1", "true", "yes")
    if tf_minor < (2, 6):
        return skip("keras", f"TensorFlow {version} bundles its own Keras")
    if keras_version is None and tf_keras is None and facts.stated_only(snapshot):
        return skip("keras", "the text does not state the Keras installed")
    if tf_minor >= (2, 16):
        if legacy:
            if tf_keras is None or minor_version(tf_keras) != tf_minor:
                return fail(
                    "keras",
                    "keras_mismatch",
                    f"TF_USE_LEGACY_KERAS is set but tf-keras {tf_keras or 'is not installed'}",
                    "With TF_USE_LEGACY_KERAS=1, tf.keras is the tf-keras package, whose version must match TensorFlow's.",
                    intent.install(f"tf-keras~={tf_minor[0]}.{tf_minor[1]}.0"),
                )
            return ok("keras", f"tf-keras {tf_keras} (TF_USE_LEGACY_KERAS)")
        if keras_version is None or minor_version(keras_version)[0] < 3:
            declared = declared_keras(snapshot)
            over = _written_over(snapshot, keras_version)
            return fail(
                "keras",
                "keras_mismatch",
                f"TensorFlow {version} needs Keras 3, found {keras_version or 'none'}",
                "Since TensorFlow 2.16, tf.keras is Keras 3."
                + (
                    f" keras {keras_version} and {over[0]} {over[1]} both write the keras "
                    f"module, and TensorFlow {version} declares {over[0]}: keras goes, and "
                    f"{over[0]}'s files are put back."
                    if over
                    else ""
                ),
                intent.then(
                    intent.uninstall("keras"),
                    intent.install(
                        f"{over[0]}=={over[1]}", options=("--force-reinstall", "--no-deps")
                    ),
                )
                if over
                else intent.install(declared, note=f"what TensorFlow {version} declares")
                if declared
                else intent.install("keras>=3"),
            )
        owner = snapshot.packages.keras_distribution
        return ok(
            "keras",
            f"Keras {keras_version}{f' ({owner})' if owner else ''} (Keras 3, as TensorFlow "
            f"{tf_minor[0]}.{tf_minor[1]} expects)",
        )
    if keras_version is None or minor_version(keras_version) != tf_minor:
        finding = fail(
            "keras",
            "keras_mismatch",
            f"TensorFlow {version} needs Keras {tf_minor[0]}.{tf_minor[1]}, found {keras_version or 'none'}",
            "Up to TensorFlow 2.15, tf.keras is the keras package of the same minor version.",
            intent.install(f"keras~={tf_minor[0]}.{tf_minor[1]}.0"),
        )
        return _as_the_installer_checks(finding, snapshot, matrix)
    return ok("keras", f"Keras {keras_version} matches TensorFlow {version}")


def _as_the_installer_checks(finding: Finding, snapshot: Snapshot, matrix: Matrix) -> Finding:
    """The same fix as ``tf_requirements`` gives where the installer's check names TensorFlow's
    requirement on Keras (one cause, one fix: the smallest change, stale.remedy's)."""
    import dataclasses

    from tf_gpucheck.checks import stale

    check = snapshot.installer.check if snapshot.installer is not None else None
    unmet = next(
        (u for u in check or () if u.name == "keras" and u.of in stale.TENSORFLOW_NAMES), None
    )
    if unmet is None:
        return finding
    plan = stale.remedy(unmet, snapshot, matrix)
    return dataclasses.replace(
        finding,
        details=f"{finding.details} The fix: {plan.changes}.",
        fix=plan.fix.text(),
        plan=plan.fix,
    ).otherwise(plan.fallbacks)


KERAS_DISTRIBUTIONS = ("keras", "keras-nightly")
"""What TensorFlow's wheels declare Keras as: ``keras-nightly`` for a nightly build, ``keras``
otherwise (tensorflow/tools/pip_package/setup.py, ``'keras-nightly' if 'nightly' in
project_name``)."""


def _written_over(snapshot: Snapshot, keras_version: str | None) -> tuple[str, str] | None:
    """``("keras-nightly", "3.16.0.dev2026102704")`` where a ``keras`` distribution (Keras 2)
    was installed beside the keras-nightly a nightly TensorFlow declares and already has: both
    write the ``keras`` module, so the installer's "already satisfied" leaves the Keras 2 files
    in place. ``None``: not so."""
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    from tf_gpucheck.checks.layers.requirements import parse_requirement

    if keras_version is None or snapshot.packages.keras_distribution is not None:
        return None  # no ``keras`` distribution: nothing written over the declared one
    names = {d.name for d in snapshot.packages.tensorflow}
    for item in snapshot.packages.requirements or ():
        requirement = parse_requirement(item.requirement)
        if item.of not in names or requirement is None or not item.installed:
            continue
        name = canonicalize_name(requirement.name)
        if name == "keras" or name not in KERAS_DISTRIBUTIONS:
            continue
        try:
            met = requirement.specifier.contains(Version(item.installed), prereleases=True)
        except InvalidVersion:
            return None
        return (name, item.installed) if met else None
    return None


def declared_keras(snapshot: Snapshot) -> str | None:
    """What the installed TensorFlow declares on Keras (tf-nightly: ``keras-nightly>=3.12.0.dev``,
    2.16.1: ``keras>=3.0.0``), read from its metadata; ``None``: not read."""
    from packaging.utils import canonicalize_name

    from tf_gpucheck.checks.layers.requirements import parse_requirement

    names = {d.name for d in snapshot.packages.tensorflow}
    for item in snapshot.packages.requirements or ():
        requirement = parse_requirement(item.requirement)
        if (
            item.of in names
            and requirement is not None
            and canonicalize_name(requirement.name) in KERAS_DISTRIBUTIONS
        ):
            return item.requirement
    return None


KERAS_BACKENDS = {
    "tensorflow": None,
    "jax": "jax",
    "torch": "torch",
    "numpy": None,
    "openvino": "openvino",
}
"""Keras 3's backends (keras/src/backend/config.py) and the distribution each needs."""

CPU_ONLY_BUILD = {
    "jax": "jaxlib alone runs on the CPU; the GPU needs a jax-cuda plugin (JAX's cuda extra, such as jax[cuda12]).",
    "torch": "A torch wheel with a +cpu local version has no CUDA; pytorch.org lists the CUDA builds.",
}
"""Why a backend's build cannot use the GPU (JAX's and PyTorch's install pages)."""


def _then(undo: Fix | str, note: str) -> Fix | str:
    return undo.noted(note) if isinstance(undo, Fix) else f"{undo}  # {note}"


@check("keras_backend", "The Keras backend setting names an installed backend")
def keras_backend(snapshot: Snapshot, matrix: Matrix) -> Finding:
    imports = snapshot.imports
    if imports is None:
        return skip("keras_backend", not_recorded(snapshot))
    keras_version = snapshot.packages.keras
    if keras_version is None or minor_version(keras_version)[0] < 3:
        return skip("keras_backend", "Keras 3 is not installed (only Keras 3 reads KERAS_BACKEND)")
    if imports.env.get("KERAS_BACKEND"):  # set but empty, Keras reads keras.json (config.py)
        backend, said = imports.env["KERAS_BACKEND"], "KERAS_BACKEND"
        undo: Fix | str = intent.variable("KERAS_BACKEND")
    elif imports.keras_config_backend:
        backend, said = imports.keras_config_backend, f"{imports.keras_config}"
        undo = f'set "backend": "tensorflow" in {imports.keras_config}'
    else:
        if _tensorflow_absent(snapshot):
            return skip(
                "keras_backend",
                "Keras's backend is its default, TensorFlow, which is not installed (tf_install)",
            )
        return ok("keras_backend", "Keras uses its default backend, TensorFlow")
    if backend not in KERAS_BACKENDS:
        return fail(
            "keras_backend",
            "keras_backend_missing",
            f"{said} names {backend!r}, which is not a Keras backend: `import keras` fails",
            f"Keras 3's backends: {', '.join(KERAS_BACKENDS)}",
            undo,
        )
    needs = KERAS_BACKENDS[backend]
    installed = {d.name for d in snapshot.packages.other_frameworks or ()}
    if (
        needs in ("jax", "torch")
        and snapshot.packages.other_frameworks is not None
        and needs not in installed
    ):
        return fail(
            "keras_backend",
            "keras_backend_missing",
            f"{said} asks Keras for the {backend} backend, but {needs} is not installed: "
            "`import keras` and tf.keras fail",
            f"Keras 3 reads the backend from KERAS_BACKEND, else from keras.json ({said}).",
            _then(undo, f"Keras then uses TensorFlow; or install {needs}"),
        )
    versions = {d.name: d.version for d in snapshot.packages.other_frameworks or ()}
    if needs in versions and cpu_only(needs, versions) and facts.gpu_expected(snapshot):
        build = f"{needs} {versions[needs]}"
        return warn(
            "keras_backend",
            "keras_backend_cpu_only",
            f"{said} asks Keras for the {backend} backend, and {build} is a CPU-only build: "
            "Keras models train on the CPU although this machine has a GPU",
            CPU_ONLY_BUILD.get(needs, ""),
            _then(undo, f"Keras then uses TensorFlow; or install a CUDA build of {needs}"),
        )
    if backend != "tensorflow":
        return info(
            "keras_backend",
            f"Keras runs on {backend} ({said}), not on TensorFlow: tf.keras models train with {backend}",
        )
    if _tensorflow_absent(snapshot):
        return skip(
            "keras_backend",
            f"Keras's backend is TensorFlow ({said}), which is not installed (tf_install)",
        )
    return ok("keras_backend", f"Keras uses TensorFlow ({said})")


def _tensorflow_absent(snapshot: Snapshot) -> bool:
    """The interpreter's packages were read and hold no TensorFlow (a text that does not name
    one says nothing about it)."""
    return (
        not facts.tf_version(snapshot)
        and not snapshot.packages.error
        and not facts.stated_only(snapshot)
    )


@check("gpu_matmul", "A small matrix product on each GPU matches the CPU's", gpu=True)
def gpu_matmul(snapshot: Snapshot, matrix: Matrix) -> Finding:
    ops = snapshot.tensorflow.ops
    cpu = next((op for op in ops if "CPU" in op.device and op.ok), None)
    gpu_ops = [op for op in ops if "GPU" in op.device]
    if not gpu_ops:
        return skip("gpu_matmul", "no GPU device to run on")
    for op in gpu_ops:
        if not op.ok:
            return fail(
                "gpu_matmul",
                "gpu_op_failed",
                f"the test product failed on {op.device}",
                op.error or "",
            )
        if (
            cpu
            and cpu.checksum
            and op.checksum is not None
            and abs(op.checksum - cpu.checksum) > 1e-3 * abs(cpu.checksum)
        ):
            return fail(
                "gpu_matmul",
                "gpu_result_mismatch",
                f"{op.device} computed {op.checksum:g}, the CPU {cpu.checksum:g}",
                "A wrong result on the GPU points at faulty hardware, a broken driver or overclocking.",
            )
    timings = ", ".join(
        f"{op.device} {op.seconds * 1e3:.1f} ms" for op in gpu_ops if op.seconds is not None
    )
    return ok("gpu_matmul", f"{len(gpu_ops)} GPU(s) computed the same product as the CPU", timings)


@check(
    "other_frameworks",
    "Other frameworks (PyTorch, JAX, CuPy) on the GPU: evidence about the driver",
)
def other_frameworks(snapshot: Snapshot, matrix: Matrix) -> Finding:
    """Another framework using the GPU proves the driver and the GPU work; none seeing it points
    to the driver or the machine. Facts only: the diagnosis links them to TensorFlow's symptoms."""
    probed = snapshot.frameworks
    if not probed.probed:
        return skip("other_frameworks", f"not probed: {probed.reason or 'no reason recorded'}")
    found = list(probed.frameworks)
    details = "\n".join(facts.framework_evidence(f) for f in found)
    using = [f for f in found if f.gpu_usable]
    if using:
        names = facts.join_names([factwords.framework_label(f) for f in using])
        verb = "uses" if len(using) == 1 else "use"
        return info(
            "other_frameworks",
            f"{names} {verb} the GPU here, so the driver and the GPU work",
            details,
        )
    tried = [f for f in found if f.built_with_cuda is not False and f.gpu_usable is False]
    if not tried:
        cpu_only = [f for f in found if f.built_with_cuda is False]
        if cpu_only and len(cpu_only) == len(found):
            names = facts.join_names([factwords.framework_label(f) for f in cpu_only])
            return skip(
                "other_frameworks",
                f"{names}: {'a CPU-only build' if len(cpu_only) == 1 else 'CPU-only builds'}, "
                "no evidence about the GPU",
                details,
            )
        return skip("other_frameworks", "no other framework could be asked about the GPU", details)
    names = facts.join_names([factwords.framework_label(f) for f in tried])
    verb = "does" if len(tried) == 1 else "do"
    if facts.gpu_usable(snapshot):
        return info(
            "other_frameworks",
            f"{names} {verb} not see the GPU, though TensorFlow does: the problem is in "
            f"{'its' if len(tried) == 1 else 'their'} own build or libraries",
            details,
        )
    either = " either" if snapshot.tensorflow.probed and snapshot.tensorflow.installed else ""
    return info(
        "other_frameworks",
        f"{names} {verb} not see the GPU{either}: that points to the driver or the machine",
        details,
        cause="other_frameworks_no_gpu",
    )


@check("tf_config", "TF_CONFIG describes a multi-worker cluster this host belongs to")
def tf_config(snapshot: Snapshot, matrix: Matrix) -> Finding:
    from tf_gpucheck.checks.multiworker import judge_tf_config

    return judge_tf_config(snapshot)


@check("tf_log", "TensorFlow's start-up log")
def tf_log(snapshot: Snapshot, matrix: Matrix) -> Finding:
    if not snapshot.tensorflow.log:
        return skip("tf_log", "no log captured")
    expect_gpu = facts.gpu_expected(snapshot)
    lines = logscan.classify_cached(snapshot.tensorflow.log)
    actionable = [
        line
        for line in lines
        if line.rule
        and (line.rule.kind == "actionable" or (line.rule.kind == "no_gpu" and expect_gpu))
    ]
    described = []
    for line in lines:
        if line.rule is None:
            continue
        label: str = line.rule.kind
        if label == "no_gpu":
            label = "actionable" if expect_gpu else "expected without a GPU"
        described.append(f"[{label}] {line.message}\n    -> {line.rule.explanation}")
    details = "\n".join(described)
    harmless = sum(1 for line in lines if line.rule and line.rule.kind == "harmless")
    if actionable:
        first = actionable[0]
        assert first.rule is not None
        return warn(
            "tf_log",
            first.rule.cause or "log_actionable",
            f"{len(actionable)} actionable line(s), first: {first.rule.explanation}",
            details,
        )
    return ok(
        "tf_log",
        f"nothing actionable ({harmless} known harmless line(s), {len(lines)} in all)",
        details,
    )
