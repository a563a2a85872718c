"""Real environments of the kinds people have: doctor's first cause, and whether its fix works.

    python benchmarks/environments.py

Builds each environment of tests/probes/test_user_import.py in a temporary folder (real venvs; the
TensorFlow and Keras metadata are real wheels'), runs `gpucheck doctor --no-tf --json` on it in a
subprocess, as a user would, with the folder and variables that environment is about, and
prints a table: environment, the cause expected, doctor's first cause, its fix, and whether the
fix was verified (an install fix resolved by pip's own resolver with --dry-run; a re-run after
applying a non-install fix such as renaming the file or unsetting the variable).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.probes.test_user_import import install_fake, tf221_venv
from tests.test_target import base_python, make_venv, site_packages

Env = tuple[str, str, Path, dict[str, str], Path]
"""(name, expected cause, python, extra environment variables, folder to run from)"""


def doctor(python: Path, env: dict[str, str], cwd: Path) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-m", "tf_gpucheck", "doctor", "--no-tf", "--allow-cpu", "--json",
         "--python", str(python), "--cwd", str(cwd)],
        capture_output=True, text=True, check=False, env={**os.environ, **env},
    )  # fmt: skip
    data: dict[str, object] = json.loads(result.stdout)
    return data


def dry_run(fix: str) -> bool:
    requirement = shlex.split(fix.split("#", maxsplit=1)[0])[-1]
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--dry-run", "--no-deps",
         "--ignore-installed", "--report", "-", requirement],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return result.returncode == 0


def build(root: Path) -> list[tuple[Env, Callable[[Env], bool]]]:
    clean = {"KERAS_HOME": str(root / "keras-home"), "PYTHONPATH": "", "KERAS_BACKEND": ""}
    out: list[tuple[Env, Callable[[Env], bool]]] = []

    def rerun_after(change: Callable[[Env], Env]) -> Callable[[Env], bool]:
        def verify(env: Env) -> bool:
            _name, _cause, python, variables, cwd = change(env)
            first = doctor(python, variables, cwd)["first_fix"]
            return not isinstance(first, dict) or first.get("cause") != env[1]

        return verify

    ok = tf221_venv(root / "ok")
    out.append((("healthy TF 2.21", "-", ok, clean, root), lambda env: True))

    def resolves(env: Env) -> bool:
        first = doctor(env[2], env[3], env[4])["first_fix"]
        return isinstance(first, dict) and dry_run(str(first["fix"]))

    def script_named(name: str, text: str) -> tuple[Path, Callable[[Env], bool]]:
        """A folder holding a script of the user's named ``name``, and the check that renaming
        it (the fix) makes the cause go away."""
        folder = root / f"with-{name.removesuffix('.py')}"  # not a package name
        folder.mkdir()
        (folder / name).write_text(text)

        def renamed(env: Env) -> Env:
            (folder / name).rename(folder / name.replace(".py", "_renamed.py"))
            return env

        return folder, rerun_after(renamed)

    project, verify = script_named("tensorflow.py", "import tensorflow as tf\n")
    out.append((("tensorflow.py in the folder", "module_shadowed", ok, clean, project), verify))

    shadow = root / "checkout"
    (shadow / "tensorflow").mkdir(parents=True)
    (shadow / "tensorflow" / "__init__.py").write_text("")
    out.append((("tensorflow/ on PYTHONPATH", "module_shadowed", ok,
                 {**clean, "PYTHONPATH": str(shadow)}, root),
                rerun_after(lambda env: (*env[:3], clean, env[4]))))  # fmt: skip

    other = make_venv(root / "other", base_python())
    install_fake(site_packages(other), "tensorflow", "2.15.1")
    out.append((("another venv on PYTHONPATH", "pythonpath_foreign", ok,
                 {**clean, "PYTHONPATH": str(site_packages(other))}, root),
                rerun_after(lambda env: (*env[:3], clean, env[4]))))  # fmt: skip

    out.append((("KERAS_BACKEND=jax, no jax", "keras_backend_missing", ok,
                 {**clean, "KERAS_BACKEND": "jax"}, root),
                rerun_after(lambda env: (*env[:3], clean, env[4]))))  # fmt: skip

    old_protobuf = tf221_venv(root / "pb5")
    site = site_packages(old_protobuf)
    shutil.rmtree(site / "protobuf-6.31.1.dist-info")
    install_fake(site, "protobuf", "5.29.6")
    out.append((("TF 2.21 with protobuf 5", "protobuf_incompatible", old_protobuf, clean, root),
                resolves))  # fmt: skip

    scripts, verify = script_named("keras.py", "from keras import layers\n")
    out.append((("keras.py in the folder", "module_shadowed", ok, clean, scripts), verify))
    out.append((("TF_USE_LEGACY_KERAS, no tf-keras", "keras_mismatch", ok,
                 {**clean, "TF_USE_LEGACY_KERAS": "1"}, root), resolves))  # fmt: skip

    keras2 = tf221_venv(root / "keras2")
    site = site_packages(keras2)
    shutil.rmtree(site / "keras")
    shutil.rmtree(site / "keras-3.15.1.dist-info")
    install_fake(site, "keras", "2.15.0")
    out.append((("TF 2.21 with Keras 2.15", "keras_mismatch", keras2, clean, root), resolves))

    emptied = tf221_venv(root / "emptied")
    site = site_packages(emptied)
    (site / "tensorflow" / "__init__.py").unlink()
    (site / "tensorflow" / "python").mkdir()
    out.append((("tensorflow/ emptied, pip lists it", "tf_install_broken", emptied, clean, root),
                resolves))  # fmt: skip
    return out


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="gpucheck-envs-") as tmp:
        rows = []
        for env, verify in build(Path(tmp)):
            name, expected, python, variables, cwd = env
            first = doctor(python, variables, cwd)["first_fix"]
            cause = first.get("cause") if isinstance(first, dict) else None
            fix = first.get("fix") if isinstance(first, dict) else None
            right = cause == expected or (expected == "-" and cause not in (
                "module_shadowed", "pythonpath_foreign", "keras_backend_missing",
                "protobuf_incompatible", "keras_mismatch", "tf_install_broken"))  # fmt: skip
            verified = verify(env) if right and expected != "-" else None
            rows.append((name, expected, str(cause), str(fix or "")[:70], right, verified))
    print(f"{'environment':34} {'expected':24} {'first cause':24} right  fix verified  fix")
    for name, expected, cause, fix, right, verified in rows:
        shown = "-" if verified is None else ("yes" if verified else "NO")
        print(f"{name:34} {expected:24} {cause:24} {'yes' if right else 'NO':5}  {shown:12}  {fix}")
    print(f"\nright {sum(r[4] for r in rows)} of {len(rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
