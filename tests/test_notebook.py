"""``tf_gpucheck.doctor()`` / ``detect()`` in a real Jupyter kernel executing a real notebook.

The kernel is this test environment's interpreter, started by nbclient from a kernelspec whose
``PATH`` and ``VIRTUAL_ENV`` point at another real venv: the classic notebook where ``!pip
install`` goes elsewhere. The report's HTML (what Jupyter, VS Code and Colab display) must name
the cause and write every install fix with ``%pip``.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

pytestmark = pytest.mark.slow


def kernelspec(root: Path, name: str, env: dict[str, str]) -> Path:
    folder = root / "kernels" / name
    folder.mkdir(parents=True)
    (folder / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": name,
                "language": "python",
                "env": env,
            }
        )
    )
    return root


def run_notebook(
    cells: list[str], kernel: str, monkeypatch: pytest.MonkeyPatch, jupyter: Path
) -> list[Any]:
    monkeypatch.setenv("JUPYTER_PATH", str(jupyter))
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name=kernel)
    client.execute()
    return [cell.outputs for cell in notebook.cells]


def output_html(outputs: list[Any]) -> str:
    for output in outputs:
        data = output.get("data", {})
        if "text/html" in data:
            return str(data["text/html"])
    raise AssertionError(f"no text/html output: {outputs}")


def output_text(outputs: list[Any]) -> str:
    return "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in outputs)


@pytest.fixture
def other_venv(tmp_path: Path) -> Path:
    where = tmp_path / "other"
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, capture_output=True)
    return where


def test_pip_on_path_belongs_to_another_venv(
    tmp_path: Path, other_venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jupyter = kernelspec(
        tmp_path / "jp",
        "mismatch",
        {"PATH": f"{other_venv}/bin:/usr/bin:/bin", "VIRTUAL_ENV": str(other_venv)},
    )
    outputs = run_notebook(
        [
            "import shutil, sys; print(sys.executable); print(shutil.which('pip'))",
            "import tf_gpucheck\nreport = tf_gpucheck.doctor(tf=False, allow_cpu=True)\nreport",
            "print([f.cause for f in report.findings if f.check == 'kernel'])",
            "print(report)",
        ],
        "mismatch",
        monkeypatch,
        jupyter,
    )
    where = output_text(outputs[0]).split()
    assert where == [sys.executable, str(other_venv / "bin" / "pip")]
    page = output_html(outputs[1])
    assert "kernel_pip_elsewhere" in page
    assert "%pip install PACKAGE" in page
    assert html.escape(str(other_venv)) in page
    # every install command the page offers installs into the kernel: %pip, never a bare pip
    commands = [
        html.unescape(c) for c in re.findall(r"<pre[^>]*><code>(.*?)</code></pre>", page, re.S)
    ]
    installs = [c for c in commands if re.search(r"\bpip (install|uninstall)\b", c)]
    assert installs
    assert all(re.search(r"(^|[;&] *|\s)%pip (install|uninstall)", c) for c in installs), installs
    assert "\n" not in "".join(commands)  # each command whole on one line
    assert output_text(outputs[2]).strip() == "['kernel_pip_elsewhere']"
    text = output_text(outputs[3])
    assert text.startswith(("FAIL", "WARN"))
    assert "<" not in text.splitlines()[0]  # plain text where no HTML is displayed


def test_tensorflow_imported_before_another_was_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel imported a TensorFlow 2.15.0 (an older install, found first on sys.path
    then); the environment's TensorFlow is another: the kernel must restart."""
    from importlib import metadata

    try:
        installed = metadata.version("tensorflow")
    except metadata.PackageNotFoundError:
        pytest.skip("no TensorFlow installed in the test environment")
    old = tmp_path / "old-install"
    (old / "tensorflow").mkdir(parents=True)
    (old / "tensorflow" / "__init__.py").write_text('__version__ = "2.15.0"\n')
    jupyter = kernelspec(tmp_path / "jp", "plain", {})
    outputs = run_notebook(
        [
            f"import sys\nsys.path.insert(0, {str(old)!r})\nimport tensorflow\nsys.path.remove({str(old)!r})\nprint(tensorflow.__version__)",
            "import tf_gpucheck\nreport = tf_gpucheck.doctor(tf=False, allow_cpu=True, checks=['kernel'])\nreport",
            "print(report.snapshot.kernel.tf_imported, report.snapshot.kernel.tf_installed)",
        ],
        "plain",
        monkeypatch,
        jupyter,
    )
    assert output_text(outputs[0]).strip() == "2.15.0"
    page = output_html(outputs[1])
    assert "kernel_restart_needed" in page
    assert "restart the kernel" in page
    assert output_text(outputs[2]).split() == ["2.15.0", installed]


def test_detect_displays_the_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jupyter = kernelspec(tmp_path / "jp", "plain", {})
    outputs = run_notebook(
        ["import tf_gpucheck\ntf_gpucheck.detect(tf=False)"], "plain", monkeypatch, jupyter
    )
    page = output_html(outputs[0])
    assert "ZMQInteractiveShell" in page
    assert html.escape(sys.executable) in page


def test_outside_a_kernel_there_is_no_kernel_check() -> None:
    import tf_gpucheck

    report = tf_gpucheck.doctor(tf=False, allow_cpu=True, checks=["kernel"])
    assert report.snapshot.kernel is None
    assert [f.status.value for f in report.findings] == ["skip"]
