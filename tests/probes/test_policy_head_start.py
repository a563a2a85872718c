"""The installer's policy asked before the interpreter is read: the same answer as asking after,
taken only for the same command in the same setting, and asked once, not twice."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tf_gpucheck import _process, policyask
from tf_gpucheck.policyask import PROBE_REQUIREMENT, PolicyHeadStart, policy_argv
from tf_gpucheck.probes import LiveProbes
from tf_gpucheck.probes import installer as installer_probe
from tf_gpucheck.probes.installer import _policy, probe_installer
from tf_gpucheck.probes.interpreter import probe_interpreter
from tf_gpucheck.target import own_target


def _environ() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}


def test_the_early_answer_is_the_answer_asked_after(tmp_path: Path) -> None:
    environ = _environ()
    facts = probe_interpreter(own_target(), cwd=str(tmp_path))
    early = PolicyHeadStart(sys.executable, environ, str(tmp_path))
    argv = policy_argv("pip", sys.executable, None, facts.pip_version, ())
    answered = early.answer(argv, environ, str(tmp_path))
    asked = _policy("pip", sys.executable, None, facts.pip_version, (), environ, str(tmp_path), 30)
    assert answered is not None
    assert answered == asked
    assert answered.accepts is True  # this venv: pip would go on to resolve


def test_another_setting_or_command_is_asked_again(tmp_path: Path) -> None:
    environ = _environ()
    early = PolicyHeadStart(sys.executable, environ, str(tmp_path))
    argv = early.argv
    assert early.answer(argv, {**environ, "PIP_REQUIRE_VIRTUALENV": "1"}, str(tmp_path)) is None
    assert early.answer(argv, environ, str(tmp_path / "elsewhere")) is None
    old_pip = policy_argv("pip", sys.executable, None, "9.0.3", ())  # no --dry-run then
    assert "--dry-run" not in old_pip
    assert early.answer(old_pip, environ, str(tmp_path)) is None
    assert early.answer(argv, environ, str(tmp_path)) is not None


def test_the_probe_takes_it_and_runs_the_policy_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    environ = _environ()
    facts = probe_interpreter(own_target(), cwd=str(tmp_path))
    run = _process.run_child
    started: list[list[str]] = []

    def recording(argv: list[str], **kwargs: object) -> object:
        started.append(list(argv))
        return run(argv, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(installer_probe, "run_child", recording)
    monkeypatch.setattr(policyask, "run_child", recording)
    early = PolicyHeadStart(sys.executable, environ, str(tmp_path))
    with_early = probe_installer(sys.executable, facts, environ, str(tmp_path), head_start=early)
    policy_runs = [argv for argv in started if PROBE_REQUIREMENT in argv]
    without = probe_installer(sys.executable, facts, environ, str(tmp_path))
    assert with_early.policy == without.policy
    assert with_early.policy
    assert with_early.policy[0].accepts is True
    assert len(policy_runs) == 1  # the early ask only; the probe asked nothing again


def test_doctors_ask_starts_before_its_command_line_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``gpucheck doctor --python X --cwd D``: the ask is started from the raw command line, and
    the probes of that same Python, variables and folder take it; another command, ``--from``,
    or a Python the guess cannot find start nothing."""
    monkeypatch.setattr(policyask, "_EARLY", [])
    for args in (
        ["detect", "--python", sys.executable],
        ["doctor", "--from", "snapshot.json"],
        ["doctor", "--list"],
        ["doctor", "--python", str(tmp_path / "no-such-python")],
        ["doctor", "--python"],
    ):
        policyask.start_early(args)
        assert policyask._EARLY == [], args
    policyask.start_early(
        ["doctor", "--no-tf", f"--python={sys.executable}", "--cwd", str(tmp_path)]
    )
    [started] = policyask._EARLY
    probes = LiveProbes(sys.executable, cwd=str(tmp_path))
    probes.begin()
    assert probes._head_start is started  # taken, not asked again
    assert started.answer(started.argv, os.environ, str(tmp_path)) is not None
    # another folder is another ask: the early one is not taken for it
    elsewhere = LiveProbes(sys.executable, cwd=str(tmp_path / "elsewhere"))
    assert policyask.early(elsewhere.python, elsewhere.environ, elsewhere.cwd) is None
