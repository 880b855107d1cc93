"""Write docs/families.md's table of the encoder families the workflow runs on, from
``analysis.core.model_families.FAMILIES`` (the list tests/e2e/test_families.py runs the smoke DAG on),
between ``<!-- families:begin -->`` and ``<!-- families:end -->``.

    python tools/families_table.py           # rewrite the block
    python tools/families_table.py --check   # exit 1 if the block is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from page_block import update_block  # noqa: E402

from analysis.core.model_families import FAMILIES  # noqa: E402

PAGE = ROOT / "docs" / "families.md"


def table() -> str:
    rows = ["| family | `model_type` | its attention maps |", "|---|---|---|"]
    rows += [f"| {name} | `{model_type}` | {maps} |" for model_type, (name, maps) in FAMILIES.items()]
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/families.md's block is stale")
    args = ap.parse_args(argv)
    return update_block(PAGE, "families", table(), args.check, "python tools/families_table.py")


if __name__ == "__main__":
    sys.exit(main())
