"""Write the documentation's cause table (docs/causes.md) from src/tf_gpucheck/knowledge/causes.yaml.

    python scripts/docs_causes.py          # rewrite the table between its markers
    python scripts/docs_causes.py --check  # exit 1 if the table is out of date

tests/checks/test_causes.py runs the check.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tf_gpucheck.checks.causedocs import load  # noqa: E402
from tf_gpucheck.render.causes import readme_table  # noqa: E402

START = "<!-- causes: made by scripts/docs_causes.py from knowledge/causes.yaml -->"
END = "<!-- causes: end -->"


def rewritten(readme: str) -> str:
    head, _, rest = readme.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{readme_table(list(load().values()))}{END}{tail}"


def main() -> int:
    path = ROOT / "docs" / "causes.md"
    readme = path.read_text(encoding="utf-8")
    if START not in readme or END not in readme:
        print(f"docs/causes.md has no {START} ... {END} block", file=sys.stderr)
        return 2
    new = rewritten(readme)
    if "--check" in sys.argv:
        return 0 if new == readme else 1
    path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
