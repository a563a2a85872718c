"""The smallest change: of the installs that meet an unmet requirement, the first fix changes the
fewest distributions and crosses no major release of TensorFlow or Keras, and names the other.

Judged on real recordings (tests/data/snapshots/README.md says how each environment was made).
"""

from __future__ import annotations

import dataclasses

from packaging.version import Version

from tests.conftest import scenario
from tests.installer.shellwords import read_command
from tf_gpucheck.checks import Status, releases, run_checks, stale
from tf_gpucheck.checks.layers.libraries import cudnn
from tf_gpucheck.checks.layers.requirements import tf_requirements
from tf_gpucheck.checks.layers.runtime import keras
from tf_gpucheck.fix.plan import read_step
from tf_gpucheck.installer import intent, writer
from tf_gpucheck.installer.intent import Install
from tf_gpucheck.matrix import load_matrix
from tf_gpucheck.probes.installer import with_others
from tf_gpucheck.probes.interpreter import InterpreterFacts, RawDistribution
from tf_gpucheck.snapshot import Declared, UnmetRequirement


def test_a_companion_upgraded_past_tensorflows_pin_is_put_back_not_tensorflow_moved() -> None:
    """TensorFlow 2.15.1, then ``pip install -U numpy`` (NumPy 2.4.6): one command puts NumPy
    back in 2.15.1's range; moving TensorFlow to 2.20 would also take Keras 2 to Keras 3."""
    snapshot = scenario("real-tf-2.15-numpy-upgraded-py3.11")
    finding = tf_requirements(snapshot, load_matrix())
    assert finding.cause == "numpy_incompatible"
    assert finding.fix == 'pip install "numpy<2.0.0,>=1.23.5"'
    # the other way is named, and prints if the installer refuses the first
    assert finding.fallbacks == ('pip install "tensorflow[and-cuda]==2.20.*" "numpy==2.4.6"',)
    assert "tensorflow and Keras stay" in finding.details
    assert "takes Keras 2.15.0 to Keras 3" in finding.details
    report = run_checks(snapshot, load_matrix())
    assert report.first_fix is not None
    assert report.first_fix.cause == "numpy_incompatible"
    assert "numpy<2.0.0,>=1.23.5" in (report.first_fix.fix or "")


def test_where_another_package_holds_it_past_the_range_that_package_goes_back_with_it() -> None:
    """TensorFlow 2.15.1, then ``pip install "jax[cpu]==0.7.0"`` (NumPy 2.4.6, ml-dtypes 0.7.0):
    jax and ml-dtypes declare what 2.15.1's ranges exclude. The newer TensorFlow that keeps them
    takes Keras 2 to 3, so the fix takes them back with the ranges, TensorFlow pinned where it
    is. Run in that environment (tensorflow==2.15.1, then jax[cpu]==0.7.0, Python 3.11), this
    very install took jax and jaxlib to 0.4.34, ml-dtypes to 0.3.2 and NumPy to 1.26.4; pip check
    then found nothing broken and both TensorFlow 2.15.1 and jax imported and computed."""
    snapshot = scenario("real-tf-2.15-jax-0.7-py3.11")
    finding = tf_requirements(snapshot, load_matrix())
    assert finding.fix == (
        'pip install "numpy<2.0.0,>=1.23.5" "ml-dtypes~=0.3.1" "tensorflow==2.15.1" jax jaxlib'
    )
    assert "ml-dtypes 0.7.0 declares numpy>=2.0.0" in finding.details
    assert "jax 0.7.0 declares ml_dtypes>=0.5.0" in finding.details
    assert "takes Keras 2.15.0 to Keras 3" in finding.details
    # the other way keeps every package the user installed, and prints if the first is refused
    assert finding.fallbacks == (
        'pip install "tensorflow[and-cuda]==2.20.*" "numpy==2.4.6" "ml-dtypes==0.7.0"',
    )


def test_going_back_with_the_holder_comes_before_a_newer_tensorflow_in_the_keras_major() -> None:
    """Going back with what holds the package changes it and its holders; a newer TensorFlow,
    even one in the installed Keras's major release, changes TensorFlow, Keras, TensorBoard and
    more. TensorFlow 2.12.1 declares ``numpy<=1.24.3,>=1.22``; NumPy 1.26.4 is held by a jax that
    declares ``numpy>=1.25``; TensorFlow 2.14's METADATA takes NumPy 1.26.4 and Keras 2.14: it is
    the fallback."""
    snapshot = scenario("real-tf-2.15-jax-0.7-py3.11")  # Keras 2.15.0, Python 3.11
    unmet = UnmetRequirement(
        line="tensorflow 2.12.1 has requirement numpy<=1.24.3,>=1.22, but you have numpy 1.26.4.",
        of="tensorflow",
        of_version="2.12.1",
        name="numpy",
        requirement="numpy<=1.24.3,>=1.22",
        have="1.26.4",
        others=(Declared("jax", "0.4.30", "numpy>=1.25"),),
    )
    plan = stale.remedy(unmet, snapshot, load_matrix())
    assert plan.install == ("numpy<=1.24.3,>=1.22", "jax", "tensorflow==2.12.1")
    assert "jax 0.4.30 declares numpy>=1.25" in plan.changes
    (fallback,) = plan.fallbacks
    assert fallback.requirements[0].startswith("tensorflow[and-cuda]==2.1")
    assert "numpy==1.26.4" in fallback.requirements
    # a holder that is Keras itself is not taken back: its major release may change
    keras_holds = dataclasses.replace(unmet, others=(Declared("keras", "3.5.0", "numpy>=1.25"),))
    plan = stale.remedy(keras_holds, snapshot, load_matrix())
    assert plan.install[0].startswith("tensorflow[and-cuda]==2.1")


def test_where_one_plan_moves_tensorflow_the_old_releases_ranges_give_way() -> None:
    """benchmarks/runs/seed136.json env 16: tensorflow-cpu 2.17.1 beside a TensorFlow 2.21 that
    declares protobuf and ml-dtypes ranges past 2.17.1's, and NumPy uninstalled. Keeping
    protobuf 7.36.2 moves tensorflow-cpu to 2.20; NumPy missing was then installed as 2.17.1
    declares (``numpy<2.0.0``), which the installer refused beside ml-dtypes 0.7.0. Where
    TensorFlow moves, NumPy is named bare: pip's dry run of the merged install in a fresh
    Python 3.11 venv would install tensorflow-cpu 2.20.0, protobuf 7.36.2, ml-dtypes 0.7.0 and
    NumPy 2.4.6."""
    snapshot = scenario("real-tf-2.15-jax-0.7-py3.11")  # Python 3.11
    protobuf = "protobuf!=4.21.0,!=4.21.1,!=4.21.2,!=4.21.3,!=4.21.4,!=4.21.5,<5.0.0dev,>=3.20.3"
    lines = (
        UnmetRequirement(
            line=f"tensorflow-cpu 2.17.1 has requirement {protobuf}, but you have protobuf 7.36.2.",
            of="tensorflow-cpu",
            of_version="2.17.1",
            name="protobuf",
            requirement=protobuf,
            have="7.36.2",
            others=(Declared("tensorflow", "2.21.0", "protobuf<8.0.0,>=6.31.1"),),
        ),
        UnmetRequirement(
            line=(
                "tensorflow-cpu 2.17.1 has requirement ml-dtypes<0.5.0,>=0.3.1, but you have "
                "ml-dtypes 0.7.0."
            ),
            of="tensorflow-cpu",
            of_version="2.17.1",
            name="ml-dtypes",
            requirement="ml-dtypes<0.5.0,>=0.3.1",
            have="0.7.0",
            others=(Declared("tensorflow", "2.21.0", "ml-dtypes<1.0.0,>=0.5.1"),),
        ),
        UnmetRequirement(
            line="tensorflow-cpu 2.17.1 requires numpy, which is not installed.",
            of="tensorflow-cpu",
            of_version="2.17.1",
            name="numpy",
            requirement="numpy<2.0.0,>=1.23.5",
            have=None,
        ),
    )
    plans = [stale.remedy(u, snapshot, load_matrix()) for u in lines]
    assert plans[2].install == ("numpy<2.0.0,>=1.23.5",)  # alone, what 2.17.1 declares
    merged = stale.together(plans)
    assert merged.install == (
        "tensorflow-cpu==2.20.*",
        "protobuf==7.36.2",
        "ml-dtypes==0.7.0",
        "numpy",
    )
    assert merged.changes.endswith("; numpy as the new release declares it")
    # nothing moves TensorFlow: the range stays what the installed release declares
    assert stale.together([plans[2]]).install == ("numpy<2.0.0,>=1.23.5",)


def _facts(*dists: RawDistribution) -> InterpreterFacts:
    return InterpreterFacts(
        python_version="3.11.7",
        python_executable="/env/bin/python",
        distributions=dists,
        markers={"python_version": "3.11", "sys_platform": "linux", "platform_system": "Linux"},
    )


def test_what_others_declare_is_read_with_their_markers_for_the_target() -> None:
    unmet = UnmetRequirement(
        line="tensorflow 2.15.1 has requirement numpy<2.0.0,>=1.23.5, but you have numpy 2.4.6.",
        of="tensorflow",
        of_version="2.15.1",
        name="numpy",
        requirement="numpy<2.0.0,>=1.23.5",
        have="2.4.6",
    )
    facts = _facts(
        RawDistribution("tensorflow", "2.15.1", ("numpy<2.0.0,>=1.23.5",), None),
        RawDistribution(
            "jax",
            "0.7.0",
            ('numpy>=2.0; python_version >= "3.11"', 'numpy>=1.0; python_version < "3.11"'),
            None,
        ),
        RawDistribution("scipy", "1.16.0", ('numpy>=2; extra == "test"',), None),
        RawDistribution("numpy", "2.4.6", (), None),
    )
    (read,) = with_others((unmet,), facts) or ()
    # the declaring package itself is not "another"; an extra's requirement does not hold
    assert read.others == (Declared("jax", "0.7.0", "numpy>=2.0"),)
    unread = _facts(RawDistribution("tensorflow", "2.15.1", None, None))
    assert with_others((unmet,), unread) == (unmet,)  # not read: not said to be none


def test_a_nightly_environment_is_judged_and_fixed_as_the_nightly_it_is() -> None:
    """``pip install tf-nightly`` (2.23.0.dev20261026 with keras-nightly 3.16.0.dev): Keras is
    the keras-nightly that owns the ``keras`` module; the CUDA the build needs comes from its own
    ``and-cuda`` extra (its build information names none); the fix keeps tf-nightly."""
    snapshot = scenario("real-tf-nightly-2.23-py3.11")
    assert snapshot.packages.keras_distribution == "keras-nightly"
    matrix = load_matrix()
    report = run_checks(snapshot, matrix)
    by_id = {f.check: f for f in report.findings}
    assert by_id["keras"].status.value == "ok"
    assert "keras-nightly" in by_id["keras"].summary
    assert by_id["tf_build"].summary == (
        "a CUDA build; its build information names no CUDA version, and its own and-cuda extra "
        "declares CUDA 12 and cuDNN 9 wheels"
    )
    libraries = by_id["cuda_libraries"]
    assert "libcudart.so.12 (what TensorFlow asks for)" in libraries.summary
    assert libraries.fix == (
        '/work/enight/bin/python -m pip install "tf-nightly[and-cuda]==2.23.0.dev20261026"'
    )
    # no fix anywhere installs the stable tensorflow or keras over the nightlies
    for finding in report.findings:
        assert '"tensorflow' not in (finding.fix or "")
        assert '"keras' not in (finding.fix or "")


def test_a_stable_companion_over_a_nightly_is_replaced_by_its_nightly_build() -> None:
    """benchmarks/runs/seed134.json env 0: tf-nightly 2.23.0.dev20261026, then tf-keras 2.15.1
    (``tensorflow<2.16,>=2.15``). PyPI's tf-keras has no 2.23 release (the fix ``tf-keras==2.23.*``
    was refused there); tf-keras-nightly is its build for tf-nightly (tensorflow/tensorboard
    #6684) and 2.23.0.dev2026102618 declares ``tf-nightly~=2.23.0.dev``. Run in a Python 3.11 venv
    with tf-nightly 2.23.0.dev20261026 and tf-keras 2.15.1 (``--no-deps``), this fix installed
    tf-keras-nightly 2.23.0.dev2026102618, pip check found nothing broken, and tf_keras imported
    beside TensorFlow."""
    unmet = UnmetRequirement(
        line=(
            "tf-keras 2.15.1 has requirement tensorflow<2.16,>=2.15, but you have tf-nightly "
            "2.23.0.dev20261026."
        ),
        of="tf-keras",
        of_version="2.15.1",
        name="tf-nightly",
        requirement="tensorflow<2.16,>=2.15",
        have="2.23.0.dev20261026",
    )
    snapshot = scenario("real-tf-nightly-2.23-py3.11")
    plan = stale.remedy(unmet, snapshot, load_matrix(), declared_as="tensorflow")
    assert plan.fix.text() == (
        'pip uninstall -y tf-keras && pip install "tf-keras-nightly>=2.23.0.dev,<2.24"'
    )
    assert "tf-nightly stays" in plan.changes
    # a stable TensorFlow keeps the companion's own release of its series
    stable = dataclasses.replace(unmet, name="tensorflow", have="2.17.1")
    assert (
        stale.remedy(stable, snapshot, load_matrix())
        .fix.text()
        .startswith('pip install "tf-keras==2.17.*"')
    )


def test_keras_2_written_over_a_nightlys_keras_goes_and_the_nightlys_is_put_back() -> None:
    """benchmarks/runs/seed134.json env 41: tf-nightly (with keras-nightly 3.16.0.dev), then
    ``pip install --no-deps keras==2.15.0``, which writes over the ``keras`` module. Installing
    what tf-nightly declares (``keras-nightly>=3.12.0.dev``) is "already satisfied" and leaves
    Keras 2's files: the fix uninstalls keras and puts keras-nightly's files back. Run in that
    environment (Python 3.11), ``import keras`` failed before it (``cannot import name
    'KerasTensor' from partially initialized module 'keras.src.backend'``) and gave
    3.16.0.dev2026102704 after it, pip check finding nothing broken."""
    base = scenario("real-tf-nightly-2.23-py3.11")
    snapshot = dataclasses.replace(
        base,
        packages=dataclasses.replace(base.packages, keras="2.15.0", keras_distribution=None),
    )
    finding = keras(snapshot, load_matrix())
    assert finding.cause == "keras_mismatch"
    assert finding.fix == (
        "pip uninstall -y keras && pip install --force-reinstall --no-deps "
        '"keras-nightly==3.16.0.dev2026102704"'
    )
    # Keras 2 alone (no keras-nightly installed): what the nightly declares is installed
    alone = dataclasses.replace(
        snapshot,
        packages=dataclasses.replace(
            snapshot.packages,
            requirements=tuple(
                dataclasses.replace(r, installed=None) if "keras" in r.requirement else r
                for r in snapshot.packages.requirements or ()
            ),
        ),
    )
    assert keras(alone, load_matrix()).fix == (
        'pip install "keras-nightly>=3.12.0.dev"  # what TensorFlow 2.23.0-dev20261026 declares'
    )


def test_keras_missing_from_a_nightly_is_what_the_nightly_declares() -> None:
    """The same recording with keras-nightly uninstalled (its distribution and the module's
    owner gone): the fix is tf-nightly's own requirement, not the stable ``keras``."""
    snapshot = scenario("real-tf-nightly-2.23-py3.11")
    packages = dataclasses.replace(snapshot.packages, keras=None, keras_distribution=None)
    finding = keras(dataclasses.replace(snapshot, packages=packages), load_matrix())
    assert finding.cause == "keras_mismatch"
    assert finding.fix is not None
    assert finding.fix.startswith('pip install "keras-nightly>=3.12.0.dev"')


def test_a_target_install_on_pythonpath_is_a_layout_to_work_with() -> None:
    """``pip install --target /work/tgt tensorflow==2.21.0`` into a folder on ``PYTHONPATH``, the
    only TensorFlow this Python has, importing: not a fault (the machine's missing GPU comes
    first), and the CUDA wheels its and-cuda extra declares go into that folder, where its
    RUNPATH looks (run for real on this machine: afterwards every library TensorFlow asks for
    loads)."""
    snapshot = scenario("real-tf-2.21-target-on-pythonpath-py3.11")
    report = run_checks(snapshot, load_matrix())
    assert report.first_fix is not None
    assert report.first_fix.cause == "container_no_gpu"
    by_id = {f.check: f for f in report.findings}
    assert by_id["user_import"].status.value == "info"
    assert "outside" in by_id["user_import"].summary
    fix = by_id["cuda_libraries"].fix or ""
    assert fix.startswith("/work/etgt/bin/python -m pip install --target /work/tgt ")
    assert '"nvidia-cudnn-cu12<10.0,>=9.3.0.75"' in fix
    assert "tensorflow" not in fix


def test_the_same_folder_is_a_fault_where_the_import_fails() -> None:
    """Observed broken: the same recording with TensorFlow's import failing keeps
    ``pythonpath_foreign`` (the folder the user put there is what the import gets)."""
    snapshot = scenario("real-tf-2.21-target-on-pythonpath-py3.11")
    failed = dataclasses.replace(snapshot.tensorflow, error="ImportError: a test of the rule")
    report = run_checks(dataclasses.replace(snapshot, tensorflow=failed), load_matrix())
    causes = [f.cause for f in report.findings if f.check == "user_import"]
    assert causes == ["pythonpath_foreign"]


def test_an_install_into_the_users_folder_is_proven_and_left_to_the_user() -> None:
    """The installer's dry run answers for ``--target`` (doctor proves it); ``gpucheck fix``
    does not run it: the folder is not part of the environment it records and restores."""
    snapshot = scenario("real-tf-2.21-target-on-pythonpath-py3.11")
    plan = intent.install("nvidia-cuda-runtime-cu12<13.0", options=("--target", "/work/tgt"))
    made = writer.written(plan, snapshot)
    operations, _note, why = read_command(made.line)  # the line runs what the writer made
    assert why == made.why_not == ""
    assert operations == list(made.operations)
    assert operations[0].requirements == ("nvidia-cuda-runtime-cu12<13.0",)
    step = read_step(
        "cuda_libs_missing",
        Status.FAIL,
        "6 CUDA libraries missing",
        made.line,
        made=made,
    )
    assert step.operations == ()
    assert (
        step.why == "--target installs into a folder outside the environment gpucheck fix restores"
    )


def test_going_back_across_a_keras_major_is_not_the_smallest_change() -> None:
    """TensorFlow 2.15.1, then ``pip install -U keras`` (Keras 3.15.1): putting Keras back in
    2.15.1's range takes it from 3 to 2, another API; TensorFlow 2.16, which takes Keras 3, is
    the fix, in both findings that name the cause; going back is what prints if it is refused."""
    snapshot = scenario("real-tf-2.15-keras-3-upgraded-py3.11")
    report = run_checks(snapshot, load_matrix())
    fixes = {f.check: f for f in report.findings if f.cause == "keras_mismatch"}
    assert set(fixes) == {"tf_requirements", "keras"}
    for finding in fixes.values():
        assert finding.fix == (
            '/work/e215k/bin/python -m pip install "tensorflow[and-cuda]==2.16.*" "keras==3.15.1"'
        )
        assert finding.fallbacks == ('/work/e215k/bin/python -m pip install "keras<2.16,>=2.15.0"',)


def test_an_older_cudnn_ahead_on_ld_library_path_is_taken_out_not_reinstalled() -> None:
    """``tensorflow[and-cuda]==2.21.0`` (with ``jax[cuda12]``: cuDNN 9.28 from pip) and
    ``LD_LIBRARY_PATH`` naming a folder with cuDNN 9.1.0: the loader searches LD_LIBRARY_PATH
    before TensorFlow's RUNPATH and takes 9.1.0, older than the 9.3 TensorFlow was built with.
    Reinstalling the and-cuda wheels changes nothing (the installer: "nothing to change"); the
    folder out of LD_LIBRARY_PATH is the fix (run on this machine: cudnn is then ok)."""
    snapshot = scenario("real-tf-2.21-old-cudnn-on-ld-library-path-py3.11")
    finding = cudnn(snapshot, load_matrix())
    assert finding.cause == "cudnn_version_mismatch"
    assert finding.fix is not None
    assert finding.fix.startswith(
        "unset LD_LIBRARY_PATH  # without /work/oldcudnn/nvidia/cudnn/lib: its libcudnn.so.9 "
        "comes before TensorFlow's own (9.28.0, "
    )


def test_plans_merge_as_values_and_tensorflow_moves_once() -> None:
    """One install for the unmet requirements of one package, merged by requirement (never by
    reading command text); where one plan moves TensorFlow, another plan's "TensorFlow and Keras
    stay" is not said: its package's change is."""
    back = stale.plain(
        "numpy<2.0.0,>=1.23.5",
        changes="put numpy back in tensorflow 2.15.1's range (tensorflow and Keras stay; ...)",
        gist="put numpy back in tensorflow 2.15.1's range",
    )
    mover = stale.plain(
        "tensorflow[and-cuda]==2.19.*",
        "ml-dtypes==0.7.0",
        changes="upgrade tensorflow to 2.19.0 (ml-dtypes 0.7.0 stays: jax 0.7.0 declares ...)",
        kept="ml-dtypes 0.7.0 stays: jax 0.7.0 declares ...",
    )
    merged = stale.together([back, mover])
    assert merged.install == (
        "numpy<2.0.0,>=1.23.5",
        "tensorflow[and-cuda]==2.19.*",
        "ml-dtypes==0.7.0",
    )
    assert merged.fix.steps == (
        Install(("numpy<2.0.0,>=1.23.5", "tensorflow[and-cuda]==2.19.*", "ml-dtypes==0.7.0")),
    )
    assert merged.fix.text() == (
        'pip install "numpy<2.0.0,>=1.23.5" "tensorflow[and-cuda]==2.19.*" "ml-dtypes==0.7.0"'
    )
    assert merged.changes == (
        "put numpy back in tensorflow 2.15.1's range; "
        "upgrade tensorflow to 2.19.0 (ml-dtypes 0.7.0 stays: jax 0.7.0 declares ...)"
    )
    # a requirement on a package already in the install is not added twice
    again = stale.plain("numpy>=1.26", changes="change numpy")
    assert stale.together([back, again]).install == back.install


def test_a_change_that_breaks_another_packages_requirement_says_so() -> None:
    """protobuf 3.20.3 kept for another package that declares protobuf<=3.20.3, under
    TensorFlow 2.21.0 (its METADATA: protobuf<8.0.0,>=6.31.1): raising protobuf to what
    TensorFlow asks is the fix, and it says that the other package's requirement is then unmet."""
    snapshot = scenario("real-cpu-only-tf-2.21-no-driver")
    unmet = UnmetRequirement(
        line="tensorflow 2.21.0 has requirement protobuf<8.0.0,>=6.31.1, but you have protobuf 3.20.3.",
        of="tensorflow",
        of_version="2.21.0",
        name="protobuf",
        requirement="protobuf<8.0.0,>=6.31.1",
        have="3.20.3",
        others=(Declared("onnx", "1.12.0", "protobuf<=3.20.1,>=3.12.2"),),
    )
    plan = stale.remedy(unmet, snapshot, load_matrix())
    assert plan.install == ("protobuf<8.0.0,>=6.31.1",)
    assert plan.changes == (
        "change protobuf to what tensorflow asks (it leaves onnx 1.12.0's "
        "protobuf<=3.20.1,>=3.12.2 unmet: no version is in both)"
    )


def test_a_fix_that_unsets_pythonpath_repairs_the_pip_it_then_runs() -> None:
    """Real recording (README; the recipe of benchmarks/claims.py seed 25, env 45): a Python 3.13
    venv whose own pip 23.0.1 crashes on it, and another venv's site-packages on PYTHONPATH whose
    pip 24.2 answers in the user's setting. The first fix unsets PYTHONPATH, so the venv's own
    pip runs next: Python's ensurepip puts back the pip it ships first (tried here: pip 24.2,
    which answers)."""
    snapshot = scenario("real-pip-23.0-py3.13-pythonpath-brings-another-pip")
    assert snapshot.installer is not None
    assert snapshot.installer.crash() is None  # the pip PYTHONPATH brings answers
    assert "ImpImporter" in (snapshot.installer.own_crash or "")
    first = run_checks(snapshot, load_matrix()).first_fix
    assert first is not None
    assert first.cause == "pythonpath_foreign"
    fix = first.fix or ""
    assert fix.startswith("unset PYTHONPATH && ")
    assert fix.index("-m ensurepip --upgrade && ") < fix.index("-m pip install")


def test_a_cpu_build_in_a_target_folder_is_replaced_in_that_folder() -> None:
    """Real recording (README): `pip install --target /tmp/tgt tensorflow-cpu==2.21.0` into an
    empty venv's PYTHONPATH. pip uninstalls nothing in such a folder ("not installed": it is
    outside the environment; claims seed 25 envs 16, 88, 114: the fix left both builds), and
    --upgrade keeps another distribution's record: the record goes, the GPU build goes there.
    Run by hand on that folder: tensorflow-2.21.0.dist-info alone, the CPU-build finding gone."""
    snapshot = scenario("real-tensorflow-cpu-2.21-target-on-pythonpath-py3.11")
    report = run_checks(snapshot, load_matrix())
    found = next(f for f in report.findings if f.cause == "tf_cpu_only_build")
    fix = found.fix or ""
    assert fix.startswith("rm -rf /tmp/tgt/tensorflow_cpu-2.21.0.dist-info && ")
    assert 'pip install --target /tmp/tgt --upgrade "tensorflow[and-cuda]==2.21.*"' in fix
    assert "uninstall" not in fix


def test_no_tensorflow_built_against_numpy_1_is_the_release_that_keeps_numpy_2() -> None:
    """benchmarks/runs/seed134.json env 18: TensorFlow 2.12.1, then jax 0.6.2 with NumPy 2.2.6.
    TensorFlow 2.14's METADATA declares no upper bound on NumPy, but it is compiled against NumPy
    1 and fails to import under NumPy 2: the release that keeps NumPy 2 is 2.18 or newer."""
    matrix = load_matrix()
    unmet = UnmetRequirement(
        line="tensorflow 2.12.1 has requirement numpy<=1.24.3,>=1.22, but you have numpy 2.2.6.",
        of="tensorflow",
        of_version="2.12.1",
        name="numpy",
        requirement="numpy<=1.24.3,>=1.22",
        have="2.2.6",
    )
    row = releases.newer_tensorflow(scenario("real-tf-2.15-jax-0.7-py3.11"), matrix, unmet)
    assert row is not None
    # TensorFlow 2.18.0's release notes: "now supports and is compiled with NumPy 2.0 by default"
    assert Version(row.version).release[:2] >= (2, 18)
    older = matrix.release("2.14.0")
    assert older is not None
    assert not releases.accepts(older, "numpy", Version("2.2.6"), "3.11")
    assert releases.accepts(older, "numpy", Version("1.26.4"), "3.11")
