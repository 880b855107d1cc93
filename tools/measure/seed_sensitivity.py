"""Does a verdict survive a change of seed? Two small jobs around a second run of the workflow.

``overlay``: a config overlay that shifts every ``seed`` key of the config (its schema defaults filled in) by ``--shift`` (corpus
samples, trainings, CV, MDS, bootstrap): run the workflow with it in a second checkout (or with
another ``--directory``) so the two runs' results do not overwrite each other.

``compare``: the verdict counts of two scorecards (``results/<model>/tables/scorecard.csv``) and
every claim whose verdict differs; a *flip* is a claim that holds in one run (plain, or also at
random init) and does not hold in the other (a move to or from ``inconclusive`` or ``not
applicable`` is not). Exit status 1 when any claim flips.

    python -m tools.measure.seed_sensitivity overlay --shift 1 > seed1.yaml
    python -m tools.measure.seed_sensitivity compare results/all-MiniLM-L6-v2/tables/scorecard.csv ../other/results/all-MiniLM-L6-v2/tables/scorecard.csv
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd
import yaml

from analysis.core.config_defaults import apply_defaults, load_schema

HOLDS = {"holds", "holds, also at random init", "holds (no control)"}
FAILS = {"does not hold"}


def shifted_seeds(config: dict, shift: int) -> dict:
    """The part of ``config`` that holds a ``seed`` key (nested), every seed + ``shift``."""
    out = {}
    for key, value in config.items():
        if key == "seed" and isinstance(value, int) and not isinstance(value, bool):
            out[key] = value + shift
        elif isinstance(value, dict):
            inner = shifted_seeds(value, shift)
            if inner:
                out[key] = inner
    return out


def flips(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Claims whose verdict differs between scorecards ``a`` and ``b`` (by id), with ``flip`` True
    where one holds and the other does not."""
    both = pd.merge(a[["id", "verdict"]], b[["id", "verdict"]], on="id", how="outer", suffixes=("_a", "_b"))
    both = both.fillna("absent")
    differ = both[both.verdict_a != both.verdict_b].copy()
    differ["flip"] = (differ.verdict_a.isin(HOLDS) & differ.verdict_b.isin(FAILS)) | (
        differ.verdict_a.isin(FAILS) & differ.verdict_b.isin(HOLDS)
    )
    return differ.reset_index(drop=True)


def counts(card: pd.DataFrame) -> dict[str, int]:
    return card["verdict"].value_counts().to_dict()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ov = sub.add_parser("overlay", help="print a config overlay with every seed shifted")
    ov.add_argument("--config", default="config/config.default.yaml", help="the config whose seeds are shifted")
    ov.add_argument("--shift", type=int, default=1)
    cmp_ = sub.add_parser("compare", help="verdict counts and changes between two scorecard.csv")
    cmp_.add_argument("a", type=Path)
    cmp_.add_argument("b", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "overlay":
        # every seed the run uses: the config's and the schema's defaults for the keys it leaves out
        config = apply_defaults(yaml.safe_load(Path(args.config).read_text()), load_schema())
        print(f"# every seed of {args.config} + {args.shift} (tools/measure/seed_sensitivity.py)")
        print(yaml.safe_dump(shifted_seeds(config, args.shift), sort_keys=False), end="")
        return 0
    a, b = (pd.read_csv(p) for p in (args.a, args.b))
    print(f"{args.a}: {counts(a)}")
    print(f"{args.b}: {counts(b)}")
    changed = flips(a, b)
    for r in changed.itertuples():
        print(f"{'FLIP' if r.flip else 'moved'} {r.id}: {r.verdict_a} -> {r.verdict_b}")
    print(f"{len(changed)} verdicts differ, {int(changed.flip.sum())} flip between holds and does not hold")
    return 1 if changed.flip.any() else 0


if __name__ == "__main__":
    sys.exit(main())
