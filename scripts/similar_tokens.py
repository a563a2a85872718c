"""Write src/tf_gpucheck/knowledge/reports/tokens.json: every solved report's tokens, with the
digest of what makes them (the reports, the rules, the code that reads them), so `gpucheck
explain` loads them instead of reading every report through the rules on each run.

    python scripts/similar_tokens.py

Run it after changing a report, a rule, or the reading code; tests/test_similar.py fails until
the file matches.
"""

from __future__ import annotations

import json
from pathlib import Path

from tf_gpucheck import similar

OUT = (
    Path(__file__).resolve().parents[1] / "src" / "tf_gpucheck" / "knowledge" / similar.TOKENS_FILE
)


def main() -> int:
    data = {"digest": similar.sources_digest(), "tokens": similar.fresh_tokens()}
    OUT.write_text(
        json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8"
    )
    print(f"{OUT}: {len(data['tokens'])} reports")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
