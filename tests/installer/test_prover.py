"""The installer's dry runs of the fixes: an installer that cannot write, and a run stopped at the deadline."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fix.test_fix import venv_with_pip, versions
from tests.helpers import tiny_wheel


@pytest.mark.slow
def test_an_installer_that_cannot_write_is_not_proven_rather_than_refused(tmp_path: Path) -> None:
    """A real pip whose files may not grow past 1 KiB (as on a full disk): its dry run fails
    with pip's own OSError line. That is the machine, not an answer about the command: the fix
    stays, not proven, with pip's line; never "the installer refused it"."""
    from tests.installer.shellwords import read_command
    from tf_gpucheck.installer.proof import Target, prove

    python = venv_with_pip(tmp_path / "venv")
    tiny_wheel(tmp_path / "wheels")
    limited = tmp_path / "limited-python"
    limited.write_text(f'#!/bin/bash\ntrap "" XFSZ\nulimit -f 1\nexec "{python}" "$@"\n')
    limited.chmod(0o755)
    environ = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path / "wheels")}
    operations, _, why = read_command(f'{limited} -m pip install "tiny-pkg==1.0"')
    assert not why
    assert len(operations) == 1
    pip = versions(python)["pip"]

    proof = prove(operations[0], Target(str(limited), {}, pip, environ, str(tmp_path)))
    assert proof.status == "not_proven", proof
    assert "the installer could not run here" in proof.reason
    assert "OSError" in proof.reason
    assert "Errno 27" in proof.reason

    # the same command, the same pip, without the limit: accepted (the command was never at fault;
    # a command is proven with the interpreter it names)
    unlimited, _, why = read_command(f'{python} -m pip install "tiny-pkg==1.0"')
    assert not why
    free = prove(unlimited[0], Target(str(python), {}, pip, environ, str(tmp_path)))
    assert free.status == "proven", free
    assert free.changes == {"tiny-pkg": (None, "1.0")}


@pytest.mark.slow
def test_a_dry_run_stopped_at_the_deadline_leaves_nothing_in_tmp(tmp_path: Path) -> None:
    """pip unpacks what it downloads into pip-unpack-* under TMPDIR, and a dry run stopped at
    the proof's deadline cannot clean up: the proof gives pip a TMPDIR of its own and removes it.
    Here an installer that writes there and never answers stands in for a stalled download."""
    from tests.installer.shellwords import read_command
    from tf_gpucheck.installer.proof import Target, prove

    seen = tmp_path / "tmpdir-seen"
    stalled = tmp_path / "stalled-python"
    stalled.write_text(
        "#!/bin/bash\n"
        f'echo "$TMPDIR" > "{seen}"\n'
        'mkdir -p "$TMPDIR/pip-unpack-stalled" && head -c 100000 /dev/zero '
        '> "$TMPDIR/pip-unpack-stalled/part.whl"\n'
        "exec sleep 60\n"
    )
    stalled.chmod(0o755)
    operations, _, why = read_command(f'{stalled} -m pip install "tiny-pkg==1.0"')
    assert not why
    proof = prove(operations[0], Target(str(stalled), {}, "25.2", dict(os.environ)), 3)
    assert proof.status == "not_proven", proof  # no answer is no refusal
    assert "had not answered in 3 s" in proof.reason
    used = Path(seen.read_text().strip())
    assert used.name.startswith("gpucheck-fix-"), used
    assert not used.exists()  # the partial download went with it
