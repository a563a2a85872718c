"""The installer's answers kept and reused while what decides them is unchanged."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.installer.shellwords import read_command
from tf_gpucheck.installer.proof import Proof, Target
from tf_gpucheck.installer.proofcache import ProofCache, ProofKey
from tf_gpucheck.installer.prover import NOT_YET, Prover

FIX = 'pip install "tensorflow[and-cuda]==2.21.*"'
VERSIONS = {"tensorflow": "2.21.0", "numpy": "2.4.6"}


def _key(fix: str = FIX, **changes: object) -> ProofKey:
    target = Target(sys.executable, VERSIONS, "25.3", {"HOME": "/nowhere"}, "/")
    return ProofKey.of(fix, dataclasses.replace(target, **changes))  # type: ignore[arg-type]


def test_the_key_is_what_decides_the_answer(tmp_path: Path) -> None:
    same = _key()
    assert _key() == same
    assert _key(fix='pip install "keras==3.12"') != same
    assert _key(versions={**VERSIONS, "numpy": "1.26.4"}) != same
    assert _key(pip="24.0") != same
    assert _key(environ={"HOME": "/nowhere", "PIP_INDEX_URL": "https://mirror/simple"}) != same
    assert _key(environ={"HOME": "/nowhere", "TERM": "xterm"}) == same  # not a setting
    # a configuration file's contents are part of it
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nindex-url = https://a/simple\n")
    with_conf = _key(environ={"HOME": "/nowhere", "PIP_CONFIG_FILE": str(conf)})
    assert with_conf == _key(environ={"HOME": "/nowhere", "PIP_CONFIG_FILE": str(conf)})
    conf.write_text("[global]\nindex-url = https://b/simple\n")
    assert _key(environ={"HOME": "/nowhere", "PIP_CONFIG_FILE": str(conf)}) != with_conf
    # uv reads the project's settings from the folder it runs in
    (tmp_path / "uv.toml").write_text('index-url = "https://c/simple"\n')
    assert _key(cwd=str(tmp_path)) != _key(cwd=str(tmp_path / "elsewhere"))


def test_only_the_installers_own_answers_are_reused(tmp_path: Path) -> None:
    cache = ProofCache(tmp_path)
    key = _key()
    assert cache.load(key) is None
    cache.store(key, Proof("proven", {"numpy": ("2.4.6", "2.2.6")}, by="pip 25.3 --dry-run"))
    found = cache.load(key)
    assert found is not None
    proof, age = found
    assert proof.status == "proven"
    assert proof.changes == {"numpy": ("2.4.6", "2.2.6")}
    assert 0 <= age < 5
    other = _key(pip="24.0")
    since = time.time()
    cache.store(other, Proof("not_proven", reason="the package index did not answer: ..."))
    assert cache.load(other) is None  # asked again next time
    recent = cache.load_recent(other, since)
    assert recent is not None
    assert recent[0].status == "not_proven"


def test_an_old_answer_is_asked_again(tmp_path: Path) -> None:
    cache = ProofCache(tmp_path, max_age_s=60)
    key = _key()
    cache.store(key, Proof("refused", reason="ERROR: No matching distribution"))
    path = tmp_path / "proofs" / f"{key.digest}.json"
    data = json.loads(path.read_text())
    data["at"] -= 120
    path.write_text(json.dumps(data))
    assert cache.load(key) is None


def test_a_cached_answer_is_used_without_asking_the_installer(tmp_path: Path) -> None:
    cache = ProofCache(tmp_path)
    missing = str(tmp_path / "no-such-python")  # asking it would fail
    prover = Prover(Target(missing, VERSIONS, "25.3", {"HOME": "/nowhere"}, "/"), cache=cache)
    key = prover.key(FIX)
    cache.store(key, Proof("proven", {"tensorflow": ("2.21.0", "2.21.0")}, by="pip 25.3 --dry-run"))
    proof = prover.answer(FIX, time.monotonic())
    prover.close()
    assert proof is not None
    assert proof.status == "proven"
    assert proof.by.startswith("pip 25.3 --dry-run, ")
    assert proof.by.endswith("ago")


@pytest.mark.slow
def test_a_dry_run_doctor_did_not_wait_for_is_there_next_time(tmp_path: Path) -> None:
    """A real worker process: the first answer is "not yet", the worker goes on after the prover
    is closed, and the next prover answers from what it kept."""
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    python = str(env / "bin" / "python")
    pip = subprocess.run(
        [python, "-m", "pip", "--version"], capture_output=True, text=True, check=True
    ).stdout.split()[1]
    cache = ProofCache(tmp_path / "cache")
    environ = dict(os.environ)
    fix = f'{python} -m pip install "packaging"'
    found, _, _ = read_command(fix)  # what the writer would make with this line
    operations = (tuple(found), "")
    first = Prover(Target(python, {}, pip, environ, str(tmp_path)), cache=cache, workers=True)
    early = first.answer(fix, time.monotonic(), operations)
    first.close()
    assert early is not None
    assert early.status == "not_proven"
    assert early.reason == NOT_YET
    key = first.key(fix)
    deadline = time.monotonic() + 180
    while cache.load_recent(key, 0) is None and time.monotonic() < deadline:
        time.sleep(0.5)
    kept = cache.load_recent(key, 0)
    assert kept is not None, "the worker left no answer"
    if kept[0].status == "not_proven":
        pytest.skip(f"the index could not be asked here: {kept[0].reason}")
    second = Prover(Target(python, {}, pip, environ, str(tmp_path)), cache=cache, workers=True)
    start = time.monotonic()
    answer = second.answer(fix, time.monotonic(), operations)
    second.close()
    assert answer is not None
    assert answer.status == "proven", answer
    assert "packaging" in answer.changes
    assert time.monotonic() - start < 1.0
