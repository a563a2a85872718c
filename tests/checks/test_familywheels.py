"""pip's "(from versions: none)" for a package of TensorFlow's family, judged by PyPI's wheels of
it (knowledge/wheels.yaml): the Python or the platform that never had one, and nothing where the
wheels cover what the text states."""

from __future__ import annotations

import yaml

from tests.paths import ROOT
from tf_gpucheck import knowledge
from tf_gpucheck.explain import explain
from tf_gpucheck.matrix import load_matrix

MATRIX = load_matrix()


def _report(url: str) -> dict[str, str]:
    folders = (ROOT / "src/tf_gpucheck/knowledge/reports", ROOT / "benchmarks/samples")
    for path in (p for folder in folders for p in sorted(folder.rglob("*.yaml"))):
        for entry in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            if isinstance(entry, dict) and entry.get("url") == url:
                return entry
    raise AssertionError(url)


def _first(url: str) -> tuple[str | None, str]:
    report = _report(url)
    said = explain(report["text"], MATRIX, exclude=url, title=report.get("title")).report
    assert said.first_fix is not None
    return said.first_fix.cause, said.first_fix.summary


def test_every_package_of_the_table_names_the_pypi_listing_it_was_read_from() -> None:
    table = knowledge.read("wheels.yaml")
    assert table["fetched"]
    assert "scripts/pypi_wheels.py" in table["how"]
    for name, entry in table["packages"].items():
        assert entry["source"] == f"https://pypi.org/pypi/{name}/json"
        assert entry["wheels"], name
        assert set(entry["newest_wheels"]) <= set(entry["wheels"]), name


def test_a_python_no_platform_ever_had_a_wheel_for_is_the_python() -> None:
    # tensorflow/addons#2874: Python 3.12; TensorFlow Addons' last wheels are for 3.9-3.11
    cause, summary = _first("https://github.com/tensorflow/addons/issues/2874")
    assert cause == "python_unsupported"
    assert "no release of tensorflow-addons has a wheel for Python 3.12 on any platform" in summary


def test_a_python_other_platforms_have_wheels_for_is_the_platform() -> None:
    # tensorflow/text#89: Python 3.5.4 on 64-bit Windows; tensorflow-text has Linux and macOS
    # wheels for 3.5, and Windows wheels only for 3.6-3.10 (settled: "we do not have a Windows
    # ready release")
    cause, summary = _first("https://github.com/tensorflow/text/issues/89")
    assert cause == "install_resolution_failed"
    assert "on 64-bit Windows no release has one for it (only for Python 3.6-3.10)" in summary


def test_wheels_that_cover_what_the_text_states_leave_the_day_to_decide() -> None:
    # tensorflow/data-validation#200: Python 3.9 on Linux, for which TFDV has wheels today (not
    # on the day it was written): the table says nothing, so no Python or platform is blamed
    report = _report("https://github.com/tensorflow/data-validation/issues/200")
    said = explain(report["text"], MATRIX, exclude=report["url"], title=report["title"]).report
    assert not any("no release of tensorflow-data-validation" in f.summary for f in said.findings)


def test_a_python_that_came_out_after_tensorflow_had_wheels_for_it_dates_the_text() -> None:
    # tensorflow/tensorflow#31058 (Ubuntu 18.04, Python 3.6.8, settled: the platform's pip could
    # not take the manylinux wheel) and keras-team/autokeras#846 (Python 3.6.8): 3.6.8 came out
    # on 2018-12-24, when PyPI had had tensorflow for 3.6 since 0.12.1; tensorflow/tensorflow#33374
    # (Windows, "Python 3.8", 2019-10, settled: no release had 3.8 wheels yet): 3.8.0 came out
    # before TensorFlow 2.2 had them, so the text may be from then and the Python is why
    for url in (
        "https://github.com/tensorflow/tensorflow/issues/31058",
        "https://github.com/keras-team/autokeras/issues/846",
    ):
        cause, summary = _first(url)
        assert cause == "install_resolution_failed", url
        assert "Python 3.6.8 came out on 2018-12-24, after PyPI had tensorflow wheels" in summary
    cause, _summary = _first("https://github.com/tensorflow/tensorflow/issues/33374")
    assert cause == "python_unsupported"


def test_the_days_of_pythons_and_of_tensorflows_first_wheels_name_their_sources() -> None:
    table = knowledge.read("pythons.yaml")
    assert "python_dates.py" in table["how"]
    assert "python/peps" in table["sources"]["released"]
    assert table["sources"]["tensorflow_first_wheel"].startswith(
        "https://pypi.org/pypi/tensorflow/"
    )
    released = table["released"]
    assert released["3.7.3"] == "2019-03-25"  # PEP 537
    assert released["3.8.0"] == "2019-10-14"  # PEP 569
    first = table["tensorflow_first_wheel"]
    assert first["3.7"]["windows"] == ["2019-02-26", "1.13.1"]
    assert first["3.8"]["linux"] == ["2020-05-07", "2.2.0"]
    for minor, places in first.items():  # every day is ISO, every release final
        for day, release in places.values():
            assert len(day) == 10, minor
            assert day[4] == "-", minor
            assert "rc" not in release, minor
