"""The steps of a fix that are not the installer's (a file set aside, a folder's records removed,
Python's own ensurepip, a fresh environment) are values: written in the target shell's words,
carried as data in JSON, and the proof learns from the step itself that the installer cannot be
asked before it runs, never from the printed line."""

from __future__ import annotations

import dataclasses

from tests.conftest import scenario
from tf_gpucheck.installer import intent, writer
from tf_gpucheck.installer.intent import NOT_ASKED, FreshEnvironment, RestorePip
from tf_gpucheck.installer.proof import Target
from tf_gpucheck.installer.prover import Prover


def test_each_step_is_written_for_the_targets_shell() -> None:
    linux = scenario("real-tf-2.10-py3.10-no-driver")
    windows = dataclasses.replace(linux, system=dataclasses.replace(linux.system, os="Windows"))
    aside = intent.set_aside("/srv/my env/lib/python3.10/site-packages/other.pth")
    assert writer.write(aside, linux) == (
        "mv '/srv/my env/lib/python3.10/site-packages/other.pth' "
        "'/srv/my env/lib/python3.10/site-packages/other.pth.disabled'"
    )
    assert writer.write(intent.set_aside("C:\\e\\x.pth"), windows) == (
        "move C:\\e\\x.pth C:\\e\\x.pth.disabled"
    )
    records = intent.remove("/t/tensorflow_cpu-2.21.0.dist-info", "/t/keras-3.10.0.dist-info")
    assert writer.write(records, linux) == (
        "rm -rf /t/tensorflow_cpu-2.21.0.dist-info /t/keras-3.10.0.dist-info"
    )
    assert writer.write(intent.remove("C:\\t\\a.dist-info"), windows) == (
        "rmdir /s /q C:\\t\\a.dist-info"
    )
    again = intent.fresh_environment("/srv/venv", clear=True)
    assert writer.write(again, linux) == "python3 -m venv --clear /srv/venv"
    assert writer.write(intent.restore_pip("/srv/venv/bin/python"), linux) == (
        "/srv/venv/bin/python -m ensurepip --upgrade"
    )
    assert intent.then(records, again).to_dict() == {
        "steps": [
            {"remove": ["/t/tensorflow_cpu-2.21.0.dist-info", "/t/keras-3.10.0.dist-info"]},
            {"fresh_environment": "/srv/venv", "python": "python3", "clear": True},
        ],
        "note": "",
    }


def test_the_proof_takes_what_cannot_be_asked_from_the_steps() -> None:
    """A fix that starts with ensurepip or makes an environment runs no package operation the
    installer can be asked about now: the written fix says why, and the prover's answer is
    "not proven" with that reason; a fix of the installer's steps alone is package work."""
    snapshot = scenario("real-tf-2.10-py3.10-no-driver")
    python = snapshot.target.python_executable
    assert python
    for fix, step in (
        (intent.then(intent.restore_pip(python), intent.install("numpy<2")), RestorePip),
        (intent.fresh_environment("/srv/venv", clear=True), FreshEnvironment),
    ):
        made = writer.written(fix, snapshot)
        assert made.operations == ()
        assert made.why_not == NOT_ASKED[step]
        prover = Prover(Target(python), workers=False)
        prover.submit_known(made.line, (made.operations, made.why_not))
        proof = prover._prove(made.line)
        assert proof is not None
        assert (proof.status, proof.reason) == ("not_proven", NOT_ASKED[step])
    plain = writer.written(intent.install("numpy<2"), snapshot)
    assert plain.why_not == ""
    assert [o.verb for o in plain.operations] == ["install"]


def test_a_line_the_writer_starts_with_ensurepip_is_not_asked() -> None:
    """An environment without pip (``python -m venv --without-pip``, a stripped image): the
    writer puts the target's own ensurepip before its first pip, and says the installer cannot
    be asked until it has run, so the proof is "not proven" for that reason."""
    from tf_gpucheck.snapshot import InstallerInfo

    snapshot = scenario("real-tf-2.10-py3.10-no-driver")
    bare = dataclasses.replace(
        snapshot,
        installer=InstallerInfo(None, None),
        target=dataclasses.replace(snapshot.target, installer=None),
    )
    made = writer.written(intent.install("numpy<2"), bare)
    assert " -m ensurepip && " in made.line, made.line
    assert made.operations == ()
    assert made.why_not == NOT_ASKED[RestorePip]
