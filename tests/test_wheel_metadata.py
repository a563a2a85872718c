"""The wheel built from this checkout is the one the release workflow publishes: its metadata,
license, entry points and data files.

``python -m build --wheel`` runs the build backend (hatchling) the way
``.github/workflows/release.yml`` does, into a temporary folder; the wheel is then read as a
zip, never installed.
"""

from __future__ import annotations

import configparser
import email.parser
import importlib.util
import subprocess
import sys
import zipfile
from email.message import Message
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("build") is None:
        pytest.skip("the `build` package is not installed (it is in the `test` extra)")
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if (
        result.returncode != 0
        and "No matching distribution found for hatchling" in result.stdout + result.stderr
    ):
        pytest.skip("no package index with hatchling here: the isolated build cannot start")
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    (built,) = out.glob("tf_gpucheck-*.whl")
    return built


def _dist_info(names: list[str]) -> str:
    (folder,) = {n.split("/", 1)[0] for n in names if n.split("/", 1)[0].endswith(".dist-info")}
    return folder


def _metadata(archive: zipfile.ZipFile) -> Message:
    text = archive.read(f"{_dist_info(archive.namelist())}/METADATA").decode("utf-8")
    return email.parser.Parser().parsestr(text)


@pytest.mark.slow
def test_metadata_names_the_distribution_and_its_license(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        metadata = _metadata(archive)
    assert metadata["Name"] == "tf-gpucheck"
    about: dict[str, str] = {}
    exec((ROOT / "src" / "tf_gpucheck" / "__about__.py").read_text(encoding="utf-8"), about)
    assert metadata["Version"] == about["__version__"]
    # PEP 639: License-Expression (metadata 2.4+); older backends wrote License
    assert "Apache-2.0" in (metadata["License-Expression"], metadata["License"])
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["Requires-Python"] == ">=3.10"
    # TensorFlow only through the extra, never as a dependency
    requires = metadata.get_all("Requires-Dist") or []
    assert not [r for r in requires if r.startswith("tensorflow") and "extra ==" not in r]


def test_license_file_is_the_apache_license(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        folder = _dist_info(names)
        licenses = [n for n in names if n.startswith(f"{folder}/") and "LICENSE" in n]
        assert licenses == [f"{folder}/licenses/LICENSE"]
        text = archive.read(licenses[0]).decode("utf-8")
    assert text == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text
    assert "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_entry_points(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(f"{_dist_info(archive.namelist())}/entry_points.txt").decode()
    sections = configparser.ConfigParser()
    sections.optionxform = str  # type: ignore[assignment,method-assign]  # keep names as written
    sections.read_string(text)
    assert dict(sections["console_scripts"]) == {"gpucheck": "tf_gpucheck.cli:run"}
    assert dict(sections["pytest11"]) == {"tf_gpucheck": "tf_gpucheck.pytest_plugin"}


def test_data_files_are_shipped(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        matrix = archive.read("tf_gpucheck/compat_matrix.yaml")
    assert matrix == (ROOT / "compat_matrix.yaml").read_bytes()
    knowledge = ROOT / "src" / "tf_gpucheck" / "knowledge"
    expected = {
        "tf_gpucheck/knowledge/" + path.relative_to(knowledge).as_posix()
        for path in knowledge.rglob("*")
        if path.is_file() and path.suffix in (".yaml", ".md")
    }
    assert expected, "no knowledge files in the checkout"
    assert expected <= names, sorted(expected - names)
    for needed in ("images.yaml", "causes.yaml", "facts.yaml", "rules/tensorflow.yaml"):
        assert f"tf_gpucheck/knowledge/{needed}" in names, needed
