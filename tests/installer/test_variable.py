"""A variable is a step of a fix, not a command's text: one value, written in the words of the
target's shell (a POSIX shell's export/unset, cmd.exe's set), and carried as data in JSON."""

from __future__ import annotations

import dataclasses

from tests.conftest import scenario
from tf_gpucheck.installer import intent, writer


def test_a_variable_is_written_for_the_targets_shell() -> None:
    linux = scenario("real-tf-2.10-py3.10-no-driver")
    windows = dataclasses.replace(linux, system=dataclasses.replace(linux.system, os="Windows"))
    unset = intent.variable("PYTHONPATH", note="its folders come first")
    assert writer.write(unset, linux) == "unset PYTHONPATH  # its folders come first"
    assert writer.write(unset, windows) == "set PYTHONPATH=  # its folders come first"
    keep = intent.variable("LD_LIBRARY_PATH", "/opt/a b:/usr/lib")
    assert writer.write(keep, linux) == "export LD_LIBRARY_PATH='/opt/a b:/usr/lib'"
    assert writer.write(keep, windows) == 'set "LD_LIBRARY_PATH=/opt/a b:/usr/lib"'
    assert keep.to_dict() == {
        "steps": [{"variable": "LD_LIBRARY_PATH", "value": "/opt/a b:/usr/lib"}],
        "note": "",
    }


def test_the_installer_runs_without_pythonpath_where_the_fix_unsets_it() -> None:
    fix = intent.then(intent.variable("PYTHONPATH"), intent.install("tensorflow==2.10.1"))
    assert writer._unsets_pythonpath(fix)
    assert not writer._unsets_pythonpath(intent.variable("PYTHONPATH", "/srv/lib"))
