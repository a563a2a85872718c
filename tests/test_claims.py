"""benchmarks/claims.py: the oracle on hand-built environments, and a seeded sample of generated
ones whose statements it checks (issue 27, item 3).

The oracle is tested against the tools that decide (the target's own import system, pip's own
check, the dynamic loader), on environments made by real ``python -m venv`` and ``pip install``.
The stand-in ``tensorflow`` distribution of the hand-built cases is a real wheel (a zip with
its .dist-info, made here and installed by pip): where a module comes from and what pip check
says do not depend on how big the package is.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import tf_gpucheck

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import claims  # noqa: E402
import claims_fixes  # noqa: E402
import claims_oracle  # noqa: E402
import claims_recipes as recipes  # noqa: E402
import claims_statements  # noqa: E402

GPUCHECK = os.environ.get("GPUCHECK_CLAIMS_GPUCHECK", sys.executable)
"""The Python whose tf_gpucheck runs doctor (this one; another checkout's to compare)."""


def make_wheel(
    folder: Path, name: str, version: str, files: dict[str, str], requires: tuple[str, ...] = ()
) -> Path:
    """A real wheel (PEP 427): the files, METADATA, WHEEL and a RECORD with their hashes."""
    dist = f"{name.replace('-', '_')}-{version}.dist-info"
    meta = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    meta += [f"Requires-Dist: {r}" for r in requires]
    content = dict(files)
    content[f"{dist}/METADATA"] = "\n".join(meta) + "\n"
    content[f"{dist}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = []
    for path, text in content.items():
        digest = (
            base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        )
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{dist}/RECORD,,")
    content[f"{dist}/RECORD"] = "\n".join(record) + "\n"
    wheel = folder / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path, text in content.items():
            zf.writestr(path, text)
    return wheel


def base_python() -> str:
    return str(Path(sys.base_prefix) / "bin" / "python3")


def venv(where: Path) -> Path:
    subprocess.run([base_python(), "-m", "venv", str(where)], check=True)
    return where / "bin" / "python"


def pip_install(python: Path, wheels: Path, *specs: str) -> None:
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-index",
            "--find-links",
            str(wheels),
            *specs,
        ],
        check=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
        | {"PIP_CONFIG_FILE": os.devnull},
    )


def built_for(w: Path, target: Path, **env: str) -> recipes.Built:
    """What the builder returns, for an environment made by hand under ``w``."""
    home = w / "home"
    home.mkdir(exist_ok=True)
    (w / "work").mkdir(exist_ok=True)
    user_env = recipes.machine_environment(home, recipes.CACHE / "bin") | env
    return recipes.Built.existing({}, w, str(target), w / "work", user_env)


@pytest.fixture(scope="module")
def pth_envs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """env A with a ``tensorflow`` distribution (requiring a NumPy that is not there), and env B,
    empty, with a .pth file naming A's site-packages."""
    w = tmp_path_factory.mktemp("pth")
    wheels = w / "wheels"
    wheels.mkdir()
    make_wheel(
        wheels,
        "tensorflow",
        "2.21.0",
        {"tensorflow/__init__.py": "__version__ = '2.21.0'\n"},
        requires=("numpy>=99",),
    )
    a = venv(w / "a")
    pip_install(a, wheels, "--no-deps", "tensorflow==2.21.0")
    b = venv(w / "b")
    site_a = subprocess.run(
        [str(a), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    site_b = subprocess.run(
        [str(b), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site_b) / "_other_env.pth").write_text(site_a + "\n")
    return w, b, Path(site_a)


@pytest.mark.slow
def test_oracle_import_through_a_pth_file_is_not_the_target_s(
    pth_envs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    w, b, site_a = pth_envs
    oracle = claims_oracle.Oracle(built_for(w, b), tmp_path / "scratch", recipes.CACHE / "bin")
    spec = oracle.spec("tensorflow")
    assert spec is not None
    assert spec["origin"] == os.path.realpath(site_a / "tensorflow" / "__init__.py")
    assert spec["added_by"] == "pth"
    assert spec["in_target"] is False
    said = claims_statements.Statement(
        "import",
        "text",
        "user_import",
        "`import tensorflow` loads this environment's TensorFlow",
        {"module": "tensorflow", "in_target": True, "package_of_distribution": True},
    )
    claims_oracle.judge(said, oracle)
    assert said.verdict == "false"
    assert "not under the target's prefix" in said.truth
    right = claims_statements.Statement(
        "import",
        "observed",
        "user_import",
        "",
        {
            "module": "tensorflow",
            "origin": str(site_a / "tensorflow" / "__init__.py"),
            "in_target": False,
            "added_by": "pth",
        },
    )
    claims_oracle.judge(right, oracle)
    assert right.verdict == "true", right.truth


@pytest.mark.slow
def test_oracle_judges_each_shadow_said(pth_envs: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """Each file said to hide a package must be a module file of no distribution's, in a folder
    on the user's path ahead of the environment's own."""
    _w, b, site_a = pth_envs
    w2 = tmp_path / "w"
    (w2 / "work").mkdir(parents=True)
    (w2 / "work" / "tensorflow.py").write_text("")
    checkout = w2 / "checkout"
    (checkout / "tensorflow").mkdir(parents=True)
    (checkout / "tensorflow" / "__init__.py").write_text("")
    built = built_for(w2, b, PYTHONPATH=str(checkout))
    oracle = claims_oracle.Oracle(built, tmp_path / "scratch", recipes.CACHE / "bin")

    def said(*shadows: Path) -> claims_statements.Statement:
        return claims_statements.Statement(
            "import",
            "observed",
            "user_import",
            "",
            {"module": "tensorflow", "shadows": [str(s) for s in shadows]},
        )

    right = said(w2 / "work" / "tensorflow.py", checkout / "tensorflow" / "__init__.py")
    claims_oracle.judge(right, oracle)
    assert right.verdict == "true", right.truth
    packaged = said(site_a / "tensorflow" / "__init__.py")  # a distribution's, and not ahead
    claims_oracle.judge(packaged, oracle)
    assert packaged.verdict == "false"
    gone = said(w2 / "work" / "keras.py")
    claims_oracle.judge(gone, oracle)
    assert gone.verdict == "false"
    assert "no such module file" in gone.truth


@pytest.mark.slow
def test_oracle_distributions_and_pip_check(
    pth_envs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    w, b, _site_a = pth_envs
    oracle = claims_oracle.Oracle(built_for(w, b), tmp_path / "scratch", recipes.CACHE / "bin")
    absent = claims_statements.Statement(
        "distribution_absent",
        "text",
        "tf_install",
        "TensorFlow is not installed in this Python",
        {"names": sorted(claims_statements._TF_DISTRIBUTIONS), "package": "tensorflow"},
    )
    claims_oracle.judge(absent, oracle)
    assert (
        absent.verdict == "false"
    )  # importable, and importlib.metadata lists it, through the .pth
    present = claims_statements.Statement(
        "distribution", "text", "tf_install", "", {"name": "tensorflow", "version": "2.21.0"}
    )
    claims_oracle.judge(present, oracle)
    assert present.verdict == "true", present.truth
    # pip's own check, run by B's pip: it sees A's distribution through the .pth file
    unmet = claims_statements.Statement(
        "requirement",
        "text",
        "tf_requirements",
        "",
        {"of": "tensorflow", "name": "numpy", "have": None, "requirement": "numpy"},
    )
    claims_oracle.judge(unmet, oracle)
    assert unmet.verdict == "true", unmet.truth
    met = claims_statements.Statement("requirements_met", "text", "tf_requirements", "", {})
    claims_oracle.judge(met, oracle)
    assert met.verdict == "false"
    assert "numpy" in met.truth


def test_oracle_shadowing_file_in_the_user_folder(
    pth_envs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, b, _ = pth_envs
    folder = tmp_path / "w"
    folder.mkdir()
    built = built_for(folder, b)
    (built.cwd / "numpy.py").write_text("")
    oracle = claims_oracle.Oracle(built, tmp_path / "scratch", recipes.CACHE / "bin")
    spec = oracle.spec("numpy")
    assert spec is not None
    assert spec["added_by"] == "cwd"
    nothing = claims_statements.Statement(
        "no_shadow", "text", "user_import", "", {"modules": ["numpy"]}
    )
    claims_oracle.judge(nothing, oracle)
    assert nothing.verdict == "false"
    shadowed = claims_statements.Statement(
        "import",
        "text",
        "user_import",
        "",
        {
            "module": "numpy",
            "origin": str(built.cwd / "numpy.py"),
            "package_of_distribution": False,
        },
    )
    claims_oracle.judge(shadowed, oracle)
    assert shadowed.verdict == "true", shadowed.truth


def _library(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "lib.c"
    source.write_text(text)
    out = folder / name
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-o", str(out), str(source), f"-Wl,-soname,{name}"], check=True
    )
    return out


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_oracle_loader_order_runpath_after_ld_library_path(tmp_path: Path) -> None:
    """ld.so(8): LD_LIBRARY_PATH is searched before the caller's DT_RUNPATH; the oracle's dlopen
    program follows the loader, not a rule of its own."""
    near = _library(tmp_path / "near", "libclaimsdemo.so.1", "int which(void) { return 1; }\n")
    far = _library(tmp_path / "far", "libclaimsdemo.so.1", "int which(void) { return 2; }\n")
    requester = _library(tmp_path / "pkg", "librequester.so", "int r(void) { return 0; }\n")
    subprocess.run(
        [
            "gcc",
            "-shared",
            "-fPIC",
            "-o",
            str(requester),
            str(tmp_path / "pkg" / "lib.c"),
            "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../near",
        ],
        check=True,
    )
    w = tmp_path / "w"
    w.mkdir()
    built = built_for(w, Path(sys.executable))
    oracle = claims_oracle.Oracle(built, tmp_path / "scratch", recipes.CACHE / "bin")
    path, error, _ = oracle.dlopen("libclaimsdemo.so.1", "", str(requester))
    assert path == os.path.realpath(near), error
    built.user_env["LD_LIBRARY_PATH"] = str(far.parent)
    oracle = claims_oracle.Oracle(built, tmp_path / "scratch2", recipes.CACHE / "bin")
    path, error, _ = oracle.dlopen("libclaimsdemo.so.1", "", str(requester))
    assert path == os.path.realpath(far), error
    # and what ld.so itself says it loads, for the same program and variables
    debug = subprocess.run(
        [str(next((tmp_path / "dl").glob("dlopen-*"))), "libclaimsdemo.so.1="],
        capture_output=True,
        text=True,
        env=built.user_env | {"LD_DEBUG": "libs"},
        check=True,
    )
    assert f"calling init: {far}" in debug.stderr
    assert f"calling init: {near}" not in debug.stderr


def test_fix_commands_are_split_and_aimed_at_the_copy(tmp_path: Path) -> None:
    assert claims_fixes.split_fix('pip uninstall -y a && pip install "b==1.*"  # why') == [
        ["pip", "uninstall", "-y", "a"],
        ["pip", "install", "b==1.*"],
    ]
    assert claims_fixes.split_fix("curl x | sh") is None
    copy = tmp_path / "wfix"
    (copy / "env" / "bin").mkdir(parents=True)
    env = {"PATH": f"{copy}/env/bin:/usr/bin:/bin"}
    (copy / "env" / "bin" / "pip").write_text("#!/elsewhere/python\n")
    (copy / "env" / "bin" / "pip").chmod(0o755)
    part = claims_fixes._classify(["pip", "install", "x"], env, copy)
    assert part is not None
    assert not part.outside
    assert part.argv[:3] == [
        f"{copy}/env/bin/python",
        "-m",
        "pip",
    ]  # never the copied script's shebang
    system = claims_fixes._classify(["/usr/bin/python3", "-m", "pip", "install", "x"], env, copy)
    assert system is not None
    assert system.outside  # only ever dry-run
    assert (
        claims_fixes._rewrite(f"{tmp_path}/w/env:{tmp_path}/w", tmp_path / "w", copy)
        == f"{copy}/env:{copy}"
    )


def test_recipes_are_reproducible_plain_data() -> None:
    grammar = recipes.Grammar(available_pythons=("3.10", "3.11", "3.12"))
    first = [recipes.draw(7, i, grammar) for i in range(20)]
    again = [recipes.draw(7, i, grammar) for i in range(20)]
    assert first == again
    assert json.loads(json.dumps(first)) == first
    assert {r["layout"] for r in first} >= {"venv", "uv"}


@pytest.mark.slow
def test_doctor_statements_hold_for_an_env_reaching_into_another(
    pth_envs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """doctor on env B (a .pth file names env A's site-packages, where the distribution is):
    every statement the oracle can check is true."""
    w, b, _ = pth_envs
    built = built_for(w, b)
    run = claims_statements.run_doctor(built, GPUCHECK, no_tf=True, activated=False)
    assert run.report is not None, run.stderr_tail
    oracle = claims_oracle.Oracle(built, tmp_path / "scratch", recipes.CACHE / "bin")
    found = claims_statements.statements(run.report)
    for statement in found:
        claims_oracle.judge(statement, oracle)
    assert [s.kind for s in found if s.kind == "import"], "no statement about the import"
    assert [(s.check, s.said, s.truth) for s in found if s.verdict == "false"] == []


CONTRACT_KINDS = frozenset(
    {
        "import",
        "no_shadow",
        "import_broken",
        "distribution",
        "distribution_absent",
        "requirement",
        "requirements_met",
        "library",
        "library_absent",
        "device_nodes",
        "installer",
    }
)
"""The statement kinds the contract's ``observed`` covers (and today's sentences of the same)."""


@pytest.mark.slow
def test_seeded_sample_statements_hold(tmp_path: Path) -> None:
    """Five light environments drawn with seed 3 (Debian's Python with --user, a venv seeing the
    user site, PYTHONPATH into another venv, uv; small real wheels, no TensorFlow): every
    statement of those kinds that doctor makes, from its observations or its sentences, is
    true by the oracle's experiment."""
    builder = recipes.Builder(tmp_path)
    grammar = recipes.Grammar(light=True, available_pythons=tuple(recipes.pythons()) or ("3.11",))
    results = [
        claims.check_environment(i, recipes.draw(3, i, grammar), builder, GPUCHECK, fixes=False)
        for i in range(5)
    ]
    assert all(not r.doctor_error for r in results), [r.doctor_error for r in results]
    checked = [
        s
        for r in results
        for s in r.statements
        if s.kind in CONTRACT_KINDS and s.verdict in ("true", "false")
    ]
    assert len(checked) >= 10, "the sample states too little to test"
    assert [(s.check, s.said, s.truth) for s in checked if s.verdict == "false"] == []


def test_a_resumed_run_must_be_the_same_seed_and_the_same_gpucheck(tmp_path: Path) -> None:
    """--resume goes on only with the run it was given: another seed, or a gpucheck whose files
    differ, is refused (exit 2) before anything is built."""
    run = tmp_path / "run.json"
    mine = claims.fingerprint(GPUCHECK)
    assert mine.startswith(tf_gpucheck.__version__ + "+")
    for seed, printed in ((9, mine), (8, "0.0.0+0000000000000000")):
        run.write_text(
            json.dumps({"seed": seed, "gpucheck_fingerprint": printed, "environments": []})
        )
        with pytest.raises(SystemExit) as stopped:
            claims.main(
                ["--seed", "8", "--count", "1", "--resume", "--json", str(run),
                 "--gpucheck-python", GPUCHECK, "--workdir", str(tmp_path / "w")]
            )  # fmt: skip
        assert stopped.value.code == 2
    assert not (tmp_path / "w").exists()


def test_a_version_a_later_recipe_step_moved_is_not_the_fixs_doing(tmp_path: Path) -> None:
    """The user asked for tensorflow 2.21.0, a later step of theirs (a --force-reinstall of an
    older tf-keras) brought it to 2.17.1: a fix that leaves it there lowered nothing; a fix
    that lowers it from what was there did."""
    from tests.probes.test_user_import import install_fake
    from tests.test_target import make_venv, site_packages

    python = make_venv(tmp_path / "env")
    site = site_packages(python)
    install_fake(site, "tensorflow", "2.17.1")
    built = type("Built", (), {"explicit": {"tensorflow": "2.21.0"}})()
    env = dict(os.environ)
    before = claims_fixes._versions(str(python), env, tmp_path)
    assert before["tensorflow"] == "2.17.1"
    assert claims_fixes._went_down(built, str(python), env, tmp_path, before) == []

    shutil.rmtree(site / "tensorflow")
    shutil.rmtree(site / "tensorflow-2.17.1.dist-info")
    install_fake(site, "tensorflow", "2.16.2")
    lowered = claims_fixes._went_down(built, str(python), env, tmp_path, before)
    assert lowered == ["tensorflow 2.17.1 -> 2.16.2"]


def test_the_users_own_choice_back_in_view_is_no_loss(tmp_path: Path) -> None:
    """The user installed protobuf 3.20.3 in their environment; PYTHONPATH lent another
    environment's 7.36.2 over it. The fix (unset PYTHONPATH) shows their own 3.20.3 again: it
    took nothing down that they chose."""
    from tests.probes.test_user_import import install_fake
    from tests.test_target import make_venv, site_packages

    python = make_venv(tmp_path / "env")
    install_fake(site_packages(python), "protobuf", "3.20.3")
    other = tmp_path / "other-site"
    other.mkdir()
    install_fake(other, "protobuf", "7.36.2")
    built = type("Built", (), {"explicit": {"protobuf": "3.20.3"}})()
    lent = {**os.environ, "PYTHONPATH": str(other)}
    before = claims_fixes._versions(str(python), lent, tmp_path)
    assert before["protobuf"] == "7.36.2"
    plain = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    assert claims_fixes._went_down(built, str(python), plain, tmp_path, before) == []

    # benchmarks/runs/seed135.json env 54: the user chose ml-dtypes 0.5.1, a later step of
    # theirs (tf-keras 2.17.0 bringing TensorFlow 2.17) took their environment's own to 0.4.1,
    # and PYTHONPATH lent 0.7.0 over it. Unsetting PYTHONPATH shows 0.4.1, which the environment
    # already held: the fix lowered nothing
    install_fake(site_packages(python), "ml-dtypes", "0.4.1")
    install_fake(other, "ml-dtypes", "0.7.0")
    built = type("Built", (), {"explicit": {"ml-dtypes": "0.5.1"}})()
    before = claims_fixes._versions(str(python), lent, tmp_path)
    own = claims_fixes._versions(str(python), plain, tmp_path)
    assert (before["ml-dtypes"], own["ml-dtypes"]) == ("0.7.0", "0.4.1")
    assert claims_fixes._went_down(built, str(python), plain, tmp_path, before, own=own) == []
    lowered = claims_fixes._went_down(built, str(python), plain, tmp_path, before)
    assert lowered == ["ml-dtypes 0.7.0 -> 0.4.1"]  # without what the environment held


@pytest.mark.slow
def test_the_wheelhouse_stands_in_for_the_index_only_where_the_users_pip_uses_one(
    tmp_path: Path,
) -> None:
    """pip's own option parser, run in the user's setting, says whether it uses an index: where
    it does not (PIP_NO_INDEX, a pip.conf), the oracle gives the fix no wheelhouse, so a fix
    that does not lift the setting fails as it does when pasted; the fix's own PIP_NO_INDEX=0
    lifts it."""
    python = venv(tmp_path / "env")
    plain = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    plain["PIP_CONFIG_FILE"] = os.devnull
    part = claims_fixes.Part(
        "pip",
        [str(python), "-m", "pip", "install", "demo"],
        subcommand="install",
        python=str(python),
    )
    uses = claims_fixes._pip_options(part, plain, tmp_path)
    assert uses is not None
    assert not uses.no_index
    assert claims_fixes._pip_options(part, {**plain, "PIP_NO_INDEX": "1"}, tmp_path) == (
        claims_fixes.PipOptions(True, ())
    )
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nno-index = true\nfind-links = /srv/wheels\n")
    off = claims_fixes._pip_options(part, {**plain, "PIP_CONFIG_FILE": str(conf)}, tmp_path)
    assert off == claims_fixes.PipOptions(True, ("/srv/wheels",))
    lifted = {**plain, "PIP_CONFIG_FILE": str(conf), "PIP_NO_INDEX": "0"}
    assert claims_fixes._pip_options(part, lifted, tmp_path) == claims_fixes.PipOptions(
        False, ("/srv/wheels",)
    )

    built = built_for(tmp_path, python)
    built.wheelhouse = tmp_path / "wheels"
    built.dry_wheels = recipes.Wheelhouse(tmp_path / "wheels-dry", {})
    no_index = {**plain, "PIP_NO_INDEX": "1"}
    assert claims_fixes._dry_wheels(part, no_index, off, built, str(python)) == no_index
    given = claims_fixes._dry_wheels(
        part, lifted, claims_fixes.PipOptions(False, ("/srv/wheels",)), built, ""
    )
    assert given["PIP_FIND_LINKS"].split() == [
        "/srv/wheels",
        str(tmp_path / "wheels"),
        str(tmp_path / "wheels-dry"),
    ]


def test_a_step_whose_program_is_missing_is_a_failed_step_not_a_crash(tmp_path: Path) -> None:
    """An interpreter an earlier step failed to make (a copy cut short by a full disk) is
    recorded as that step failing with the shell's 127, so the run (or the replay) goes on."""
    missing = tmp_path / "env" / "bin" / "python"
    result = recipes._execute([str(missing), "-m", "pip", "list"], dict(os.environ), tmp_path)
    assert result.returncode == 127
    assert str(missing) in result.output_tail
    assert "No such file" in result.output_tail


def test_a_harness_failure_in_one_environment_does_not_end_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One environment whose check raises (the harness's own failure, e.g. a copy cut short by a
    full disk) is named as not measured; the others still run and the report is printed."""
    seen: list[int] = []

    def broken(index: int, *args: object, **kwargs: object) -> claims.EnvResult:
        seen.append(index)
        raise RuntimeError(f"harness broke on {index}")

    monkeypatch.setattr(claims, "check_environment", broken)
    code = claims.main(
        ["--seed", "8", "--count", "2", "--no-fixes", "--gpucheck-python", GPUCHECK,
         "--workdir", str(tmp_path / "w"), "--json", str(tmp_path / "run.json")]
    )  # fmt: skip
    assert code == 0
    assert sorted(seen) == [0, 1]
    printed = capsys.readouterr()
    assert "env    0 not measured: RuntimeError: harness broke on 0" in printed.err
    assert "not measured (the harness failed, see above; --resume builds them again): [0, 1]" in (
        printed.out
    )


@pytest.mark.slow
def test_a_fix_that_makes_a_fresh_environment_is_run_on_the_copy_and_judged_there(
    tmp_path: Path,
) -> None:
    """``python -m venv ~/.venvs/x && ~/.venvs/x/bin/python -m pip install demo``: the oracle
    makes the environment in the copy's $HOME (never the user's), installs there from the
    wheelhouse, and judges the fix by the new environment: it works where demo is there; where
    the user's PIP_TARGET sends the install elsewhere, it fails (the new environment lacks it),
    and the same fix with ``PIP_TARGET=`` before the install works; a venv that cannot be made
    fails."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(wheels, "demo", "1.0", {"demo/__init__.py": ""})
    w = tmp_path / "w"
    w.mkdir()
    user = venv(w / "env")
    fresh = "~/.venvs/tensorflow"
    install = f"{fresh}/bin/python -m pip install demo==1.0"
    line = f"{base_python()} -m venv {fresh} && {{}}  # then run your code with {fresh}/bin/python"

    def judged(fix: str, **variables: str) -> claims_fixes.FixResult:
        built = built_for(w, user, **variables)
        built.wheelhouse = wheels
        # the user's environment has no TensorFlow, and doctor says so before the fix too
        report = {
            "first_fix": {"cause": "demo_cause", "check": "demo", "fix": fix},
            "findings": [{"check": "tf_install", "status": "fail", "cause": "tf_not_installed"}],
        }
        return claims_fixes.check_fix(built, report, GPUCHECK, no_tf=True, activated=False)

    result = judged(line.format(install))
    assert (result.status, result.why) == ("works", "")
    assert not (w / "home" / ".venvs").exists()  # made in the copy only

    elsewhere = tmp_path / "elsewhere"
    result = judged(line.format(install), PIP_TARGET=str(elsewhere))
    assert (result.status, result.why) == ("fails", "the new environment lacks demo")
    result = judged(line.format(f"PIP_TARGET= {install}"), PIP_TARGET=str(elsewhere))
    assert (result.status, result.why) == ("works", "")

    (w / "home" / ".venvs").write_text("a file where the folder would go\n")
    result = judged(line.format(install))
    assert result.status == "fails"
    assert result.why.startswith("makes no environment: exits 1")


@pytest.mark.slow
def test_what_a_fix_says_a_package_declares_is_read_from_that_package(tmp_path: Path) -> None:
    """A fix's comment "what TensorFlow 2.15.1 declares" or "jax 0.6.2 requires ..." is a
    statement: the oracle reads that distribution's own metadata in the target. 2.15.0's
    ``ml-dtypes~=0.2.0`` said of 2.15.1 (which declares ``~=0.3.1``) is false."""
    from tests.probes.test_user_import import METADATA, install_fake
    from tests.test_target import site_packages

    w = tmp_path / "w"
    w.mkdir()
    python = venv(w / "env")
    site = site_packages(python)
    for name, version in (("tensorflow", "2.15.1"), ("jax", "0.6.2")):
        install_fake(site, name, version, (METADATA / f"{name}-{version}.METADATA").read_text())
    oracle = claims_oracle.Oracle(built_for(w, python), tmp_path / "scratch", recipes.CACHE / "bin")
    fixes = (
        'pip install "ml-dtypes~=0.2.0"  # what TensorFlow 2.15.1 declares',
        'pip install "ml-dtypes~=0.3.1"  # what TensorFlow 2.15.1 declares',
        'pip install "ml_dtypes>=0.5.0"  # jax 0.6.2 requires ml_dtypes>=0.5.0',
        'pip install "ml_dtypes>=0.5.0"  # jax 0.7.0 requires ml_dtypes>=0.5.0',
    )
    verdicts = []
    for fix in fixes:
        (claim,) = claims_statements.declared_claims(fix)
        verdicts.append(claims_oracle._judge_declared(claim, oracle))
    assert verdicts == [
        ("false", "tensorflow 2.15.1: ml-dtypes (~=0.3.1)"),
        ("true", "tensorflow 2.15.1: ml-dtypes (~=0.3.1)"),
        ("true", "jax 0.6.2: ml_dtypes>=0.5.0"),
        ("false", "installed: jax 0.6.2"),
    ]


@pytest.mark.slow
def test_a_fix_that_brings_a_broken_requirement_does_not_work(tmp_path: Path) -> None:
    """The fix's own cause goes away, but what it installed breaks a requirement TensorFlow
    declares (NumPy 2 under a TensorFlow that declares numpy<2): doctor's metadata and installer
    checks show it afterwards and not before, so the fix brought it."""
    from tests.probes.test_user_import import install_fake
    from tests.test_target import site_packages

    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(wheels, "numpy", "2.1.0", {"numpy/__init__.py": ""})
    make_wheel(wheels, "numpy", "1.26.4", {"numpy/__init__.py": ""})
    w = tmp_path / "w"
    w.mkdir()
    python = venv(w / "env")
    site = site_packages(python)
    install_fake(site, "tensorflow", "2.15.1", "Metadata-Version: 2.1\nName: tensorflow\n"
                 "Version: 2.15.1\nRequires-Dist: numpy (<2.0.0,>=1.23.5)")  # fmt: skip
    install_fake(site, "numpy", "1.26.4")
    built = built_for(w, python)
    built.wheelhouse = wheels

    def judged(version: str) -> claims_fixes.FixResult:
        fix = f"{python} -m pip install numpy=={version}"
        report = {"first_fix": {"cause": "demo_cause", "check": "demo", "fix": fix}}
        return claims_fixes.check_fix(built, report, GPUCHECK, no_tf=True, activated=False)

    brings = judged("2.1.0")
    assert (brings.status, brings.why) == ("fails", "it brings numpy_incompatible")
    assert judged("1.26.4").status == "works"

    # where the oracle's own experiment (its pip check) finds the cause before the fix, it was
    # there already: doctor naming one finding by another range's cause does not make the fix
    # bring it
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-index", "--find-links", wheels,
         "numpy==2.1.0"],
        check=True,
    )  # fmt: skip
    oracle = claims_oracle.Oracle(built, tmp_path / "scratch", recipes.CACHE / "bin")
    assert "numpy_incompatible" in claims_oracle.oracle_causes(oracle)
    fix = f"{python} -m pip install numpy==2.1.0"
    report = {"first_fix": {"cause": "demo_cause", "check": "demo", "fix": fix}}
    there = claims_fixes.check_fix(
        built, report, GPUCHECK, no_tf=True, activated=False, oracle=oracle
    )
    assert (there.status, there.why) == ("works", "")


@pytest.mark.slow
def test_the_size_of_a_fix_is_judged_against_the_oracles_own_smallest_change(
    tmp_path: Path,
) -> None:
    """NumPy upgraded past what TensorFlow 2.15.1 declares: putting it back changes one
    distribution (the oracle installs every unmet requirement as declared, into a copy), so a
    fix that moves TensorFlow to a release taking that NumPy, and Keras 2 to 3 with it, is
    larger; lowering the NumPy the user chose is no loss where it breaks a declared bound."""
    from tests.probes.test_user_import import install_fake
    from tests.test_target import site_packages

    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for version in ("2.1.0", "1.26.4"):
        make_wheel(wheels, "numpy", version, {"numpy/__init__.py": ""})
    make_wheel(wheels, "keras", "3.5.0", {"keras/__init__.py": ""})
    make_wheel(
        wheels,
        "tensorflow",
        "2.20.0",
        {"tensorflow/__init__.py": ""},
        requires=("numpy>=1.26.0", "keras>=3.5.0"),
    )
    w = tmp_path / "w"
    w.mkdir()
    python = venv(w / "env")
    site = site_packages(python)
    install_fake(site, "tensorflow", "2.15.1", "Metadata-Version: 2.1\nName: tensorflow\n"
                 "Version: 2.15.1\nRequires-Dist: numpy (<2.0.0,>=1.23.5)\n"
                 "Requires-Dist: keras (<2.16,>=2.15.0)")  # fmt: skip
    install_fake(site, "keras", "2.15.0")
    install_fake(site, "numpy", "2.1.0")
    built = built_for(w, python)
    built.wheelhouse = wheels
    built.explicit = {"numpy": "2.1.0"}  # the user asked for it by name
    oracle = claims_oracle.Oracle(built, tmp_path / "scratch", recipes.CACHE / "bin")

    def judged(fix: str) -> claims_fixes.FixResult:
        report = {"first_fix": {"cause": "numpy_incompatible", "check": "demo", "fix": fix}}
        return claims_fixes.check_fix(
            built, report, GPUCHECK, no_tf=True, activated=False, oracle=oracle
        )

    back = judged(f'{python} -m pip install "numpy<2.0.0,>=1.23.5"')
    assert (back.status, back.size) == ("works", "no_larger")
    assert back.changed == ["numpy 2.1.0 -> 1.26.4"]
    moved = judged(f'{python} -m pip install "tensorflow==2.20.0" "numpy==2.1.0"')
    assert moved.status == "works"
    assert moved.changed == ["keras 2.15.0 -> 3.5.0", "tensorflow 2.15.1 -> 2.20.0"]
    assert moved.size.startswith("larger: the fix changes 2 (1 across a major release)")


@pytest.mark.slow
def test_the_oracles_smallest_change_meets_a_missing_legacy_keras_too(tmp_path: Path) -> None:
    """benchmarks/runs/seed135.json env 51: TF_USE_LEGACY_KERAS=1 over TensorFlow 2.21 with no
    tf-keras, and pip check's h5py line. A change that meets the check alone leaves tf.keras
    without its tf-keras: the oracle's own change installs tf-keras too (the resolver picks the
    one the pinned TensorFlow accepts), so a fix that installs it is not larger for that."""
    from tests.probes.test_user_import import install_fake
    from tests.test_target import site_packages

    wheels = tmp_path / "wheels"
    wheels.mkdir()
    make_wheel(wheels, "h5py", "3.14.0", {"h5py/__init__.py": ""})
    make_wheel(wheels, "tf-keras", "2.21.0", {"tf_keras/__init__.py": ""},
               requires=("tensorflow<2.22,>=2.21",))  # fmt: skip
    w = tmp_path / "w"
    w.mkdir()
    python = venv(w / "env")
    site = site_packages(python)
    install_fake(site, "tensorflow", "2.21.0", "Metadata-Version: 2.1\nName: tensorflow\n"
                 "Version: 2.21.0\nRequires-Dist: h5py (<3.15.0,>=3.11.0)")  # fmt: skip
    install_fake(site, "h5py", "3.16.0")
    built = built_for(w, python, TF_USE_LEGACY_KERAS="1")
    built.wheelhouse = wheels
    oracle = claims_oracle.Oracle(built, tmp_path / "scratch", recipes.CACHE / "bin")
    assert claims_oracle.oracle_causes(oracle)["keras_mismatch"] == (
        claims_oracle.LEGACY_KERAS_MISSING
    )
    problems, _tool = oracle.pip_check()
    smallest, words = claims_fixes._smallest(built, oracle, problems)
    assert smallest == ["h5py 3.16.0 -> 3.14.0", "tf-keras (new) -> 2.21.0"]
    assert words.endswith(" tf-keras")


@pytest.mark.slow
def test_a_missing_requirement_is_sized_by_the_range_its_declarer_gives(tmp_path: Path) -> None:
    """pip check names a missing requirement without its range ("tensorflow 2.15.1 requires
    numpy, which is not installed"): the oracle's own change names the declaring distribution at
    the version it has beside it, so the installer's resolver takes NumPy from TensorFlow's own
    metadata (1.26.4, not the newest 2.1.0 the check would then refuse), and a fix installing
    that range is no larger."""
    from tests.probes.test_user_import import install_fake
    from tests.test_target import site_packages

    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for version in ("2.1.0", "1.26.4"):
        make_wheel(wheels, "numpy", version, {"numpy/__init__.py": ""})
    w = tmp_path / "w"
    w.mkdir()
    python = venv(w / "env")
    install_fake(site_packages(python), "tensorflow", "2.15.1", "Metadata-Version: 2.1\n"
                 "Name: tensorflow\nVersion: 2.15.1\nRequires-Dist: numpy (<2.0.0,>=1.23.5)")  # fmt: skip
    built = built_for(w, python)
    built.wheelhouse = wheels
    oracle = claims_oracle.Oracle(built, tmp_path / "scratch", recipes.CACHE / "bin")
    problems, _tool = oracle.pip_check()
    assert [(p.name, p.requirement) for p in problems] == [("numpy", None)]
    # NumPy not installed at all is a missing requirement, not an incompatible NumPy
    # (benchmarks/runs/seed135.json env 33; causes.yaml's meaning of each)
    causes = claims_oracle.oracle_causes(oracle)
    assert "tf_requirement_unmet" in causes
    assert "numpy_incompatible" not in causes
    smallest, words = claims_fixes._smallest(built, oracle, problems)
    assert smallest == ["numpy (new) -> 1.26.4"]
    assert words == "installing numpy tensorflow==2.15.1"
    report = {
        "first_fix": {
            "cause": "tf_requirement_unmet",
            "check": "demo",
            "fix": f'{python} -m pip install "numpy<2.0.0,>=1.23.5"',
        }
    }
    fixed = claims_fixes.check_fix(
        built, report, GPUCHECK, no_tf=True, activated=False, oracle=oracle
    )
    assert (fixed.status, fixed.changed, fixed.size) == (
        "works",
        ["numpy (new) -> 1.26.4"],
        "no_larger",
    )


def test_the_judged_size_is_the_one_reported() -> None:
    """An environment's size verdict is the first fix's where judged, else the requirement
    fix's; one the oracle could not judge is reported only where neither was judged."""
    first = claims_fixes.FixResult("works", "x", "keras_mismatch", "", size="unjudged: why")
    later = claims_fixes.FixResult("works", "y", "numpy_incompatible", "", size="no_larger")
    env = claims.EnvResult.__new__(claims.EnvResult)
    env.fix, env.requirement_fix = first, later
    assert env.sized() is later
    env.requirement_fix = None
    assert env.sized() is first
    env.fix = claims_fixes.FixResult("none", None, None, "")
    assert env.sized() is None


def test_a_dry_run_s_unmet_range_is_read_from_what_it_would_install() -> None:
    after = {"numpy": "1.26.4", "Keras": "3.5.0"}
    assert claims_fixes._meets(after, "numpy", "numpy<2.0.0,>=1.23.5")
    assert not claims_fixes._meets(after, "keras", "keras<2.16,>=2.15.0")
    assert not claims_fixes._meets(after, "protobuf", "protobuf<5")  # not there at all
    assert claims_fixes._meets(
        {"tf-nightly": "2.23.0.dev20261026"}, "tf_nightly", "tf-nightly>=2.22"
    )


@pytest.mark.slow
def test_here_judges_what_doctor_says_of_an_existing_environment(tmp_path: Path) -> None:
    """``--here``: doctor run on an interpreter that exists, each statement judged where it
    stands, nothing built or run as a fix (how the real H200's statements were checked)."""
    from tests.test_target import make_venv

    python = make_venv(tmp_path / "venv")
    result = claims.check_here(str(python), tmp_path, sys.executable, tmp_path / "scratch",
                               no_tf=True)  # fmt: skip
    assert result.doctor_error == "", result.doctor_error
    judged = [s for s in result.statements if s.verdict in ("true", "false")]
    assert judged, result.statements
    assert all(s.verdict == "true" for s in judged), [(s.said, s.truth) for s in judged]
    assert result.fix.status == "not_checked"
    # the first cause of an empty venv: the install, or, in a container without a GPU device (as
    # a test machine may be), the container before it
    assert result.fix.cause in ("tf_not_installed", "container_no_gpu")
    assert result.fix.fix  # doctor's first fix, as printed, kept beside the verdicts


def test_a_dry_run_s_would_install_is_the_size_of_the_change() -> None:
    # pip 23.2.1's lines, on this machine (2026-12-07), in a venv of TensorFlow 2.15.1 with
    # Keras 3.5.0 over it: `pip install --dry-run "keras~=2.15.0"`, then `pip install --dry-run
    # "tensorflow[and-cuda]==2.16.*" "keras==3.5.0"`
    would = claims_fixes._would_install("Would install keras-2.15.0\n")
    assert would == {"keras": "2.15.0"}
    before = {"keras": "3.5.0", "tensorflow": "2.15.1", "Pygments": "2.17.2"}
    back = claims_fixes._changes(before, claims_fixes._installed_after(before, would))
    assert back == ["keras 3.5.0 -> 2.15.0"]
    assert claims_fixes._majors(back) == back  # Keras 3 to 2: across a major release
    line = (
        "Would install Pygments-2.21.0 markdown-it-py-4.3.0 mdurl-0.1.2 namex-0.1.0 "
        "nvidia-cublas-cu12-12.3.4.1 nvidia-cuda-cupti-cu12-12.3.101 nvidia-cuda-nvcc-cu12-12.3.107 "
        "nvidia-cuda-nvrtc-cu12-12.3.107 nvidia-cuda-runtime-cu12-12.3.101 "
        "nvidia-cudnn-cu12-8.9.7.29 nvidia-cufft-cu12-11.0.12.1 nvidia-curand-cu12-10.3.4.107 "
        "nvidia-cusolver-cu12-11.5.4.101 nvidia-cusparse-cu12-12.2.0.103 "
        "nvidia-nccl-cu12-2.19.3 nvidia-nvjitlink-cu12-12.3.101 optree-0.20.0 rich-15.0.0 "
        "tensorboard-2.16.2 tensorflow-2.16.2\n"
    )
    up = claims_fixes._would_install(line)
    assert len(up) == 20
    assert up["nvidia-cudnn-cu12"] == "8.9.7.29"
    forward = claims_fixes._changes(before, claims_fixes._installed_after(before, up))
    assert "Pygments 2.17.2 -> 2.21.0" in forward  # the installed spelling kept
    assert "tensorflow 2.15.1 -> 2.16.2" in forward
    assert claims_fixes._majors(forward) == []  # no major release crossed


def test_a_full_disk_is_the_harness_failing_not_the_installer_refusing() -> None:
    full = "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device"
    assert claims_fixes._refused("installing x", full).startswith("unjudged: the harness failed")
    pep668 = "error: externally-managed-environment"
    assert claims_fixes._refused("installing x", pep668) == (
        "no_smaller: the installer refuses installing x: error: externally-managed-environment"
    )
