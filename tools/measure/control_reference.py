"""Measure the control reference: each map claim's between-draw SD of the random-init control, from
a run with 3 or more control draws, written as config/control_reference.csv (config
overview.control_reference, read by the scorecard: analysis/scorecard/control_reference.py).

The run's scorecard writes each control draw's strength for every claim that reads maps
(``scorecard.terms.csv``: ``control_strength1``, ``control_strength2``, ...). This tool writes one row
per claim: the SD of the draws' strengths (k - 1 in the denominator), k, the model and the commit.
A claim with fewer than ``--min-draws`` strengths (a draw not applicable, not run) is listed and
left out; no claim with enough draws stops it, naming what to run.

    snakemake --cores all --configfile config/control_reference.yaml   # 3 control draws
    python -m tools.measure.control_reference                         # results/<model>/ -> config/control_reference.csv
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pandas as pd

from analysis.scorecard.control_reference import COLUMNS, read_control_reference
from tools.measure.seed_reference import MODEL, run_commit, write_reference

DRAW = re.compile(r"^control_strength(?P<draw>\d+)$")


def reference_table(terms: pd.DataFrame, model: str, commit: str, min_draws: int = 3) -> tuple[pd.DataFrame, list]:
    """One row per claim with ``min_draws`` or more draws' strengths (columns of
    :data:`analysis.scorecard.control_reference.COLUMNS`), and the ids with fewer."""
    found = terms["term"].astype(str).str.extract(DRAW)
    rows = terms[found["draw"].notna()].assign(value=lambda t: pd.to_numeric(t["value"], errors="coerce"))
    if rows.empty:
        raise ValueError("no control draws' strengths in the scorecard's terms (control_strength1, ...)")
    out = rows.groupby("id", sort=True)["value"].agg(sd=lambda v: float(v.std(ddof=1)), draws="count").reset_index()
    few = sorted(out.loc[out["draws"] < min_draws, "id"])
    out = out[out["draws"] >= min_draws]
    if out.empty:
        raise ValueError(
            f"no claim has {min_draws} or more control draws: run with --configfile config/control_reference.yaml"
        )
    return out.assign(model=model, commit=commit)[COLUMNS], few


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, default=Path("results"), help="the run's results folder")
    ap.add_argument("--model", default=MODEL, help="model slug under the results folder")
    ap.add_argument("--out", type=Path, default=Path("config/control_reference.csv"))
    ap.add_argument("--min-draws", type=int, default=3, help="fewest draws an SD may rest on")
    ap.add_argument("--commit", help="the run's commit (default: git rev-parse HEAD of the results' checkout)")
    args = ap.parse_args(argv)
    terms_path = args.results / args.model / "tables" / "scorecard.terms.csv"
    if not terms_path.is_file():
        sys.exit(f"{terms_path} not found: run snakemake --cores all --configfile config/control_reference.yaml first")
    try:
        commit = args.commit or run_commit(args.results.resolve().parent)
        table, few = reference_table(pd.read_csv(terms_path, dtype={"group": str}), args.model, commit, args.min_draws)
    except ValueError as e:
        sys.exit(f"{terms_path}: {e}")
    for claim in few:
        print(f"left out {claim}: fewer than {args.min_draws} draws with a strength")
    write_reference(table, args.out, read_control_reference)
    print(f"{args.out}: {len(table)} claims, {args.model} @ {commit[:7]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
