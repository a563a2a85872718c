"""--redact: identities, UUIDs and secrets masked in every format, and no dry run started."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SnapshotProbes, scenario
from tf_gpucheck.redact import redact


def test_redact_masks_identity_uuids_and_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    monkeypatch.setattr("socket.gethostname", lambda: "gpu-node-17")
    monkeypatch.setattr("getpass.getuser", lambda: "alice")
    monkeypatch.setattr("pathlib.Path.home", staticmethod(lambda: Path("/home/alice")))
    base = scenario("two-a100")
    env = dict(
        base.system.env,
        TF_CONFIG='{"cluster": {"worker": ["10.0.0.5:2222"]}}',
        XLA_FLAGS="--xla_gpu_cuda_data_dir=/usr/local/cuda token=abcd1234",
    )
    system = dataclasses.replace(
        base.system, env=env, python_executable="/home/alice/venv/bin/python"
    )
    tf = dataclasses.replace(
        base.tensorflow, log=(*base.tensorflow.log, "I0000 hostname: gpu-node-17")
    )
    masked = redact(dataclasses.replace(base, system=system, tensorflow=tf)).to_json()
    for secret in ("gpu-node-17", "alice", "10.0.0.5", "abcd1234", "GPU-3f9a2c1e"):
        assert secret not in masked
    assert "~/venv/bin/python" in masked
    assert "GPU-<redacted>" in masked


def test_cli_redact_applies_to_every_format(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    probes = SnapshotProbes(scenario("two-a100"))
    for args in (
        ["detect", "--json"],
        ["detect"],
        ["doctor", "--json"],
        ["doctor", "--format", "markdown", "-v"],
    ):
        out = run_cli([*args, "--redact"], probes).stdout
        assert "GPU-3f9a2c1e" not in out, args


def test_redacted_doctor_starts_no_dry_run(run_cli: Any) -> None:
    # a redacted report carries no proofs; a dry run started for it only held doctor up until
    # the installer answered (87 s where the index was reachable)
    asked: list[str] = []

    class Probes(SnapshotProbes):
        def prover(self) -> None:
            asked.append("prover")

    probes = Probes(scenario("tf-not-installed"))
    assert run_cli(["doctor", "--json", "--redact"], probes).exit_code == 1
    assert asked == []
    assert run_cli(["doctor", "--json"], probes).exit_code == 1
    assert asked == ["prover"]  # unredacted, the same report is proven
