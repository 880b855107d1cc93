"""Measure the seed reference: each trained claim's between-seed SD, from a run with 5 or more
training seeds of every family, written as config/seed_reference.csv (config overview.seed_reference,
read by the scorecard: analysis/scorecard/seed_reference.py).

The run's scorecard writes, for every claim judged over k >= 2 seeds, each seed's value of each
quantity (``scorecard.terms.csv``: ``value_seed1``, ... for a value against its threshold,
``difference1_seed1``, ... for an order's adjacent differences; one group per level of ``per``). This
tool reads them and writes one row per claim, level and quantity: the SD of the seeds' values (k - 1
in the denominator), k, the model and the commit. A quantity on fewer than ``--min-seeds`` seeds
stops it, naming the claim; a trained claim with no per-seed value (not applicable, not run, a
premise that failed) is listed and left out (the scorecard then says "not in the reference").

    snakemake --cores all --configfile config/seed_reference.yaml      # the run (long: every family 5 times)
    python -m tools.measure.seed_reference                             # results/<model>/ -> config/seed_reference.csv
    python -m tools.measure.seed_reference --results ../other/results --model all-MiniLM-L6-v2 --out /tmp/ref.csv
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd

from analysis.scorecard.seed_reference import COLUMNS, read_seed_reference

MODEL = "all-MiniLM-L6-v2"  # the default run's
PER_SEED = re.compile(r"^(?P<quantity>value|difference\d+)_seed(?P<seed>\d+)$")


def per_seed_values(terms: pd.DataFrame) -> pd.DataFrame:
    """The per-seed rows of a scorecard terms table: id, group, quantity, seed, value."""
    found = terms["term"].astype(str).str.extract(PER_SEED)
    rows = terms[found["quantity"].notna()].assign(
        quantity=found["quantity"].dropna(), seed=found["seed"].dropna().astype(int)
    )
    rows = rows.assign(group=rows["group"].fillna("").astype(str), value=pd.to_numeric(rows["value"], errors="coerce"))
    return rows[["id", "group", "quantity", "seed", "value"]]


def reference_table(terms: pd.DataFrame, model: str, commit: str, min_seeds: int = 5) -> pd.DataFrame:
    """One row per claim, level and quantity: the between-seed SD of its seeds' values and their
    number (columns of :data:`analysis.scorecard.seed_reference.COLUMNS`). Fewer than ``min_seeds``
    seeds for any of them, or no per-seed value at all, is an error naming what to run."""
    rows = per_seed_values(terms)
    if rows.empty:
        raise ValueError(
            "no per-seed values in the scorecard's terms (value_seed1, ...): was the run made with "
            "--configfile config/seed_reference.yaml (every training family 5 times)?"
        )
    out = (
        rows.groupby(["id", "group", "quantity"], sort=True)["value"]
        .agg(sd=lambda v: float(v.std(ddof=1)), seeds="count")
        .reset_index()
    )
    few = out[out["seeds"] < min_seeds]
    if len(few):
        r = few.iloc[0]
        raise ValueError(
            f"claim {r['id']} {r['group']} {r['quantity']}: {r['seeds']} seeds, fewer than {min_seeds} "
            f"({len(few)} such quantities): rerun with --configfile config/seed_reference.yaml"
        )
    return out.assign(model=model, commit=commit)[COLUMNS]


def run_commit(root: Path) -> str:
    """The commit of the checkout the run was made in (``git rev-parse HEAD``)."""
    got = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True)
    if got.returncode:
        raise ValueError(f"{root}: no git commit ({got.stderr.strip()}); give --commit")
    return got.stdout.strip()


def write_reference(table: pd.DataFrame, out: Path, read_back) -> None:
    """Write a reference table and read it back as the scorecard will (``read_back``): a bad row
    fails here, not in the next run."""
    out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(out, index=False, float_format="%.6g")
    read_back(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, default=Path("results"), help="the run's results folder")
    ap.add_argument("--model", default=MODEL, help="model slug under the results folder")
    ap.add_argument("--out", type=Path, default=Path("config/seed_reference.csv"))
    ap.add_argument("--min-seeds", type=int, default=5, help="fewest seeds a quantity may rest on")
    ap.add_argument("--commit", help="the run's commit (default: git rev-parse HEAD of the results' checkout)")
    args = ap.parse_args(argv)
    tables = args.results / args.model / "tables"
    terms_path, card_path = tables / "scorecard.terms.csv", tables / "scorecard.csv"
    if not terms_path.is_file():
        sys.exit(f"{terms_path} not found: run snakemake --cores all --configfile config/seed_reference.yaml first")
    try:
        commit = args.commit or run_commit(args.results.resolve().parent)
        table = reference_table(pd.read_csv(terms_path, dtype={"group": str}), args.model, commit, args.min_seeds)
    except ValueError as e:
        sys.exit(f"{terms_path}: {e}")
    if card_path.is_file():  # trained claims with no per-seed value: left out, said so
        card = pd.read_csv(card_path)
        absent = card[(pd.to_numeric(card["seeds"], errors="coerce") > 0) & ~card["id"].isin(table["id"])]
        for r in absent.itertuples():
            print(f"left out {r.id}: {r.verdict}, no per-seed value")
    write_reference(table, args.out, read_seed_reference)
    print(f"{args.out}: {len(table)} quantities of {table['id'].nunique()} claims, {args.model} @ {commit[:7]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
