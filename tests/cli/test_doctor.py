"""`gpucheck doctor` as a user runs it: its JSON and the fixes it names."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import scenario
from tests.helpers import gpucheck


@pytest.mark.slow
def test_no_fix_names_an_interpreter_that_did_not_answer_as_a_python(tmp_path: Path) -> None:
    true = shutil.which("true")
    assert true is not None
    result = gpucheck("doctor", "--python", true, "--json", "--proof-budget", "0", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["first_fix"]["cause"] == "python_unusable"
    for finding in data["findings"]:
        assert f"{true} -m pip" not in (finding["fix"] or ""), finding
    checks = {f["check"]: f for f in data["findings"]}
    for check in ("user_import", "tf_requirements", "keras_backend", "tf_import"):
        if checks[check]["status"] == "skip" and check != "tf_requirements":
            assert "could not be queried" in checks[check]["summary"], checks[check]
    assert checks["tf_import"]["status"] == "skip"


def test_doctor_json_leads_with_the_verdict(run_cli: Any) -> None:
    from tests.conftest import SnapshotProbes

    result = run_cli(["doctor", "--json"], SnapshotProbes(scenario("two-a100")))
    keys = list(json.loads(result.stdout))
    assert keys[:5] == ["schema_version", "verdict", "exit_code", "gpu_usable", "first_fix"]
