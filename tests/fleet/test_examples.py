"""The collection recipes in examples/ run real gpucheck commands: each parses with the CLI."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml

from tests.paths import ROOT
from tf_gpucheck.cli import app

EXAMPLES = ROOT / "examples"


def parse_gpucheck(argv: list[str]) -> tuple[str, dict[str, object]]:
    """Parse ``gpucheck ...`` with the real command line, without running it: the command's
    name and its parsed parameters (a bad flag or value raises the CLI's usage error)."""
    assert argv[0] == "gpucheck", argv
    group: Any = typer.main.get_command(app)  # Typer's own (vendored) click Group
    name = argv[1]
    command = group.commands.get(name)
    if command is None:
        raise LookupError(f"no gpucheck command {name!r}")
    with command.make_context(name, argv[2:]) as ctx:
        return name, dict(ctx.params)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["gpucheck", "detect", "--jsn"], "No such option: --jsn"),
        (["gpucheck", "detect", "--timeout", "soon"], "Invalid value for '--timeout'"),
    ],
)
def test_parser_rejects_what_the_cli_rejects(argv: list[str], message: str) -> None:
    with pytest.raises(Exception, match=r"\w") as caught:
        parse_gpucheck(argv)
    assert getattr(caught.value, "exit_code", None) == 2  # a usage error, as the CLI says
    assert message in caught.value.format_message()  # type: ignore[attr-defined]
    with pytest.raises(LookupError):
        parse_gpucheck(["gpucheck", "detekt"])


def _containers(manifest: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for document in yaml.safe_load_all(manifest.read_text()):
        if document and document.get("kind") in ("DaemonSet", "Job"):
            spec = document["spec"]["template"]["spec"]
            found += spec.get("initContainers", []) + spec.get("containers", [])
    return found


def test_kubernetes_manifest_runs_detect_json_on_gpu_nodes() -> None:
    manifest = EXAMPLES / "kubernetes" / "gpucheck-daemonset.yaml"
    documents = [d for d in yaml.safe_load_all(manifest.read_text()) if d]
    daemonset = next(d for d in documents if d["kind"] == "DaemonSet")
    spec = daemonset["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    commands = [
        [*c.get("command", []), *c.get("args", [])]
        for c in _containers(manifest)
        if "gpucheck" in c.get("command", [])[:1]
    ]
    assert len(commands) == 1
    name, params = parse_gpucheck(commands[0])
    assert name == "detect"
    assert params["json_output"] is True
    detect = next(c for c in spec["initContainers"] if c["name"] == "detect")
    env = {e["name"] for e in detect["env"]}
    assert {"NODE_NAME", "POD_NAME"} <= env  # the labels gpucheck records
    # The log-gathering loop in the header writes what `gpucheck fleet` reads.
    header = manifest.read_text()
    assert 'logs "$pod" -c detect' in header
    for line in header.splitlines():
        if line.startswith("#   gpucheck "):
            parse_gpucheck(shlex.split(line[4:]))


def test_slurm_script_writes_one_snapshot_per_node_then_judges_them() -> None:
    script = (EXAMPLES / "slurm" / "gpucheck-fleet.sbatch").read_text()
    joined = script.replace("\\\n", " ")
    srun = next(line for line in joined.splitlines() if line.strip().startswith("srun "))
    argv = shlex.split(srun)
    assert "--output=$out/%N.json" in [a.replace('"', "") for a in argv] or any(
        re.fullmatch(r"--output=.*%N\.json", a) for a in argv
    )
    assert any(a.startswith("--error=") for a in argv)  # stderr kept out of the JSON
    start = argv.index("gpucheck")
    name, params = parse_gpucheck(argv[start:])
    assert (name, params["json_output"]) == ("detect", True)
    fleet = next(line for line in joined.splitlines() if line.startswith("gpucheck fleet"))
    name, params = parse_gpucheck(shlex.split(fleet.replace('"$out', '"fleet')))
    assert name == "fleet"
    assert params["require_gpu"] is True
