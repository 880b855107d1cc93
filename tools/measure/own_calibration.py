"""Calibrate the verdicts on the project's own data, with power (Card et al. 2020): for each claim, the
run's own per-unit data (per-document head hits and coreference tallies, per-article sums, the
classifiers' per-sentence outputs over their training seeds: :mod:`tools.measure.own_families`) resampled as
new datasets, shifted so that the claim's quantity sits on its threshold, and at +1, +2, +3 and 4
standard errors either side of it; each dataset is then read as the rules and the engine read a
run (documents resampled whole, the real claim spec through :func:`analysis.scorecard.evaluate.evaluate_claim`,
its ``refuted_if`` and ``resolved_if`` included).

Per claim: its size per direction (wrong ``holds`` and wrong ``does not hold`` with the quantity on
the threshold), its power (the right firm verdict at +k SE toward that side), the 80% minimum
detectable effect (the smallest k SE with power >= 80%, interpolated; in SE and in the claim's
units), with Monte Carlo standard errors. A per-level claim has every level placed alike. The
standard error (SE) is the claim quantity's bootstrap SD on the run itself (over training seeds: the
seed mean's, its between-seed SD included; the seeds' draw: :mod:`tools.measure.own_seeds`).

A dataset draws the run's documents with replacement (a new sample of documents); its point table
is the rule's own replicate function with the drawn documents' weights, its replicate table the
same function on resamples of the drawn documents, labelled with the documents drawn (the engine's
few-cluster correction reads it). The shift is additive on the claim's quantity (the value, or an
order's second member), per level.

    python -m tools.measure.own_calibration --units RUN/resources/units/MODEL --tables RUN/results/MODEL/tables
    python -m tools.measure.own_calibration ... --csv docs/own_calibration.csv
    python -m tools.measure.own_calibration ... --interval percentile --claims ID ... --csv docs/own_calibration.csv --append

``python -m tools.docs`` renders docs/calibration.md's table and README's sentence from the csv
(``--check``: they agree).
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from analysis.scorecard.calibrated_tails import read_calibrated_tails
from analysis.scorecard.checks import levels_of
from analysis.scorecard.claims import claim_files, read_claims
from analysis.scorecard.evaluate import ClaimError, evaluate_claim, tables_read
from analysis.scorecard.run import Run
from analysis.scorecard.seed_reference import read_seed_reference
from analysis.shared.bootstrap import cluster_weights
from tools.docs.calibration_table import own_markdown
from tools.measure.own_families import (
    Family,
    coref_family,
    dep_heads_family,
    explanation_family,
    family_claims,
    nested_weights,
    staying_true_family,
    surface_family,
)
from tools.measure.own_rates import GRID, mde, tails_of, tally
from tools.measure.own_rows import appended, tails_table
from tools.measure.own_seeds import family_run, moved_to, placed, seed_offsets
from tools.measure.own_shifts import NotCovered, quantity_of
from tools.measure.seed_reference import run_commit, write_reference

NO_FAMILY = lambda c: f"not covered: no per-unit data of {', '.join(tables_read(c))} in this tool"  # noqa: E731
NOT_APPLICABLE = "not applicable on every dataset (a premise the shift does not move fails on the run's data)"


def _verdict(claim: dict, run: Run) -> tuple[str, float, float]:
    """(verdict, p of holds, p of does not hold) of a claim on one dataset."""
    try:
        out = evaluate_claim(claim, run)
    except ClaimError:  # a dataset that draws no row the claim reads (a relation without arcs): no verdict
        return "no rows", np.nan, np.nan
    j = out.judged
    return out.verdict, *((j.p_holds, j.p_fails) if j is not None else (np.nan, np.nan))


def check_interval(check: dict) -> str:
    """How the claim's replicates make its interval (an order: its differences' percentiles)."""
    return check.get("interval", "percentile")


def calibrate_family(
    family: Family,
    claims: list[dict],
    datasets: int,
    resamples: int,
    seed: int,
    tails=None,
    grid=GRID,
    reference=None,
) -> pd.DataFrame:
    """One row per claim of ``family``: its size, power and MDE over ``datasets`` resampled datasets,
    and its calibrated tails (columns tail_holds, tail_does_not_hold); each claim read at ``tails``
    (:class:`analysis.scorecard.calibrated_tails.CalibratedTails`; None: the nominal level), a
    one-seed claim of a trained family with the seed ``reference`` (:mod:`tools.measure.own_seeds`).
    ``grid=(0,)``: the size and tails alone (power and MDE empty)."""
    g = family.n_clusters
    population = family_run(
        family, np.ones((1, len(family.clusters))), cluster_weights(family.clusters, resamples, seed)
    )
    plans, rows = [], []
    for claim in claims:
        check = claim["check"]
        try:
            quantity = quantity_of(check)
            levels = levels_of(check, population.tables) if check.get("per") else [None]
            where = placed(claim, population, levels, reference)
            if not (where.se > 1e-12).all():  # a constant's SD is rounding noise
                raise NotCovered("its bootstrap SD on the run is 0 (every resample gives the same value)")
            moved_to(claim, quantity, population, levels, where, np.zeros(len(levels)), np.zeros(where.seeds.shape))
        except NotCovered as e:
            rows.append({"claim": claim["id"], "data": family.name, "note": f"not covered: {e}"})
            continue
        plans.append((claim, quantity, levels, where))
    verdicts = {(p[0]["id"], k, d): [] for p in plans for k in GRID for d in (1, -1)}  # empty beyond grid
    rng, seed_rng = np.random.default_rng(seed), np.random.default_rng([seed, 1])  # the seeds' offsets apart
    for _ in range(datasets):
        outer, inner = nested_weights(family.clusters, resamples, rng)
        run = family_run(family, outer[None, :], inner, tails, reference)
        for claim, quantity, levels, where in plans:
            offsets = seed_offsets(where, seed_rng)
            for k in grid:
                for direction in (1, -1) if k else (1,):
                    target = direction * k * where.se
                    moved_claim, moved_run = moved_to(claim, quantity, run, levels, where, target, offsets)
                    verdicts[(claim["id"], k, direction)].append(_verdict(moved_claim, moved_run))
    mc = lambda p: float(np.sqrt(max(p * (1 - p), 0.025 * 0.975) / datasets))  # noqa: E731
    for claim, _, levels, where in plans:
        if all(v[0] == "not applicable" for v in verdicts[(claim["id"], 0, 1)]):  # its premise fails on the run
            rows.append({"claim": claim["id"], "data": family.name, "note": f"not covered: {NOT_APPLICABLE}"})
            continue
        size_holds, size_fails = tally(verdicts[(claim["id"], 0, 1)])
        # the tails these datasets call for (none where they are read at tails already: their p's are scaled)
        tail_holds, tail_fails = tails_of(verdicts[(claim["id"], 0, 1)]) if tails is None else (np.nan, np.nan)
        up = [tally(verdicts[(claim["id"], k, 1)])[0] for k in GRID[1:]]  # NaN beyond grid
        down = [tally(verdicts[(claim["id"], k, -1)])[1] for k in GRID[1:]]
        se_value = float(np.median(where.se))
        mde_holds, mde_fails = mde([size_holds, *up]), mde([size_fails, *down])
        rows.append(
            {
                "claim": claim["id"],
                "data": family.name,
                "interval": check_interval(claim["check"]),
                "clusters": g,
                "levels": len(levels),
                "se": se_value,
                "wrong_holds": size_holds,
                "wrong_does_not_hold": size_fails,
                "mc_se_size": mc(0.025),
                "tail_holds": tail_holds,
                "tail_does_not_hold": tail_fails,
                **{f"power_holds_{k}se": p for k, p in zip(GRID[1:], up)},
                **{f"power_does_not_hold_{k}se": p for k, p in zip(GRID[1:], down)},
                "mde80_holds_se": mde_holds,
                "mde80_does_not_hold_se": mde_fails,
                "mde80_holds": mde_holds * se_value,
                "mde80_does_not_hold": mde_fails * se_value,
                "observed_se_from_threshold": float(np.median(where.seeds.mean(axis=1) / where.se)),
                "seeds": where.seeds.shape[1],
                "seed_sd": float(np.median(where.seed_sd)),
                "seed_sd_from": where.sd_from,
                "datasets": datasets,
                "resamples": resamples,
                "note": "",
            }
        )
    return pd.DataFrame(rows)


def with_interval(claims: list[dict], interval: str | None) -> list[dict]:
    """The claims with their checks' ``interval`` set to ``interval`` (an order: bc or percentile only)."""
    if interval is None:
        return claims
    out = copy.deepcopy(claims)
    for c in out:
        if "value" in c["check"] or interval != "basic":
            c["check"]["interval"] = interval
    return out


class Draws(NamedTuple):
    """How many datasets, each with how many resamples, from which seed, at which shifts (in SE)."""

    datasets: int
    resamples: int
    seed: int = 0
    grid: tuple = GRID


def calibrate(
    units: Path, tables: Path, draws: Draws, only=None, interval=None, tails=None, reference=None
) -> pd.DataFrame:
    """The table of every covered claim (or those in ``only``) read with ``interval`` (None: its own)
    at ``tails`` (None: the nominal level), a trained claim's seeds drawn with the seed ``reference``."""
    own = read_claims(claim_files())
    claims = with_interval(own, interval)
    sums = units.parent.parent / "surface_sums" / units.name  # RUN/resources/surface_sums/MODEL
    builders = {
        units / "dep_heads.gum_sd_dev.npz": lambda: dep_heads_family(units, tables, claims),
        units / "coref_heads.npz": lambda: coref_family(units),
        sums: lambda: surface_family(sums),
        tables / "erasure.single.csv": lambda: explanation_family(tables),
        tables / "staying_true_permutation.csv": lambda: staying_true_family(tables),
    }
    missing = [str(f) for f in builders if not f.exists()]
    if missing:
        raise SystemExit(
            f"no {', '.join(missing)} (rules dep_heads, coref_heads, surface_sums, erasure and staying_true_permutation write them; rerun them)"
        )
    parts, placed_ids = [], set()
    for family in (build() for build in builders.values()):
        chosen = [c for c in family_claims(family, claims) if only is None or c["id"] in only]
        placed_ids |= {c["id"] for c in chosen}
        if chosen:
            parts.append(
                calibrate_family(
                    family, chosen, draws.datasets, draws.resamples, draws.seed, tails, draws.grid, reference
                )
            )
    unplaced = [c for c in claims if c["id"] not in placed_ids and (only is None or c["id"] in only)]
    if unplaced:
        parts.append(pd.DataFrame([{"claim": c["id"], "data": "", "note": NO_FAMILY(c)} for c in unplaced]))
    table = pd.concat(parts, ignore_index=True)
    reads = {c["id"]: check_interval(c["check"]) for c in own}
    if "interval" not in table:  # no claim covered
        table["interval"] = np.nan
    table["now"] = [reads.get(c) == i for c, i in zip(table["claim"], table["interval"])]  # the claim's own interval
    calibrated = lambda c: tails is not None and tails.scale(c) != (1.0, 1.0)  # noqa: E731
    table["tails"] = ["calibrated" if calibrated(c) else "nominal" for c in table["claim"]]
    return table.sort_values("note", kind="stable").reset_index(drop=True)  # the covered claims first


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--units", type=Path, required=True, help="a run's resources/units/<model>")
    ap.add_argument("--tables", type=Path, required=True, help="the same run's results/<model>/tables")
    ap.add_argument("--datasets", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--claims", nargs="*", help="only these claim ids")
    ap.add_argument(
        "--interval",
        choices=["percentile", "basic", "bc", "t"],
        help="read every claim with this interval instead of its own",
    )
    ap.add_argument(
        "--append", action="store_true", help="add the rows to --csv (replacing those of a claim and interval)"
    )
    ap.add_argument("--csv", type=Path, help="write the table here")
    ap.add_argument("--seed", type=int, default=0, help="seed of the datasets and their resamples")
    ap.add_argument("--calibrated-tails", type=Path, help="read every claim at the tails of this file (a check)")
    ap.add_argument(
        "--tails-out", type=Path, help="write the claims' calibrated tails here (config/calibrated_tails.csv)"
    )
    ap.add_argument(
        "--seed-reference",
        type=Path,
        default=Path("config/seed_reference.csv"),
        help="the between-seed SDs a trained claim's seeds are drawn with (none there: its run's own seeds')",
    )
    ap.add_argument("--size-only", action="store_true", help="the size and tails alone (no power: 1/9 of the time)")
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="the run's model, written beside the tails")
    ap.add_argument("--commit", help="the run's commit (default: git rev-parse HEAD of the --units checkout)")
    args = ap.parse_args(argv)
    if args.tails_out and args.calibrated_tails:
        raise SystemExit("--tails-out measures the tails at the nominal level: leave out --calibrated-tails")
    for path, flag in ((args.units, "--units"), (args.tables, "--tables")):
        if not path.is_dir():
            raise SystemExit(f"{flag} {path}: no such folder (a run's resources/units/<model>, results/<model>/tables)")
    tails = read_calibrated_tails(args.calibrated_tails) if args.calibrated_tails else None
    if args.calibrated_tails and tails is None:
        raise SystemExit(f"--calibrated-tails {args.calibrated_tails}: no such file")
    draws = Draws(args.datasets, args.resamples, args.seed, (0,) if args.size_only else GRID)
    reference = read_seed_reference(args.seed_reference)
    table = calibrate(args.units, args.tables, draws, args.claims, args.interval, tails, reference)
    if args.tails_out:
        commit = args.commit or run_commit(args.units.resolve())
        write_reference(tails_table(table, args.model, commit), args.tails_out, read_calibrated_tails)
    if args.append:
        if not (args.csv and args.csv.is_file()):
            raise SystemExit("--append needs an existing --csv")
        table = appended(pd.read_csv(args.csv, keep_default_na=False, na_values=[""]), table)
    if args.csv:
        args.csv.write_text(table.to_csv(index=False, float_format="%.4g"))
    print(own_markdown(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
