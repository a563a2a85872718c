"""Make docs/notebook-report.png: tf_gpucheck.doctor() as a real Jupyter kernel displays it.

    python scripts/notebook_screenshot.py

Runs a real notebook in a real kernel (this interpreter, started by nbclient) whose PATH points
at another venv (the "!pip install went elsewhere" notebook), takes the report's text/html
output, and photographs it with headless Chromium (apt-get install chromium).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "notebook-report.png"


def main() -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.exit("chromium is not installed (apt-get install -y chromium fonts-dejavu-core)")
    with tempfile.TemporaryDirectory(prefix="gpucheck-shot-") as tmp:
        work = Path(tmp)
        other = work / "other-venv"
        subprocess.run([sys.executable, "-m", "venv", str(other)], check=True)
        spec = work / "jp" / "kernels" / "mismatch"
        spec.mkdir(parents=True)
        (spec / "kernel.json").write_text(
            json.dumps(
                {
                    "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                    "display_name": "mismatch",
                    "language": "python",
                    "env": {"PATH": f"{other}/bin:/usr/bin:/bin", "VIRTUAL_ENV": str(other)},
                }
            )
        )
        os.environ["JUPYTER_PATH"] = str(work / "jp")
        notebook = nbformat.v4.new_notebook()
        notebook.cells = [
            nbformat.v4.new_code_cell("import tf_gpucheck\ntf_gpucheck.doctor(allow_cpu=True)")
        ]
        nbclient.NotebookClient(notebook, timeout=600, kernel_name="mismatch").execute()
        page_html = next(
            o["data"]["text/html"]
            for o in notebook.cells[0].outputs
            if "text/html" in o.get("data", {})
        )
        page = work / "page.html"
        page.write_text(
            "<html><body style='margin:16px;background:#fff'>"
            "<div style='font:12px monospace;color:#555;margin-bottom:8px'>In [1]: "
            "import tf_gpucheck; tf_gpucheck.doctor(allow_cpu=True)</div>"
            f"{page_html}"
            "<script>document.querySelector('details').open = true</script></body></html>"
        )
        OUT.parent.mkdir(exist_ok=True)
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--hide-scrollbars",
             f"--screenshot={OUT}", "--window-size=1040,1100", f"file://{page}"],
            check=True,
            capture_output=True,
        )  # fmt: skip
    print(OUT)


if __name__ == "__main__":
    main()
