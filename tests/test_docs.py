"""The documentation site: built with --strict, a page per command and the cause reference, and
rendered by a real browser."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = (
    "doctor",
    "fix",
    "explain",
    "detect",
    "configure-memory",
    "benchmark",
    "lint",
    "fleet",
    "matrix",
)


def test_every_command_has_its_page_in_the_navigation() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = {Path(item).name for item in _leaves(config["nav"])}
    for command in COMMANDS:
        assert f"{command}.md" in pages, command
        assert (ROOT / "docs" / "commands" / f"{command}.md").exists()
    assert "causes.md" in pages


def _leaves(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [leaf for item in nav for leaf in _leaves(item)]
    if isinstance(nav, dict):
        return [leaf for value in nav.values() for leaf in _leaves(value)]
    return []


def test_the_readme_is_a_front_door() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(readme) <= 200
    assert not [line for line in readme if len(line) > 300]
    text = "\n".join(readme)
    assert (
        "python3 -m venv .venv && . .venv/bin/activate && pip install . && gpucheck doctor" in text
    )
    assert 'python3 -m pip install -e ".[test]" && python3 -m pytest' in text


def test_ci_runs_the_readmes_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install --resume-retries 10 -e ".[test]"' in ci
    assert "python3 -m pytest" in ci
    assert "mkdocs build --strict" in ci


@pytest.mark.slow
def test_the_site_builds_strict_and_renders_in_a_browser(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    site = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert build.returncode == 0, build.stderr[-3000:]
    index = site / "index.html"
    assert "gpucheck doctor" in index.read_text(encoding="utf-8")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("no Chromium on this machine (.ci/run installs Debian's)")
    shot = tmp_path / "index.png"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]  # fmt: skip
    subprocess.run(
        [browser, *flags, f"--screenshot={shot}", "--window-size=1200,900", index.as_uri()],
        capture_output=True,
        check=True,
        timeout=120,
    )
    from PIL import Image

    with Image.open(shot) as image:
        picture = image.convert("RGB")
    assert picture.size == (1200, 900)
    # Material's header bar (its indigo primary) across the top, the page below it
    red, green, blue = picture.getpixel((600, 20))
    assert blue > 150, (red, green, blue)
    assert max(red, green) < 120, (red, green, blue)
    page = picture.crop((0, 60, 900, 900)).convert("L")
    dark = sum(page.histogram()[:100])  # pixels darker than 100 of 255: text
    assert dark > 2000, "no text drawn below the header"
