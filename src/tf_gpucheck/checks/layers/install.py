"""TensorFlow itself: which distribution is installed, whether it imports, how it was built."""

from __future__ import annotations

from tf_gpucheck.checks import facts, remedies
from tf_gpucheck.checks.diagnosis import Known
from tf_gpucheck.checks.findings import Finding, fail, info, ok, skip, warn
from tf_gpucheck.checks.registry import check
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import Snapshot


def _uninstall_and_install(snapshot: Snapshot, matrix: Matrix, remove: list[str]) -> str:
    return remedies.replace_distributions(Known.from_snapshot(snapshot), matrix, remove)


# --- TensorFlow itself ---------------------------------------------------------------------


@check("tf_install", "One TensorFlow distribution with GPU support is installed")
def tf_install(snapshot: Snapshot, matrix: Matrix) -> Finding:
    packages = snapshot.packages
    if packages.error:
        return skip("tf_install", "the interpreter's packages could not be read (see python)")
    main = facts.main_distributions(snapshot)
    names = [d.name for d in main]
    listing = ", ".join(f"{d.name} {d.version}" for d in packages.tensorflow)
    if not main:
        from tf_gpucheck.recommend import recommend
        from tf_gpucheck.target import describe

        rec = recommend(snapshot, matrix)
        target = snapshot.target
        where = describe(target.python_executable, target.prefix, target.chosen_by)
        details = [f"Interpreter: {snapshot.system.python_executable} ({where})"]
        details += [f"- {reason}" for reason in rec.reasons]
        if target.chosen_by == "gpucheck" and facts.isolated_tool_environment(target.prefix):
            # Never install TensorFlow into gpucheck's own pipx / uv tool environment.
            return fail(
                "tf_install",
                "tf_not_installed",
                "no environment to diagnose: gpucheck runs from its own isolated environment "
                "(pipx / uv tool), which has no TensorFlow",
                "\n".join(details),
                "activate your project's virtual environment (source .venv/bin/activate) and run "
                "gpucheck again, or: gpucheck doctor --python /path/to/project/python",
            )
        if rec.command:
            fix = rec.command
        elif rec.python_upgrade and snapshot.system.os == "Windows":
            fix = (
                f"use Python {rec.python_upgrade} for native-Windows GPU support "
                '(pip install "tensorflow<2.11"), or WSL2 for current releases'
            )
        elif rec.python_upgrade:
            extra = "[and-cuda]" if snapshot.system.os == "Linux" else ""
            fix = f'use Python {rec.python_upgrade}, then: pip install "tensorflow{extra}"'
        else:
            fix = 'pip install "tensorflow[and-cuda]"'
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
            f"They all write the same `tensorflow` package; whichever was installed last wins. Installed: {listing}",
            _uninstall_and_install(snapshot, matrix, names),
        )
    name = names[0]
    if name in facts.CPU_ONLY_DISTRIBUTIONS:
        return fail(
            "tf_install",
            "tf_cpu_only_build",
            f"{name} is installed: it has no GPU support",
            matrix.fact("tensorflow_cpu_no_gpu").summary,
            _uninstall_and_install(snapshot, matrix, [name]),
        )
    if name == "tensorflow-gpu":
        return warn(
            "tf_install",
            "tensorflow_gpu_deprecated",
            "tensorflow-gpu is deprecated",
            matrix.fact("tensorflow_gpu_deprecated").summary,
            _uninstall_and_install(snapshot, matrix, ["tensorflow-gpu"]),
        )
    return ok("tf_install", f"{listing}")


@check("tf_import", "TensorFlow imports and starts")
def tf_import(snapshot: Snapshot, matrix: Matrix) -> Finding:
    tf = snapshot.tensorflow
    if not tf.probed:
        return skip("tf_import", "TensorFlow was not imported (--no-tf)")
    if tf.installed is False:
        return skip("tf_import", "TensorFlow is not installed")
    log_tail = "\n".join(tf.log[-8:])
    if tf.timed_out:
        return fail(
            "tf_import",
            "tf_probe_timeout",
            tf.error or "TensorFlow did not finish starting",
            f"Last log lines:\n{log_tail}",
            "gpucheck doctor --timeout 600  # or look for a hung driver in dmesg",
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
        return fail(
            "tf_import",
            "tf_crashed",
            tf.error or "TensorFlow crashed",
            f"Last log lines:\n{log_tail}",
            f"{snapshot.target.python_executable or 'python'} -X faulthandler -c "
            '"import tensorflow as tf; tf.config.list_physical_devices()"  # shows where it crashes',
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
                snapshot, matrix, [d.name for d in facts.main_distributions(snapshot)]
            ),
        )
    if not cuda_build:
        return fail(
            "tf_build",
            "tf_cpu_only_build",
            "this TensorFlow is a CPU-only build: it cannot use any GPU",
            f"Installed: {', '.join(d.name + ' ' + d.version for d in snapshot.packages.tensorflow)}",
            _uninstall_and_install(
                snapshot, matrix, [d.name for d in facts.main_distributions(snapshot)]
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
    return ok("tf_build", f"built with CUDA {cuda} and cuDNN {cudnn}")
