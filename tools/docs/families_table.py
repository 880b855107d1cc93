"""Write docs/families.md's table of the encoder families the workflow runs on, from
``analysis.core.model_families.FAMILIES`` (the list tests/e2e/test_families.py runs the smoke DAG on),
between ``<!-- families:begin -->`` and ``<!-- families:end -->``.

    python -m tools.docs.families_table           # rewrite the block
    python -m tools.docs.families_table --check   # exit 1 if the block is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.core.model_families import FAMILIES
from tools.docs.page_block import refresh, update_block

ROOT = Path(__file__).resolve().parents[2]

PAGE = "docs/families.md"


def table() -> str:
    rows = ["| family | `model_type` | its attention maps |", "|---|---|---|"]
    rows += [f"| {name} | `{model_type}` | {maps} |" for model_type, (name, maps) in FAMILIES.items()]
    return "\n".join(rows)


def generate(root: Path, check: bool) -> list[str]:
    """The block of ``root``'s docs/families.md (python -m tools.docs): its stale part, written unless ``check``."""
    return refresh(root / PAGE, "families", table(), check, PAGE)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/families.md's block is stale")
    args = ap.parse_args(argv)
    return update_block(ROOT / PAGE, "families", table(), args.check, "python -m tools.docs.families_table")


if __name__ == "__main__":
    sys.exit(main())
