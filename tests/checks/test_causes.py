"""Every cause code is documented from knowledge/causes.yaml, and the documentation's table (docs/causes.md) is made from it."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest

from tests.paths import ROOT
from tf_gpucheck import similar
from tf_gpucheck.checks import causedocs
from tf_gpucheck.checks.diagnosis import DEPTH, EXPLAINS, SYMPTOMS
from tf_gpucheck.reading import logrules

DOCS = causedocs.load()


def used_codes() -> set[str]:
    layers = ROOT / "src" / "tf_gpucheck" / "checks"
    source = "\n".join(p.read_text() for p in layers.rglob("*.py"))
    codes = set(re.findall(r'(?:fail|warn|info)\(\s*"[a-z_]+",\s*"([a-z_]+)"', source))
    codes |= set(DEPTH) | set(SYMPTOMS)
    codes |= {code for causes in EXPLAINS.values() for code in causes}
    codes |= {rule.cause for rule in logrules.load() if rule.cause}
    codes |= {r.cause for r in similar.load_reports() if r.cause}
    return codes | {"log_actionable", "check_crashed"}


def test_every_code_in_use_is_documented() -> None:
    missing = sorted(used_codes() - set(DOCS))
    assert missing == []


@pytest.mark.parametrize("code", sorted(DOCS))
def test_every_entry_is_complete(code: str) -> None:
    doc = DOCS[code]
    assert doc.title.strip()
    assert len(doc.meaning) > 40
    assert doc.confirm
    assert doc.fix
    assert doc.sources
    assert all(re.match(r"https?://\S+$", source) for source in doc.sources), doc.sources
    assert all("\n" not in step for step in doc.confirm)
    assert all("sudo pip" not in fix for _, fix in doc.fix)


def test_the_documentations_table_is_made_from_the_data() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "docs_causes.py"), "--check"], check=False
    )
    assert result.returncode == 0, "run: python scripts/docs_causes.py"


def test_explain_cause_and_list(run_cli: Any) -> None:
    shown = run_cli(["explain", "--cause", "cudnn_version_mismatch"])
    assert shown.exit_code == 0
    assert "confirm it by hand:" in shown.stdout
    assert "Loaded runtime CuDNN library" in shown.stdout  # a message that points to it
    data = run_cli(["explain", "--cause", "container_no_gpu", "--json"]).json()
    assert data["code"] == "container_no_gpu"
    assert {"confirm", "fix", "sources", "messages"} <= set(data)
    listed = run_cli(["explain", "--list"])
    assert listed.exit_code == 0
    assert all(code in listed.stdout for code in DOCS)
    unknown = run_cli(["explain", "--cause", "no_such_thing"])
    assert unknown.exit_code == 2
    assert "no such cause code" in unknown.stderr


def test_a_cause_whose_fix_is_words_has_its_words_in_causes_yaml_alone() -> None:
    """One home per cause: the remedy of a documented cause is causes.yaml's text for the place."""
    from tf_gpucheck.checks import causedocs, remedies
    from tf_gpucheck.checks.diagnosis import Known
    from tf_gpucheck.matrix import load_matrix

    matrix = load_matrix()
    source = (ROOT / "src/tf_gpucheck/checks/remedies.py").read_text(encoding="utf-8")
    for code in remedies.DOCUMENTED:
        fixes = dict(causedocs.doc(code).fix)
        for place, platform in (("kubernetes", "kubernetes"), ("slurm", "slurm"), (None, "linux")):
            said = remedies.fix_for(Known(place=place, os="Linux"), matrix)(code, ())
            expected = fixes.get(platform) or fixes.get("any")
            if expected is not None:
                assert said == expected, (code, place)
        for text in fixes.values():  # the words are not written again in the code
            assert text[:40] not in source, (code, text[:40])


def test_no_remedy_is_a_fixed_text() -> None:
    """A remedy function computes its fix from what is known; words it would return whatever is
    known (a fallback, or one text per platform) belong in causes.yaml, where it reads them."""
    import ast

    tree = ast.parse((ROOT / "src/tf_gpucheck/checks/remedies.py").read_text(encoding="utf-8"))
    fixed = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or not node.decorator_list:
            continue
        decorator = node.decorator_list[0]
        if not (isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") == "remedy"):
            continue
        for returned in ast.walk(node):  # a fixed fallback, or fixed words per platform
            value = returned.value if isinstance(returned, ast.Return) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                fixed.append(f"{node.name}:{value.lineno}")
    assert fixed == []


def test_the_native_windows_fix_names_the_python_the_last_gpu_release_needs() -> None:
    """TensorFlow 2.10, the last native-Windows GPU release, has wheels for Python 3.7-3.10
    (compat_matrix.yaml): for a Python 3.11, ``pip install "tensorflow<2.11"`` finds nothing, and
    the fix says which Python to make its environment with; for a 3.10 it is causes.yaml's."""
    from tf_gpucheck.checks import causedocs, remedies
    from tf_gpucheck.checks.diagnosis import Known
    from tf_gpucheck.matrix import load_matrix

    matrix = load_matrix()
    code = "windows_native_unsupported"
    words = causedocs.fix_where(code, ("windows",))
    fits = remedies.fix_for(Known(os="Windows", python_version="3.10.11"), matrix)(code, ())
    assert fits == words
    newer = remedies.fix_for(Known(os="Windows", python_version="3.11.9"), matrix)(code, ())
    assert newer is not None
    assert words is not None
    assert newer.startswith(words)
    assert "Python 3.7-3.10 only, not 3.11" in newer
    assert "py -3.10 -m venv" in newer
    unknown = remedies.fix_for(Known(os="Windows"), matrix)(code, ())
    assert unknown == words


def test_a_cpu_build_s_fix_keeps_the_release_the_text_states() -> None:
    """A text that states its release gets that release's GPU build, never a move to the newest
    TensorFlow: up to 2.0 the GPU build is tensorflow-gpu beside a CPU-only tensorflow (hsp-panda/
    grasping-benchmarks-panda#22: "Switch out `tensorflow==1.14.0` with `tensorflow-gpu==1.14.0`
    fixes the issue"); from 2.14 on Linux the and-cuda extra of the same release."""
    from tf_gpucheck.checks import remedies
    from tf_gpucheck.checks.diagnosis import Known
    from tf_gpucheck.matrix import load_matrix

    matrix = load_matrix()

    def fix(**known: Any) -> str | None:
        return remedies.fix_for(Known(**known), matrix)("tf_cpu_only_build", ())

    tf1 = fix(tf_version="1.14.0", os="Linux")
    assert tf1 is not None
    assert tf1.startswith('pip uninstall -y tensorflow && pip install "tensorflow-gpu==1.14.0"')
    assert "CUDA 10.0" in tf1  # tensorflow.org's tested build configurations: 1.14.0, CUDA 10.0
    assert fix(tf_version="2.16.1", os="Linux") == (
        'pip uninstall -y tensorflow-cpu && pip install "tensorflow[and-cuda]==2.16.1"'
    )
    unstated = fix(os="Linux")
    assert unstated is not None
    assert "==" not in unstated  # no release stated: none is made up
    windows = fix(tf_version="2.15.0", os="Windows")  # no native Windows GPU build after 2.10
    assert windows is not None
    assert "2.15.0" not in windows
    assert "None" not in windows


def test_a_second_tensorflow_s_fix_keeps_the_stated_release_and_removes_every_copy() -> None:
    """Distributions that share the tensorflow package's files all go before the stated release's
    GPU build is installed (one left behind would be "already satisfied" with its files gone);
    tensorflow-gpu as an alias (2.1 and later) is replaced by the same release of tensorflow."""
    from tf_gpucheck.checks import remedies
    from tf_gpucheck.checks.diagnosis import Known
    from tf_gpucheck.matrix import load_matrix

    matrix = load_matrix()

    def fix(code: str, version: str) -> str | None:
        return remedies.fix_for(Known(tf_version=version, os="Linux"), matrix)(code, ())

    two = fix("multiple_tf_distributions", "1.15.4")
    assert two is not None
    assert two.startswith(
        'pip uninstall -y tensorflow tensorflow-gpu && pip install "tensorflow-gpu==1.15.4"'
    )
    assert fix("multiple_tf_distributions", "2.16.1") == (
        "pip uninstall -y tensorflow tensorflow-cpu tensorflow-gpu && "
        'pip install "tensorflow[and-cuda]==2.16.1"'
    )
    alias = fix("tensorflow_gpu_deprecated", "2.5.0")
    assert alias is not None
    assert alias.startswith('pip uninstall -y tensorflow-gpu && pip install "tensorflow==2.5.0"')
    assert "CUDA 11.2" in alias
