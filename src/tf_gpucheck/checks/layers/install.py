"""TensorFlow itself: which distribution is installed, whether it imports, how it was built."""

from __future__ import annotations

import dataclasses
import functools

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tf_gpucheck.checks import facts, remedies, stale
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
from tf_gpucheck.checks.registry import check
from tf_gpucheck.installer import commands
from tf_gpucheck.matrix import Matrix
from tf_gpucheck.snapshot import (
    Distribution,
    ImportsInfo,
    ModuleOrigin,
    RequirementInfo,
    Snapshot,
    UnmetRequirement,
)


def _uninstall_and_install(snapshot: Snapshot, matrix: Matrix, remove: list[str]) -> str:
    """Uninstall ``remove`` and install the GPU build this machine runs. A distribution in
    another environment's site-packages, which a ``.pth`` file puts on this venv's sys.path, is
    not this environment's to uninstall (its pip says "Not uninstalling ... outside
    environment"): that ``.pth`` file is set aside instead, and where this environment then
    holds one TensorFlow of its own, nothing is reinstalled."""
    from tf_gpucheck.target import shell_quote

    main = commands.main_distributions(snapshot)
    shared = {
        d.name: d.pth
        for d in main
        if d.name in remove and d.location == "other" and d.pth and snapshot.target.kind == "venv"
    }
    if not shared:
        return remedies.replace_distributions(Known.from_snapshot(snapshot), matrix, remove)
    windows = snapshot.system.os == "Windows"
    files = [p for p in dict.fromkeys(shared.values()) if p]
    hide = " && ".join(
        f"mv {shell_quote(p, windows=windows)} {shell_quote(p + '.disabled', windows=windows)}"
        for p in files
    )
    kept = [d for d in main if d.name not in shared]
    if len(kept) == 1 and kept[0].name in remove and _replaced_alone(kept[0]):
        # what remains once the file is aside is a build tf_install replaces on its own (a
        # CPU-only distribution, the merged tensorflow-gpu): replaced now, not installed again
        # (seed 21, environment 0: tensorflow-cpu installed again, then tf_cpu_only_build)
        return f"{hide} && " + remedies.replace_distributions(
            Known.from_snapshot(snapshot), matrix, [kept[0].name]
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
        again = commands.with_target_pip(f'pip install "{own.name}=={own.version}"', snapshot)
        lent = sorted(
            {
                m.name
                for m in (snapshot.imports.modules if snapshot.imports else ())
                if m.name != "tensorflow" and m.pth in files and m.in_target is False
            }
        )
        came = f"; {', '.join(lent)} came from there too" if lent else ""
        return (
            f"{hide} && {again}  # {why}{came}: pip then installs here what {own.name} "
            f"{own.version} requires and this environment lacks"
        )
    rest = [n for n in remove if n not in shared]
    return f"{hide} && " + remedies.replace_distributions(
        Known.from_snapshot(snapshot), matrix, rest
    )


def _replaced_alone(own: Distribution) -> bool:
    """A distribution tf_install replaces where it is the only one: no GPU support, or the
    tensorflow-gpu that became tensorflow."""
    return own.name in commands.CPU_ONLY_DISTRIBUTIONS or (
        own.name == "tensorflow-gpu" and _merged_into_tensorflow(own.version)
    )


# --- TensorFlow itself ---------------------------------------------------------------------


_WHAT_PUT_IT_THERE = {
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
    words = _WHAT_PUT_IT_THERE.get(added_by, "a folder on sys.path")
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


def _remaining_pythonpath(pythonpath: tuple[str, ...], entry: str | None) -> str:
    """The command that takes ``entry`` out of PYTHONPATH and keeps the rest."""
    import os
    import shlex

    # what is observed: the entry comes before the environment's own site-packages (not whose
    # packages they are: a `pip install --target` folder belongs to no environment)
    if entry is None:
        return "unset PYTHONPATH  # its folders come before this environment's own packages"
    wanted = os.path.normcase(os.path.abspath(entry))
    rest = [p for p in pythonpath if os.path.normcase(os.path.abspath(p)) != wanted]
    if not rest or len(rest) == len(pythonpath):
        return f"unset PYTHONPATH  # {entry} comes before this environment's own packages"
    return f"export PYTHONPATH={shlex.quote(os.pathsep.join(rest))}  # without {entry}"


def _own_installs_after(fix: str, entry: str | None, snapshot: Snapshot, matrix: Matrix) -> str:
    """Taking a folder out of PYTHONPATH takes away what only it lent: where TensorFlow comes
    through it, the environment's own must then be one this machine runs (none of its own, or a
    CPU-only build such as tensorflow-cpu: the release this machine runs replaces it); where
    Keras or NumPy come only through it, the environment's own are installed. Else the user's
    import fails, or gets a CPU-only build, once it is out."""
    from tf_gpucheck.installer.operations import split_comment
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
    install = ""
    why = ""
    if any(m.name == "tensorflow" for m in lent):
        cpu = [n for n in own if n in commands.CPU_ONLY_DISTRIBUTIONS]
        if not own:
            install, why = recommend(snapshot, matrix).command or "", "no tensorflow of its own"
        elif cpu and len(own) == len(cpu):
            install = remedies.replace_distributions(Known.from_snapshot(snapshot), matrix, cpu)
            why = f"only {', '.join(cpu)} (no GPU support) of its own"
    if not install:
        missing = [m.name for m in lent if m.clean_origin is None and m.name != "tensorflow"]
        if missing:
            install, why = "pip install " + " ".join(missing), f"no {', '.join(missing)} of its own"
    if not install:
        return fix
    code, _, note = split_comment(fix)
    step, _, _ = split_comment(install)
    return f"{code} && {step}  #{note}; this environment has {why}: install it here"


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


def _shadow(module: ModuleOrigin, imports: ImportsInfo) -> tuple[str, str, str, str] | None:
    """(cause, summary, fix, status) when the user's ``import`` gets something else than the
    environment's own package, as observed by the target's import system in the user's folder."""
    if module.origin is None:
        return None
    path = _folder(module.origin)
    if module.distribution is False and module.where in ("cwd", "pythonpath", "other"):
        where = _WHAT_PUT_IT_THERE.get(module.where or "other", "a folder on sys.path")
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
    if module.where == "pythonpath":
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


@check("user_import", "Your own `import tensorflow` gets this environment's TensorFlow")
def user_import(snapshot: Snapshot, matrix: Matrix) -> Finding:
    imports = snapshot.imports
    if imports is None:
        return skip("user_import", not_recorded(snapshot))
    observed = tuple(
        import_observation(m, imports.cwd) for m in imports.modules if m.origin is not None
    )
    for module in imports.modules:
        found = _shadow(module, imports)
        if found:
            cause, summary, fix, status = found
            if cause == "module_shadowed":
                summary, fix = _every_shadow(module, imports, summary, fix)
            if cause == "pythonpath_foreign":
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
            f"pip install --force-reinstall --no-deps {commands.installed_requirement(snapshot)}",
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


def not_recorded(snapshot: Snapshot) -> str:
    """Why the user's import was not recorded: an interpreter that could not be queried, or an
    older snapshot."""
    if snapshot.target.error:
        return f"the interpreter could not be queried: {snapshot.target.error}"
    return "not recorded (a snapshot before schema 3)"


# --- what TensorFlow declares it needs ------------------------------------------------------

NUMPY_2_FROM = (2, 18)
"""The first TensorFlow compiled against NumPy 2 (TensorFlow 2.18.0 release notes: "TensorFlow now
supports and is compiled with NumPy 2.0 by default"); earlier ones fail to import under NumPy 2
whatever their metadata declares (2.7 to 2.14 declare no upper bound)."""

_FAMILY = {"numpy": "numpy_incompatible", "protobuf": "protobuf_incompatible"}
_FAMILY_ORDER = ("numpy_incompatible", "protobuf_incompatible", "tf_requirement_unmet")


@functools.lru_cache(maxsize=1024)
def _requirement(text: str) -> Requirement | None:
    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def requirement_problems(
    requirements: tuple[RequirementInfo, ...], tf_version: str | None
) -> list[tuple[str, str, str]]:
    """(cause, what is wrong, the install that fixes it) for every requirement not met, most
    important family first. Keras itself is the ``keras`` check's."""
    problems = []
    numpy = None
    for item in requirements:
        requirement = _requirement(item.requirement)
        if requirement is None:
            continue
        name = canonicalize_name(requirement.name)
        if name == "numpy" and item.installed:
            numpy = item.installed
        if name in ("keras", "tf-keras"):
            continue
        cause = _FAMILY.get(name, "tf_requirement_unmet")
        wanted = f'pip install "{name}{requirement.specifier}"'
        if item.installed is None:
            problems.append((cause, f"{name} is not installed ({item.of} requires it)", wanted))
        elif not requirement.specifier.contains(item.installed, prereleases=True):
            problems.append(
                (
                    cause,
                    f"{name} {item.installed} does not satisfy {item.of}'s requirement "
                    f"{name}{requirement.specifier}"
                    + (
                        "" if _other_major(requirement, item.installed) else " (same major version)"
                    ),
                    wanted,
                )
            )
    if numpy and tf_version and not any(c == "numpy_incompatible" for c, _, _ in problems):
        try:
            numpy_2 = Version(numpy).major >= 2
            old_build = Version(tf_version).release[:2] < NUMPY_2_FROM
        except InvalidVersion:
            numpy_2 = old_build = False
        if numpy_2 and old_build:
            problems.append(
                (
                    "numpy_incompatible",
                    f"NumPy {numpy} with TensorFlow {tf_version}, which was compiled against NumPy 1.x",
                    'pip install "numpy<2"',
                )
            )
    problems.sort(key=lambda p: _FAMILY_ORDER.index(p[0]))
    return problems


def _other_major(requirement: Requirement, installed: str) -> bool:
    """No release of the installed major version satisfies the requirement: an API break, not a
    conservative bound (TensorFlow 2.10 declares protobuf<3.20 and runs with 3.20.3)."""
    try:
        major = Version(installed).major
    except InvalidVersion:
        return True
    probes = [f"{major}.{minor}.{patch}" for minor in range(60) for patch in (0, 9)]
    return not any(requirement.specifier.contains(v, prereleases=True) for v in probes)


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
            "%pip install PACKAGE  # the %pip magic installs into the kernel's own Python",
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


_WORLD = ("tensorflow", "tf-", "keras", "tensorboard", "nvidia-", "jax", "ml-dtypes", "tf-keras")
"""The distributions whose unmet requirements are TensorFlow's business (declared by them, or
on them); others (a desktop's pygobject wanting pycairo) are listed apart."""


def _in_world(name: str) -> bool:
    return name.startswith(_WORLD)


def _family(unmet: UnmetRequirement) -> str:
    if unmet.name in ("keras", "tf-keras") or (
        unmet.of in ("keras", "tf-keras") and (unmet.name in stale.TENSORFLOW_NAMES)
    ):
        return "keras_mismatch"
    return _FAMILY.get(unmet.name, "tf_requirement_unmet")


def _hard(unmet: UnmetRequirement) -> bool:
    """Another major version of NumPy, protobuf or Keras stops the import (or tf.keras); a bound
    missed within a major version may only break a feature."""
    if unmet.name not in ("numpy", "protobuf", "keras") or unmet.have is None:
        return unmet.have is None and unmet.of in stale.TENSORFLOW_NAMES
    requirement = _requirement(f"{unmet.name}{_spec_of(unmet.requirement)}")
    return requirement is not None and _other_major(requirement, unmet.have)


def _stops(unmet: UnmetRequirement, snapshot: Snapshot) -> bool:
    """``_hard``, as far as it is known: another major version of NumPy or protobuf stops
    TensorFlow's import where TensorFlow declares the bound (2.7-2.17 compiled against NumPy 1),
    unless the probe saw it import and start; another package's bound on them (ml-dtypes 0.6
    declares numpy>=2.0.0, and loads under NumPy 1.26) is not known to stop it. Keras is judged
    apart: tf.keras is not what the probe imports."""
    if not _hard(unmet):
        return False
    if unmet.name not in ("numpy", "protobuf"):
        return True
    if _seen_importing(snapshot):
        return False
    return unmet.of in stale.TENSORFLOW_NAMES


def _seen_importing(snapshot: Snapshot) -> bool:
    """The probe imported TensorFlow and started it, with what is installed."""
    seen = snapshot.tensorflow
    return seen.probed and seen.error is None and seen.version is not None


def _spec_of(requirement: str | None) -> str:
    parsed = _requirement(requirement or "")
    return str(parsed.specifier) if parsed is not None else ""


def requirement_observation(unmet: UnmetRequirement, by: str | None) -> Observation:
    return observation(
        "requirement",
        of=unmet.of,
        of_version=unmet.of_version,
        requirement=unmet.requirement,
        name=unmet.name,
        have=unmet.have,
        by=by,
    )


@check("tf_requirements", "The packages TensorFlow and Keras declare are installed and match")
def tf_requirements(snapshot: Snapshot, matrix: Matrix) -> Finding:
    if not snapshot.packages.tensorflow:
        return skip("tf_requirements", "TensorFlow is not installed")
    installer = snapshot.installer
    if installer is not None and installer.check is not None:
        return _from_installer_check(snapshot, matrix, installer.check, installer.check_by)
    requirements = snapshot.packages.requirements
    if requirements is None:
        return skip("tf_requirements", not_recorded(snapshot))
    finding = _from_metadata(snapshot, matrix, requirements)
    why = installer.check_error if installer is not None else None
    if why:  # not run is not passed: the installer's check did not answer, and says why
        finding = dataclasses.replace(
            finding,
            summary=f"{finding.summary} (TensorFlow's and Keras's own; not checked: {why})",
        )
    return finding


def _from_installer_check(
    snapshot: Snapshot,
    matrix: Matrix,
    check_lines: tuple[UnmetRequirement, ...],
    by: str | None,
) -> Finding:
    """Judged from the installer's own check: its lines are the statement, verbatim."""
    by = by or "the installer's check"
    ours = [u for u in check_lines if _in_world(u.of) or _in_world(u.name)]
    others = [u for u in check_lines if u not in ours]
    extra = _numpy_abi(snapshot, matrix, ours)
    aside = (
        "\nNot TensorFlow's (left alone): " + "; ".join(u.line for u in others) if others else ""
    )
    if not ours and extra is None:
        return ok(
            "tf_requirements",
            f"{by}: every requirement of TensorFlow, Keras and their packages is met",
            aside.strip(),
        )
    observed = tuple(requirement_observation(u, by) for u in ours)
    if not ours and extra is not None:
        cause, summary, fix, fallbacks = extra
        finding = fail("tf_requirements", cause, summary, aside.strip(), fix, observed=observed)
        return dataclasses.replace(finding, fallbacks=fallbacks)
    order = (
        "numpy_incompatible",
        "protobuf_incompatible",
        "keras_mismatch",
        "tf_requirement_unmet",
    )
    ours.sort(key=lambda u: (order.index(_family(u)), not _hard(u)))
    first = ours[0]
    # what the same package declares is met in one install (another's bound may pull against it)
    plan = stale.together([stale.remedy(u, snapshot, matrix) for u in ours if u.of == first.of])
    more = f" (and {len(ours) - 1} more)" if len(ours) > 1 else ""
    details = "\n".join(f"{by}: {u.line}" for u in ours) + f"\nThe fix: {plan.changes}." + aside
    judge = fail if _stops(first, snapshot) or snapshot.tensorflow.error else warn
    finding = judge(
        "tf_requirements",
        _family(first),
        f"{by}: {first.line}{more}",
        details,
        plan.fix,
        observed=observed,
    )
    return dataclasses.replace(finding, fallbacks=plan.fallbacks)


def _numpy_abi(
    snapshot: Snapshot, matrix: Matrix, unmet: list[UnmetRequirement]
) -> tuple[str, str, str, tuple[str, ...]] | None:
    """NumPy 2 under a TensorFlow compiled against NumPy 1 (2.7 to 2.14 declare no upper bound,
    so no installer's check sees it): (cause, summary, fix, fallbacks)."""
    if any(u.name == "numpy" for u in unmet):
        return None
    numpy_row = next(
        (r for r in snapshot.packages.requirements or () if r.requirement.startswith("numpy")),
        None,
    )
    numpy = numpy_row.installed if numpy_row else None
    main = commands.main_distributions(snapshot)
    tf_version = facts.tf_version(snapshot)
    if not numpy or not tf_version or not main:
        return None
    try:
        numpy_2 = Version(numpy).major >= 2
        old_build = Version(tf_version).release[:2] < NUMPY_2_FROM
    except InvalidVersion:
        return None
    if not (numpy_2 and old_build):
        return None
    as_unmet = UnmetRequirement(
        line="",
        of=main[0].name,
        of_version=tf_version,
        name="numpy",
        requirement="numpy<2",
        have=numpy,
        of_installed_at=main[0].installed_at,
        name_installed_at=numpy_row.installed_at if numpy_row else None,
    )
    plan = stale.remedy(as_unmet, snapshot, matrix)
    return (
        "numpy_incompatible",
        f"NumPy {numpy} with TensorFlow {tf_version}, which was compiled against NumPy 1.x "
        "(2.18 is the first compiled against NumPy 2)",
        plan.fix,
        plan.fallbacks,
    )


def _from_metadata(
    snapshot: Snapshot, matrix: Matrix, requirements: tuple[RequirementInfo, ...]
) -> Finding:
    """Without the installer's check (no pip to ask, an older snapshot): the requirements read
    from the metadata of TensorFlow and Keras, and only those."""
    problems = requirement_problems(requirements, facts.tf_version(snapshot))
    read = sorted({r.of for r in requirements})
    if not problems:
        if not requirements:
            return info(
                "tf_requirements",
                "TensorFlow's declared requirements could not be read (no metadata, no installer "
                "check)",
            )
        return ok(
            "tf_requirements",
            f"all {len(requirements)} requirements declared by {', '.join(read)} are met "
            "(read from their metadata; the installer's own check was not run)",
        )
    cause, summary, fix = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    details = "\n".join(what for _, what, _ in problems)
    hard = (
        cause in ("numpy_incompatible", "protobuf_incompatible")
        and not summary.endswith("(same major version)")
        and not _seen_importing(snapshot)
    )
    if hard or snapshot.tensorflow.error:
        return fail("tf_requirements", cause, summary + more, details, fix)
    return warn("tf_requirements", cause, summary + more, details, fix)


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
    if name == "tensorflow-gpu" and _merged_into_tensorflow(main[0].version):
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
    where = ", ".join(f"{d.name} in {_WHAT_PUT_IT_THERE.get(d.location or 'other')}" for d in main)
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


def _merged_into_tensorflow(version: str) -> bool:
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
                f"pip install --force-reinstall --no-deps {commands.installed_requirement(snapshot)}"
                "  # a truncated or corrupt file of the install",
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
    return ok("tf_build", f"built with CUDA {cuda} and cuDNN {cudnn}")
