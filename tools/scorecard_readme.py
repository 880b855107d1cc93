"""Put the claim scorecard into README.md: the block between the markers

    <!-- scorecard:begin -->
    <!-- scorecard:end -->

is replaced by results/<model>/scorecard.md (written by rule scorecard), so no number the
scorecard knows is typed into README by hand.

    python tools/scorecard_readme.py                       # default model, README.md in place
    python tools/scorecard_readme.py --model all-MiniLM-L6-v2 --check   # exit 1 if README is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

BEGIN, END = "<!-- scorecard:begin -->", "<!-- scorecard:end -->"


def splice(readme: str, fragment: str) -> str:
    """README text with the block between the markers replaced by ``fragment``."""
    if BEGIN not in readme or END not in readme:
        raise ValueError(f"README has no {BEGIN} ... {END} block")
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{fragment.rstrip()}\n{END}{tail}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="model slug under results/")
    ap.add_argument("--readme", default="README.md")
    ap.add_argument("--check", action="store_true", help="only report whether README is up to date")
    args = ap.parse_args(argv)
    fragment = Path(f"results/{args.model}/scorecard.md")
    if not fragment.exists():
        sys.exit(f"{fragment} not found: run `snakemake results/{args.model}/scorecard.md` first")
    readme = Path(args.readme)
    new = splice(readme.read_text(), fragment.read_text())
    if args.check:
        stale = new != readme.read_text()
        print(f"{readme}: {'stale' if stale else 'up to date'} against {fragment}")
        return int(stale)
    readme.write_text(new)
    print(f"{readme}: scorecard block from {fragment}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
