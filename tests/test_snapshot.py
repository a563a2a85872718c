"""The snapshot contract: exact top-level keys, JSON round-trip, strict loading."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import SCENARIO_NAMES, SNAPSHOTS, scenario
from tests.helpers import FAST, JSON
from tf_gpucheck.errors import ExitCode, GpucheckError
from tf_gpucheck.snapshot import ENV_VARS, SCHEMA_VERSION, Snapshot, load_snapshot

TOP_LEVEL_KEYS = [
    "schema_version",
    "created_at",
    "gpucheck_version",
    "node",
    "system",
    "target",
    "packages",
    "nvml",
    "libraries",
    "tensorflow",
    "frameworks",
    "imports",
    "place",
    "kernel",
    "installer",
]
V1 = Path(__file__).resolve().parent / "data" / "snapshots-v1"


@pytest.mark.parametrize("name", SCENARIO_NAMES)
def test_every_scenario_round_trips_unchanged(name: str) -> None:
    snapshot = scenario(name)
    text = snapshot.to_json()
    again = Snapshot.from_json(text)
    assert again == snapshot
    assert again.to_json() == text
    # and the file on disk is exactly what the dataclasses write
    on_disk = json.loads((SNAPSHOTS / f"{name}.json").read_text())
    assert snapshot.to_dict() == on_disk


@pytest.mark.parametrize("name", SCENARIO_NAMES)
def test_top_level_keys_are_exactly_the_contract(name: str) -> None:
    data = scenario(name).to_dict()
    assert list(data) == TOP_LEVEL_KEYS
    assert data["schema_version"] == SCHEMA_VERSION
    assert set(data["system"]["env"]) == set(ENV_VARS)


def test_real_recording_is_a_cuda_build_without_driver() -> None:
    real = scenario("real-cpu-only-tf-2.21-no-driver")
    assert real.nvml.available is False
    assert real.nvml.error_code == "library_not_found"
    assert real.tensorflow.is_built_with_cuda is True
    assert [d.device_type for d in real.tensorflow.physical_devices] == ["CPU"]
    assert any("Could not find cuda drivers" in line for line in real.tensorflow.log)


def _write(tmp_path: Path, content: str) -> Path:
    path = tmp_path / "env.json"
    path.write_text(content)
    return path


def _good() -> dict[str, object]:
    return scenario("two-a100").to_dict()


@pytest.mark.parametrize(
    ("content", "reference", "words"),
    [
        ("", "snapshot-invalid", "is empty"),
        ("   \n", "snapshot-invalid", "is empty"),
        ("{not json", "snapshot-invalid", "not JSON"),
        ("[1, 2]", "snapshot-invalid", "not a JSON object"),
        ('{"system": {}}', "snapshot-invalid", "no integer schema_version"),
        ('{"schema_version": "1"}', "snapshot-invalid", "no integer schema_version"),
        ('{"schema_version": 0}', "snapshot-invalid", "not a valid version"),
        ('{"schema_version": 99}', "snapshot-too-new", "newer than"),
        ('{"schema_version": 1}', "snapshot-invalid", "created_at: missing"),
        ('{"schema_version": 2}', "snapshot-invalid", "created_at: missing"),
    ],
)
def test_bad_files_are_one_clear_error(
    tmp_path: Path, content: str, reference: str, words: str
) -> None:
    with pytest.raises(GpucheckError) as caught:
        load_snapshot(_write(tmp_path, content))
    assert caught.value.reference == reference
    assert words in caught.value.message
    assert caught.value.exit_code == ExitCode.USAGE
    assert "\n" not in caught.value.message


def test_unknown_key_is_rejected_with_its_path(tmp_path: Path) -> None:
    data = _good()
    data["nvml"]["gpus"][1]["temperature_c"] = 40  # type: ignore[index]
    with pytest.raises(GpucheckError, match=r"nvml\.gpus\[1\]: unknown key 'temperature_c'"):
        load_snapshot(_write(tmp_path, json.dumps(data)))


def test_wrong_type_is_rejected_with_its_path(tmp_path: Path) -> None:
    data = _good()
    data["nvml"]["gpus"][0]["memory_total_bytes"] = "80GB"  # type: ignore[index]
    with pytest.raises(
        GpucheckError, match=r"nvml\.gpus\[0\]\.memory_total_bytes: expected an integer, got string"
    ):
        load_snapshot(_write(tmp_path, json.dumps(data)))


def test_boolean_is_not_an_integer(tmp_path: Path) -> None:
    data = _good()
    data["system"]["cpu_count"] = True  # type: ignore[index]
    with pytest.raises(GpucheckError, match=r"system\.cpu_count"):
        load_snapshot(_write(tmp_path, json.dumps(data)))


def test_missing_file_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(GpucheckError) as caught:
        load_snapshot(tmp_path / "nope.json")
    assert caught.value.reference == "snapshot-missing"
    assert caught.value.hint is not None
    assert "gpucheck detect --json" in caught.value.hint


def test_a_version_1_snapshot_still_loads_and_says_what_it_lacks() -> None:
    path = V1 / "real-cpu-only-tf-2.21-no-driver.json"
    raw = json.loads(path.read_text())
    assert raw["schema_version"] == 1
    snapshot = load_snapshot(path)
    assert snapshot.schema_version == SCHEMA_VERSION
    assert snapshot.system.python_version == raw["system"]["python_version"]
    assert snapshot.tensorflow.log == tuple(raw["tensorflow"]["log"])
    assert snapshot.target.chosen_by == "unknown"
    assert snapshot.target.python_executable == raw["system"]["python_executable"]
    assert snapshot.node.hostname is None
    assert snapshot.frameworks.probed is False
    assert "schema 1" in (snapshot.frameworks.reason or "")
    assert list(snapshot.to_dict()) == TOP_LEVEL_KEYS


def test_a_version_2_snapshot_still_loads_and_says_what_it_lacks() -> None:
    path = Path(__file__).resolve().parent / "data" / "snapshots-v2"
    path = path / "real-tf-2.21-and-cuda-py3.11-no-driver.json"
    raw = json.loads(path.read_text())
    assert raw["schema_version"] == 2
    snapshot = load_snapshot(path)
    assert snapshot.packages.tensorflow[0].version == raw["packages"]["tensorflow"][0]["version"]
    # the sections schema 3 and 4 added say "not recorded"
    assert snapshot.imports is None
    assert snapshot.place is None
    assert snapshot.installer is None
    assert snapshot.packages.requirements is None
    assert snapshot.packages.tensorflow[0].location is None
    assert list(snapshot.to_dict()) == TOP_LEVEL_KEYS


def test_a_version_1_snapshot_with_a_version_2_key_is_rejected(tmp_path: Path) -> None:
    raw = json.loads((V1 / "real-cpu-only-tf-2.21-no-driver.json").read_text())
    raw["node"] = {"hostname": "x", "labels": {}}
    with pytest.raises(GpucheckError, match="unknown key 'node' for schema_version 1"):
        load_snapshot(_write(tmp_path, json.dumps(raw)))


def test_a_version_2_snapshot_needs_its_new_sections(tmp_path: Path) -> None:
    data = _good()
    del data["target"]
    with pytest.raises(GpucheckError, match="target: missing"):
        load_snapshot(_write(tmp_path, json.dumps(data)))


def test_snapshots_written_by_windows_shells_load(tmp_path: Path) -> None:
    # PowerShell 5.1's `>` writes UTF-16 with a BOM; `Out-File -Encoding utf8` a UTF-8 BOM
    text = scenario("two-a100").to_json()
    for name, data in (
        ("utf16.json", text.encode("utf-16")),
        ("bom.json", b"\xef\xbb\xbf" + text.encode("utf-8")),
    ):
        path = tmp_path / name
        path.write_bytes(data)
        assert load_snapshot(path) == scenario("two-a100")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("[" * 100_000, "nested too deeply"),
        ('{"schema_version": 1, "verdict": "fail", "findings": []}', "doctor --json` report"),
    ],
)
def test_odd_json_is_one_clear_error(tmp_path: Path, content: str, words: str) -> None:
    with pytest.raises(GpucheckError) as caught:
        load_snapshot(_write(tmp_path, content))
    assert caught.value.exit_code == ExitCode.USAGE
    assert words in caught.value.message


def test_a_version_1_snapshot_of_an_unusable_target_keeps_no_borrowed_version(
    tmp_path: Path,
) -> None:
    # gpucheck 1 wrote its own Python version when the target could not be queried
    raw = json.loads((V1 / "real-cpu-only-tf-2.21-no-driver.json").read_text())
    raw["packages"]["error"] = "/usr/bin/python2.6 exited with status 1: SyntaxError"
    snapshot = load_snapshot(_write(tmp_path, json.dumps(raw)))
    assert snapshot.system.python_version is None


@FAST
@given(JSON)
def test_snapshot_loader_never_crashes_on_json(data: Any) -> None:
    try:
        Snapshot.from_json(json.dumps(data))
    except GpucheckError as exc:
        assert exc.exit_code == 2
        assert "\n" not in exc.message


@FAST
@given(st.text(max_size=200))
def test_snapshot_loader_never_crashes_on_text(text: str) -> None:
    with pytest.raises(GpucheckError):
        Snapshot.from_json(text)


def _leaves(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(data, dict):
        return [p for key, value in data.items() for p in _leaves(value, (*path, key))] or [path]
    if isinstance(data, list):
        return [p for i, value in enumerate(data) for p in _leaves(value, (*path, i))] or [path]
    return [path]


GOOD = scenario("two-a100").to_dict()


PATHS = [p for p in _leaves(GOOD) if p]


@FAST
@given(st.sampled_from(PATHS), JSON)
def test_one_wrong_value_is_rejected_cleanly_or_accepted_correctly(
    path: tuple[Any, ...], value: Any
) -> None:
    data = json.loads(json.dumps(GOOD))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    try:
        loaded = Snapshot.from_dict(data)
    except GpucheckError as exc:
        assert exc.reference in ("snapshot-invalid", "snapshot-too-new")
        return
    assert loaded.to_dict() == json.loads(json.dumps(loaded.to_dict()))  # what loads, round-trips
