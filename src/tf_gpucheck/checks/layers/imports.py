"""Your own import: what `import tensorflow` really gets from your folder and your settings, and in a notebook the kernel's own."""

from __future__ import annotations

from tf_gpucheck.checks import replacement
from tf_gpucheck.checks.diagnosis import Known
from tf_gpucheck.checks.findings import (
    Finding,
    Observation,
    fail,
    info,
    observation,
    ok,
    skip,
    warn,
)
from tf_gpucheck.checks.layers.requirements import not_recorded
from tf_gpucheck.checks.registry import check
from tf_gpucheck.installer import commands, intent
from tf_gpucheck.installer.intent import Fix
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import (
    ImportsInfo,
    ModuleOrigin,
    Snapshot,
)

WHAT_PUT_IT_THERE = {
    "cwd": "your folder",
    "pythonpath": "PYTHONPATH",
    "user_site": "the user site (pip install --user)",
    "system_site": "the base interpreter's site-packages (--system-site-packages)",
    "site": "this environment's site-packages",
    "stdlib": "the standard library",
    "pth": "a .pth file",
    "finder": "an import hook (an editable install's finder)",
    "other": "a folder on sys.path",
}


def _a_package(origin: str | None) -> bool:
    """``origin`` is a module file or a regular package's ``__init__.py`` (not None, not a
    namespace package's bare folder)."""
    return origin is not None and origin.endswith((".py", ".pyc", ".so", ".pyd"))


def _folder(origin: str) -> str:
    """A package's folder (its ``__init__.py`` dropped), or a module's file."""
    return origin.removesuffix("/__init__.py").removesuffix("\\__init__.py")


def _through(module: ModuleOrigin) -> str:
    """ "through PYTHONPATH entry /x", "through /venv/lib/.../extra.pth (it adds /y)"."""
    added_by = module.added_by or module.where or "other"
    if added_by == "pth" and module.pth:
        return f"through {module.pth}, which adds {module.path_entry} to sys.path"
    words = WHAT_PUT_IT_THERE.get(added_by, "a folder on sys.path")
    if module.path_entry and added_by not in ("finder",):
        return f"through {words} ({module.path_entry})"
    return f"through {words}"


def import_observation(module: ModuleOrigin, cwd: str | None) -> Observation:
    facts: dict[str, object] = {
        "module": module.name,
        "cwd": cwd,
        "origin": module.origin,
        "path_entry": module.path_entry,
        "added_by": module.added_by or module.where,
        "pth": module.pth,
        "in_target": module.in_target,
    }
    if module.shadows:
        facts["shadows"] = module.shadows
    return observation("import", **facts)


def _outside(module: ModuleOrigin) -> bool:
    """The module's file lies outside the target's prefix (observed); a snapshot before schema
    4 did not record it, and then only what put it on the path says so."""
    if module.in_target is not None:
        return not module.in_target
    return module.where not in ("site", "stdlib")


def _remaining_pythonpath(pythonpath: tuple[str, ...], entry: str | None) -> Fix:
    """The command that takes ``entry`` out of PYTHONPATH and keeps the rest."""
    import os

    # what is observed: the entry comes before the environment's own site-packages (not whose
    # packages they are: a `pip install --target` folder belongs to no environment)
    if entry is None:
        return intent.variable(
            "PYTHONPATH", note="its folders come before this environment's own packages"
        )
    wanted = os.path.normcase(os.path.abspath(entry))
    rest = [p for p in pythonpath if os.path.normcase(os.path.abspath(p)) != wanted]
    if not rest or len(rest) == len(pythonpath):
        return intent.variable(
            "PYTHONPATH", note=f"{entry} comes before this environment's own packages"
        )
    return intent.variable("PYTHONPATH", os.pathsep.join(rest), note=f"without {entry}")


def _own_installs_after(fix: Fix, entry: str | None, snapshot: Snapshot, matrix: Matrix) -> Fix:
    """Taking a folder out of PYTHONPATH takes away what only it lent: where TensorFlow comes
    through it, the environment's own must then be one this machine runs (none of its own, or a
    CPU-only build such as tensorflow-cpu: the release this machine runs replaces it; a
    TensorFlow of its own that the folder only hides is left to be judged once it is out); where
    Keras or NumPy come only through it, the environment's own are installed. Else the user's
    import fails, or gets a CPU-only build, once it is out."""
    from tf_gpucheck.installer.recommend import recommend

    imports = snapshot.imports
    lent = [
        m
        for m in (imports.modules if imports else ())
        if m.where == "pythonpath"
        and m.origin is not None
        and (entry is None or m.path_entry == entry)
    ]
    own = [
        d.name
        for d in commands.main_distributions(snapshot)
        if d.location in (None, "site", "user_site", "system_site")
    ]
    install: Fix | None = None
    why = ""
    lent_tf = next((m for m in lent if m.name == "tensorflow"), None)
    if lent_tf is not None:
        cpu = [n for n in own if n in commands.CPU_ONLY_DISTRIBUTIONS]
        # a TensorFlow of its own under the same name is hidden from the installed list (the
        # first of a name wins, as at import), yet there: the import without PYTHONPATH finds
        # its package (a bare folder a partial uninstall left is none)
        if not own and not _a_package(lent_tf.clean_origin):
            install, why = recommend(snapshot, matrix).plan, "no tensorflow of its own"
        elif cpu and len(own) == len(cpu):
            install = replacement.replace_distributions(Known.from_snapshot(snapshot), matrix, cpu)
            why = f"only {', '.join(cpu)} (no GPU support) of its own"
    if install is None:
        missing = [m.name for m in lent if m.clean_origin is None and m.name != "tensorflow"]
        if missing:
            install, why = intent.install(*missing), f"no {', '.join(missing)} of its own"
    if install is None:
        return fix
    return intent.then(
        fix, Fix(install.steps), note=fix.also(f"this environment has {why}: install it here").note
    )


def _rename(path: str) -> str:
    renamed = f"{path.removesuffix('.py')}_renamed{'.py' if path.endswith('.py') else ''}"
    return f"mv {path} {renamed}"


def _named_like(path: str, name: str) -> str:
    return f"a script named {name}.py" if path.endswith(".py") else f"a folder named {name}"


def _every_shadow(
    first: ModuleOrigin, imports: ImportsInfo, summary: str, fix: str
) -> tuple[str, str]:
    """One fix for every file or folder of the user's own that hides a package (a folder's
    ``keras/`` beside a ``tensorflow.py``): fixing one at a time leaves the next one found."""
    others = [
        m
        for m in imports.modules
        if m is not first
        and m.origin is not None
        and (found := _shadow(m, imports)) is not None
        and found[0] == "module_shadowed"
    ]
    paths: list[str] = []
    for m in (first, *others):
        for origin in (m.origin or "", *m.shadows):
            if _folder(origin) not in paths:
                paths.append(_folder(origin))
    if len(paths) == 1:
        return summary, fix
    behind = [p for p in paths[1:] if not any(p == _folder(m.origin or "") for m in others)]
    more = [m.name for m in others] + [f"{p} behind it" for p in behind]
    return (
        f"{summary} (and {', '.join(more)}, the same way)",
        " && ".join(_rename(path) for path in paths)
        + "  # rename them (files or folders of your own named like the packages hide them)",
    )


def _shadow(
    module: ModuleOrigin, imports: ImportsInfo, broken: bool = True
) -> tuple[str, str, str | Fix, str] | None:
    """(cause, summary, fix, status) when the user's ``import`` gets something else than the
    environment's own package, as observed by the target's import system in the user's folder.
    A package that only ``PYTHONPATH`` brings from a folder of the user's (``pip install --target
    DIR``, no environment's own folder), the only one this Python has, is a layout the user made,
    not a fault, unless the import is ``broken``."""
    if module.origin is None:
        return None
    path = _folder(module.origin)
    if module.distribution is False and module.where in ("cwd", "pythonpath", "other"):
        where = WHAT_PUT_IT_THERE.get(module.where or "other", "a folder on sys.path")
        fix = f"{_rename(path)}  # rename it ({_named_like(path, module.name)} hides the package)"
        if module.clean_origin is None:
            return (
                "module_shadowed",
                f"`import {module.name}` loads {path} (in {where}), a file of your own, not the "
                f"{module.name} package (which this environment does not have)",
                fix,
                "fail",
            )
        return (
            "module_shadowed",
            f"{path} (in {where}) shadows the {module.name} package: `import {module.name}` "
            "loads it instead",
            fix,
            "fail",
        )
    if module.origin == module.clean_origin or not _outside(module):
        return None
    layout = module.clean_origin is None and module.entry_environment is False and not broken
    if module.where == "pythonpath" and not layout:
        own = (
            f"not this environment's ({_folder(module.clean_origin)})"
            if module.clean_origin
            else "which this environment does not have itself"
        )
        return (
            "pythonpath_foreign",
            f"PYTHONPATH brings another {module.name}: `import {module.name}` loads {path}, {own}",
            _remaining_pythonpath(imports.pythonpath, module.path_entry),
            "fail",
        )
    return None


def foreign_pythonpath(snapshot: Snapshot, matrix: Matrix) -> Fix | None:
    """The fix ``user_import`` gives where PYTHONPATH brings another environment's package over
    (or instead of) this environment's own (``pythonpath_foreign``); ``None``: it does not."""
    imports = snapshot.imports
    if imports is None:
        return None
    broken = snapshot.tensorflow.probed and snapshot.tensorflow.error is not None
    for module in imports.modules:
        found = _shadow(module, imports, broken)
        if found is None:
            continue
        cause, _summary, fix, _status = found
        if cause != "pythonpath_foreign" or not isinstance(fix, Fix):
            return None  # the first finding is another cause's
        return _own_installs_after(fix, module.path_entry, snapshot, matrix)
    return None


@check("user_import", "Your own `import tensorflow` gets this environment's TensorFlow")
def user_import(snapshot: Snapshot, matrix: Matrix) -> Finding:
    imports = snapshot.imports
    if imports is None:
        return skip("user_import", not_recorded(snapshot))
    observed = tuple(
        import_observation(m, imports.cwd) for m in imports.modules if m.origin is not None
    )
    # observed to break: the probe imported TensorFlow and it failed (--no-tf observes nothing)
    broken = snapshot.tensorflow.probed and snapshot.tensorflow.error is not None
    for module in imports.modules:
        found = _shadow(module, imports, broken)
        if found:
            cause, summary, fix, status = found
            if cause == "module_shadowed" and isinstance(fix, str):
                summary, fix = _every_shadow(module, imports, summary, fix)
            if cause == "pythonpath_foreign" and isinstance(fix, Fix):
                fix = _own_installs_after(fix, module.path_entry, snapshot, matrix)
            details = (
                f"from {imports.cwd or 'your folder'}: {module.origin} ({_through(module)})\n"
                f"the environment's own: {module.clean_origin or 'not installed'}"
            )
            judge = fail if status == "fail" else warn
            return judge("user_import", cause, summary, details, fix, observed=observed)
    tf = next((m for m in imports.modules if m.name == "tensorflow"), None)
    where = f" from {imports.cwd}" if imports.cwd else ""
    installed = [  # what the environment itself holds (PYTHONPATH is the user's, see _shadow)
        d
        for d in commands.main_distributions(snapshot)
        if d.location in (None, "site", "user_site", "system_site")
    ]
    if tf is not None and installed and not _a_package(tf.clean_origin):
        what = (
            f"{tf.clean_origin} has no __init__.py"
            if tf.clean_origin
            else "no tensorflow package folder is on the path"
        )
        return fail(
            "user_import",
            "tf_install_broken",
            f"{installed[0].name} {installed[0].version} is installed, but its files are not: "
            f"{what}, so `import tensorflow` fails or gets an empty module",
            "pip lists it (its .dist-info is there) while the package folder is gone or emptied: "
            "an interrupted install, or an uninstall of a second TensorFlow distribution that "
            "shared the folder.",
            commands.reinstall(snapshot),
            observed=observed,
        )
    details = "\n".join(
        f"{m.name}: {m.origin} ({_through(m)})" for m in imports.modules if m.origin is not None
    )
    if tf is None or tf.origin is None:
        return ok(
            "user_import", f"nothing shadows the environment's packages{where}", details, observed
        )
    if _outside(tf):
        prefix = snapshot.target.prefix or "this environment"
        return info(
            "user_import",
            f"`import tensorflow`{where} loads {_folder(tf.origin)}, outside {prefix}: "
            f"{_through(tf)}",
            details
            + "\nIt is not this environment's own: pip in this environment does not install, "
            "upgrade or remove it.",
            observed=observed,
        )
    return ok(
        "user_import",
        f"`import tensorflow`{where} loads this environment's TensorFlow ({_folder(tf.origin)})",
        details,
        observed,
    )


def _same_environment(a: str | None, b: str | None) -> bool:
    """Two interpreter paths of one environment: the same folder (``env/bin``), the folder's own
    links resolved but not the interpreter's (every venv's ``python`` links to the same base
    interpreter, so comparing the files would call all venvs one)."""
    import os

    if not a or not b:
        return False
    return os.path.realpath(os.path.dirname(a)) == os.path.realpath(os.path.dirname(b))


@check("kernel", "In a notebook: the kernel runs the TensorFlow installed, and !pip reaches it")
def kernel(snapshot: Snapshot, matrix: Matrix) -> Finding:
    here = snapshot.kernel
    if here is None:
        return skip("kernel", "not called from a notebook kernel")
    if here.tf_imported and here.tf_installed and here.tf_imported != here.tf_installed:
        return warn(
            "kernel",
            "kernel_restart_needed",
            f"the kernel still runs TensorFlow {here.tf_imported}, imported before "
            f"{here.tf_installed} was installed: it keeps the old one until it restarts",
            f"imported {here.tf_imported}, installed {here.tf_installed}",
            "restart the kernel (Kernel > Restart; Colab: Runtime > Restart session), then run "
            "the notebook from the top",
        )
    pip_python = here.path_pip_python
    if here.path_pip and not _same_environment(pip_python, here.python):
        return warn(
            "kernel",
            "kernel_pip_elsewhere",
            f"`!pip install` installs into {pip_python or here.path_pip}, not into this kernel's "
            f"Python ({here.python}): what it installs, the notebook does not see",
            f"pip on PATH: {here.path_pip}; kernel: {here.python}",
            commands.KERNEL_PIP,
        )
    if here.tf_initialized:
        return info(
            "kernel",
            f"TensorFlow {here.tf_imported or ''} has already started its runtime in this kernel: "
            "memory settings (growth, limits, virtual GPUs) made now come too late".replace(
                "  ", " "
            ),
            fix="restart the kernel and call tf_gpucheck.configure_memory(...) before anything "
            "else uses TensorFlow",
        )
    return ok("kernel", f"{here.shell}: !pip and this kernel share {here.python}")
