"""TensorFlow itself: which distribution is installed, whether it imports, how it was built."""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from tf_gpucheck.checks import facts, remedies, replacement
from tf_gpucheck.checks.diagnosis import Known
from tf_gpucheck.checks.findings import (
    Finding,
    fail,
    info,
    ok,
    skip,
    warn,
)
from tf_gpucheck.checks.layers.imports import WHAT_PUT_IT_THERE
from tf_gpucheck.checks.layers.requirements import not_recorded
from tf_gpucheck.checks.registry import check
from tf_gpucheck.installer import commands, intent
from tf_gpucheck.installer.intent import Fix
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import (
    Distribution,
    Snapshot,
)


def _uninstall_and_install(snapshot: Snapshot, matrix: Matrix, remove: list[str]) -> Fix:
    """Uninstall ``remove`` and install the GPU build this machine runs. A distribution in
    another environment's site-packages, which a ``.pth`` file puts on this venv's sys.path, is
    not this environment's to uninstall (its pip says "Not uninstalling ... outside
    environment"): that ``.pth`` file is set aside instead, and where this environment then
    holds one TensorFlow of its own, nothing is reinstalled."""

    main = commands.main_distributions(snapshot)
    shared = {
        d.name: d.pth
        for d in main
        if d.name in remove and d.location == "other" and d.pth and snapshot.target.kind == "venv"
    }
    if not shared:
        return replacement.replace_distributions(Known.from_snapshot(snapshot), matrix, remove)
    files = [p for p in dict.fromkeys(shared.values()) if p]
    hide = intent.set_aside(*files)
    kept = [d for d in main if d.name not in shared]
    if len(kept) == 1 and kept[0].name in remove and _replaced_alone(kept[0]):
        # what remains once the file is aside is a build tf_install replaces on its own (a
        # CPU-only distribution, the merged tensorflow-gpu): replaced now, not installed again
        # (seed 21, environment 0: tensorflow-cpu installed again, then tf_cpu_only_build)
        return intent.then(
            hide,
            replacement.replace_distributions(
                Known.from_snapshot(snapshot), matrix, [kept[0].name]
            ),
        )
    if len(kept) == 1 and kept[0].name in remove:
        names = ", ".join(shared)
        why = (
            f"set aside: it puts another environment's site-packages (with {names}) "
            "on this one's sys.path"
        )
        # what TensorFlow's install took from that folder goes with it (seen: Keras, then
        # keras_mismatch; tensorboard, then tf_requirement_unmet): this environment's own
        # TensorFlow installed again, without the folder, is what pip makes whole here
        own = kept[0]
        again = intent.install(f"{own.name}=={own.version}")
        lent = sorted(
            {
                m.name
                for m in (snapshot.imports.modules if snapshot.imports else ())
                if m.name != "tensorflow" and m.pth in files and m.in_target is False
            }
        )
        came = f"; {', '.join(lent)} came from there too" if lent else ""
        return intent.then(
            hide,
            again,
            note=f"{why}{came}: pip then installs here what {own.name} {own.version} requires "
            "and this environment lacks",
        )
    rest = [n for n in remove if n not in shared]
    return intent.then(
        hide, replacement.replace_distributions(Known.from_snapshot(snapshot), matrix, rest)
    )


def _replaced_alone(own: Distribution) -> bool:
    """A distribution tf_install replaces where it is the only one: no GPU support, or the
    tensorflow-gpu that became tensorflow."""
    return own.name in commands.CPU_ONLY_DISTRIBUTIONS or (
        own.name == "tensorflow-gpu" and merged_into_tensorflow(own.version)
    )


# --- TensorFlow itself ---------------------------------------------------------------------


@check("tf_install", "One TensorFlow distribution with GPU support is installed")
def tf_install(snapshot: Snapshot, matrix: Matrix) -> Finding:
    packages = snapshot.packages
    if packages.error:
        return skip("tf_install", "the interpreter's packages could not be read (see python)")
    main = commands.main_distributions(snapshot)
    names = [d.name for d in main]
    listing = ", ".join(f"{d.name} {d.version}" for d in packages.tensorflow)
    if not main and facts.stated_only(snapshot):
        return skip("tf_install", "the text does not state which TensorFlow is installed")
    if not main:
        from tf_gpucheck.installer.recommend import recommend
        from tf_gpucheck.target import describe

        rec = recommend(snapshot, matrix)
        target = snapshot.target
        where = describe(target.python_executable, target.prefix, target.chosen_by)
        details = [f"Interpreter: {snapshot.system.python_executable} ({where})"]
        details += [f"- {reason}" for reason in rec.reasons]
        if target.chosen_by == "gpucheck" and commands.isolated_tool_environment(target.prefix):
            # Never install TensorFlow into gpucheck's own pipx / uv tool environment.
            return fail(
                "tf_install",
                "tf_not_installed",
                "no environment to diagnose: gpucheck runs from its own isolated environment "
                "(pipx / uv tool), which has no TensorFlow",
                "\n".join(details),
                commands.project_environment(snapshot.system.os),
            )
        fix: str | Fix
        if rec.plan is not None:
            fix = rec.plan
        elif rec.command:
            fix = rec.command
        elif rec.python_upgrade:
            fix = commands.with_another_python(rec.python_upgrade, snapshot.system.os)
        else:
            fix = intent.install("tensorflow[and-cuda]")
        return fail(
            "tf_install",
            "tf_not_installed",
            "TensorFlow is not installed in this Python",
            "\n".join(details),
            fix,
        )
    if snapshot.system.os == "Windows" and set(names) == {"tensorflow", "tensorflow-intel"}:
        names = ["tensorflow"]  # tensorflow depends on tensorflow-intel on Windows (2.12-2.15)
    if len(names) > 1:
        return fail(
            "tf_install",
            "multiple_tf_distributions",
            f"{len(names)} TensorFlow distributions are installed at once: {', '.join(names)}",
            _several_distributions(main, listing),
            _uninstall_and_install(snapshot, matrix, names),
        )
    name = names[0]
    if name in commands.CPU_ONLY_DISTRIBUTIONS:
        return fail(
            "tf_install",
            "tf_cpu_only_build",
            f"{name} is installed: it has no GPU support",
            matrix.fact("tensorflow_cpu_no_gpu").summary,
            _uninstall_and_install(snapshot, matrix, [name]),
        )
    if name == "tensorflow" and not merged_into_tensorflow(main[0].version):
        return fail(
            "tf_install",
            "tf_cpu_only_build",
            f"tensorflow {main[0].version} is installed: up to 2.0 the tensorflow package is the "
            "CPU build (tensorflow-gpu was the GPU one)",
            matrix.fact("tensorflow_gpu_separate").summary,
            intent.then(  # the same release's GPU build: nothing else moves
                intent.uninstall("tensorflow"),
                intent.install(f"tensorflow-gpu=={main[0].version}"),
            ),
        )
    if name == "tensorflow-gpu" and merged_into_tensorflow(main[0].version):
        return warn(
            "tf_install",
            "tensorflow_gpu_deprecated",
            "tensorflow-gpu is deprecated",
            matrix.fact("tensorflow_gpu_deprecated").summary,
            _uninstall_and_install(snapshot, matrix, ["tensorflow-gpu"]),
        )
    return ok("tf_install", f"{listing}")


def _several_distributions(main: list[Distribution], listing: str) -> str:
    """Why two TensorFlow distributions at once harm, as their folders say: in one folder they
    write the same ``tensorflow`` package (the last install wins); in different folders on
    sys.path, ``import tensorflow`` gets the first one's and pip judges them all."""
    places = {d.location for d in main}
    if len(places) <= 1:
        return (
            "They all write the same `tensorflow` package; whichever was installed last wins. "
            f"Installed: {listing}"
        )
    where = ", ".join(f"{d.name} in {WHAT_PUT_IT_THERE.get(d.location or 'other')}" for d in main)
    return (
        f"They lie in different folders on sys.path ({where}): `import tensorflow` gets the "
        "package of whichever folder comes first, and pip's check judges each of them. Installed: "
        + listing
    )


def _no_cuda_build_here(snapshot: Snapshot) -> bool:
    """No TensorFlow release has a CUDA build for this platform: macOS, and native Windows from
    2.11 (tensorflow.org/install/pip: "TensorFlow 2.10 was the last TensorFlow release that
    supported GPU on native Windows")."""
    system = snapshot.system
    if system.os == "Darwin":
        return True
    if system.os != "Windows" or system.is_wsl:
        return False
    version = facts.tf_version(snapshot)
    try:
        return version is not None and Version(version).release[:2] >= (2, 11)
    except InvalidVersion:
        return False


def merged_into_tensorflow(version: str) -> bool:
    """From 2.1 the plain ``tensorflow`` package is the GPU build and ``tensorflow-gpu`` only an
    alias of it (later an empty package); up to 2.0 ``tensorflow-gpu`` was the GPU build itself
    (tensorflow.org/install/pip: "For releases 1.15 and older, CPU and GPU packages are
    separate")."""
    try:
        return Version(version).release[:2] >= (2, 1)
    except InvalidVersion:
        return True


@check("tf_import", "TensorFlow imports and starts")
def tf_import(snapshot: Snapshot, matrix: Matrix) -> Finding:
    tf = snapshot.tensorflow
    if not tf.probed:
        return skip("tf_import", "TensorFlow was not imported (--no-tf)")
    if snapshot.target.error and not snapshot.system.python_version:
        return skip("tf_import", not_recorded(snapshot))
    if tf.installed is False:
        return skip("tf_import", "TensorFlow is not installed")
    log_tail = "\n".join(tf.log[-8:])
    if tf.timed_out:
        return fail(
            "tf_import",
            "tf_probe_timeout",
            tf.error or "TensorFlow did not finish starting",
            f"Last log lines:\n{log_tail}",
            commands.rerun(snapshot, "doctor", "--timeout", "600")
            + "  # or look for a hung driver in dmesg",
        )
    if tf.returncode is not None and tf.returncode < 0:
        if tf.returncode == -4:  # SIGILL
            return fail(
                "tf_import",
                "cpu_unsupported",
                "TensorFlow crashed with an illegal instruction",
                "Official TensorFlow wheels need a CPU with AVX. CPU features: "
                + (" ".join(snapshot.system.cpu_features) or "unknown"),
                remedies.remedy_for("cpu_unsupported", snapshot, matrix),
            )
        debug = (
            f"{snapshot.target.python_executable or 'python'} -X faulthandler -c "
            '"import tensorflow as tf; tf.config.list_physical_devices()"  # shows where it crashes'
        )
        if tf.returncode == -7:  # SIGBUS: a mapped file shorter than its headers say
            return fail(
                "tf_import",
                "tf_crashed",
                tf.error or "TensorFlow crashed",
                "SIGBUS while loading TensorFlow: a library file is truncated or corrupt "
                "(an interrupted download or install, a full disk); reinstalling replaces it.\n"
                f"To see which file: {debug}\nLast log lines:\n{log_tail}",
                commands.reinstall(snapshot, note="a truncated or corrupt file of the install"),
            )
        return fail(
            "tf_import",
            "tf_crashed",
            tf.error or "TensorFlow crashed",
            f"Last log lines:\n{log_tail}",
            debug,
        )
    if tf.error:
        summary = " ".join(tf.error.split())  # one line: the error may span several
        if len(summary) > 240:
            summary = summary[:237] + "..."
        return fail(
            "tf_import",
            "tf_import_failed",
            summary,
            f"{tf.error}\nLast log lines:\n{log_tail}",
            remedies.remedy_for("tf_import_failed", snapshot, matrix),
        )
    return ok("tf_import", f"TensorFlow {tf.version} imports in {tf.import_seconds or 0:.1f} s")


@check("tf_build", "TensorFlow was built with CUDA")
def tf_build(snapshot: Snapshot, matrix: Matrix) -> Finding:
    cuda_build = facts.is_cuda_build(snapshot)
    if cuda_build is None:
        why = "it was not imported" if not snapshot.tensorflow.probed else "it did not import"
        return skip("tf_build", f"TensorFlow's build is unknown ({why})")
    inferred = facts.build_inferred(snapshot)
    if inferred is not None:
        row = facts.release(snapshot, matrix)
        built = f" with CUDA {row.cuda} and cuDNN {row.cudnn}" if row and row.cuda else ""
        return info(
            "tf_build",
            f"TensorFlow did not report its build; the {inferred} wheel for Linux x86_64 is built{built}",
            "The later checks judge the libraries against that build.",
        )
    if facts.build_value(snapshot, "is_rocm_build") is True:
        return fail(
            "tf_build",
            "tf_cpu_only_build",
            "this TensorFlow is built for AMD ROCm, not CUDA",
            fix=_uninstall_and_install(
                snapshot, matrix, [d.name for d in commands.main_distributions(snapshot)]
            ),
        )
    if not cuda_build and _no_cuda_build_here(snapshot):
        # the platform's own check says why: no build of this release for this OS has CUDA
        return info(
            "tf_build",
            "this TensorFlow is a CPU-only build, the only kind there is for this platform",
            f"Installed: {', '.join(d.name + ' ' + d.version for d in snapshot.packages.tensorflow)}",
        )
    if not cuda_build:
        return fail(
            "tf_build",
            "tf_cpu_only_build",
            "this TensorFlow is a CPU-only build: it cannot use any GPU",
            f"Installed: {', '.join(d.name + ' ' + d.version for d in snapshot.packages.tensorflow)}",
            _uninstall_and_install(
                snapshot, matrix, [d.name for d in commands.main_distributions(snapshot)]
            ),
        )
    cuda = facts.build_cuda(snapshot, matrix) or "?"
    cudnn = facts.build_cudnn(snapshot, matrix) or "?"
    if not snapshot.tensorflow.probed:
        return info(
            "tf_build",
            f"not imported (--no-tf): TensorFlow {facts.tf_version(snapshot)}'s Linux wheel is "
            f"built with CUDA {cuda} and cuDNN {cudnn} (compat_matrix.yaml)",
        )
    if (
        facts.build_value(snapshot, "cuda_version") is None
        and facts.release(snapshot, matrix) is None
    ):
        # a nightly: its build information names no CUDA, and no table lists the release
        declared = (
            f", and its own and-cuda extra declares CUDA {cuda} and cuDNN {cudnn} wheels"
            if cuda != "?"
            else "; which CUDA it needs is not known"
        )
        return ok(
            "tf_build", f"a CUDA build; its build information names no CUDA version{declared}"
        )
    return ok("tf_build", f"built with CUDA {cuda} and cuDNN {cudnn}")
