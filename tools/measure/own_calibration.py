"""Calibrate the verdicts on the project's own data, with power (Card et al. 2020): for each claim, the
run's own per-unit data (per-document head hits, per-document coreference tallies) resampled as
new datasets, shifted so that the claim's quantity sits on its threshold, and at +1, +2, +3 and 4
standard errors either side of it; each dataset is then read as the rules and the engine read a
run (documents resampled whole, the real claim spec through :func:`analysis.scorecard.evaluate.evaluate_claim`,
its ``refuted_if`` and ``resolved_if`` included).

Per claim: its size per direction (wrong ``holds`` and wrong ``does not hold`` with the quantity on
the threshold), its power (the right firm verdict at +k SE toward that side), the 80% minimum
detectable effect (the smallest k SE with power >= 80%, interpolated; in SE and in the claim's
units), with Monte Carlo standard errors. A per-level claim has every level placed alike. The
standard error (SE) is the claim quantity's bootstrap SD on the run itself.

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
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.scorecard.checks import levels_of
from analysis.scorecard.claims import claim_files, read_claims
from analysis.scorecard.evaluate import ClaimError, evaluate_claim
from analysis.scorecard.run import Run
from analysis.scorecard.values import replicate_values, select, side, value
from analysis.shared.bootstrap import cluster_weights, with_resampled
from tools.docs.calibration_table import own_markdown
from tools.measure.own_families import Family, coref_family, dep_heads_family, family_claims, nested_weights, point_of

GRID = (0, 1, 2, 3, 4)  # the claim quantity's true value, in SE toward a side
POWER = 0.8


@dataclass
class Quantity:
    """How a claim's quantity (side-signed: > 0 is its holding side) moves with the data: the spec
    whose rows are shifted, and the quantity's change per unit added to them (a value with a
    computed column and no levels moves its threshold instead)."""

    spec: dict
    factor: float


class NotCovered(ValueError):
    """A claim this calibration cannot shift (an order of more than two values; computed columns per level)."""


def quantity_of(check: dict) -> Quantity:
    if "value" in check:
        return Quantity(check["value"], float(side(check["op"]) or 1))
    if len(check["greater"]) == 2:
        return Quantity(check["greater"][1], -1.0)
    raise NotCovered(f"an order of {len(check['greater'])} values")


def quantities(check: dict, run: Run, level_key) -> tuple[np.ndarray, np.ndarray]:
    """Per level: the quantity on the run's point tables and its bootstrap SD."""
    q, se = [], []
    for lv in level_key:
        where = None if lv is None else {check["per"]: lv}
        if "value" in check:
            s = side(check["op"]) or 1
            v = value(check["value"], run.tables, where)
            reps = pd.to_numeric(replicate_values(check["value"], run.boots, where), errors="coerce")
            q.append(s * (float(v) - check["threshold"]))
            se.append(float((s * reps).std()))
        else:
            a, b = (value(sp, run.tables, where) for sp in check["greater"])
            ra, rb = (pd.to_numeric(replicate_values(sp, run.boots, where), errors="coerce") for sp in check["greater"])
            q.append(float(a) - float(b) - check.get("margin", 0.0))
            se.append(float((ra - rb).std()))
    return np.array(q), np.array(se)


def shifted(frames: dict, spec: dict, per, levels, deltas) -> dict:
    """``frames`` with ``deltas`` (per level) added to ``spec``'s column on the rows it reads."""
    df = frames[spec["table"]].copy()
    col = spec["column"]
    if col not in df.columns:
        raise NotCovered(f"computed column {col!r} read per level")
    rows = select(df.assign(_row=np.arange(len(df))), spec.get("where"))
    for lv, d in zip(levels, deltas):
        at = rows if lv is None else select(rows, {per: lv})
        df.iloc[at["_row"].to_numpy(), df.columns.get_loc(col)] += d
    return {**frames, spec["table"]: df}


def _moved(claim: dict, quantity: Quantity, run: Run, levels, change: np.ndarray) -> tuple[dict, Run]:
    """The claim and run with each level's quantity moved by ``change``."""
    check = claim["check"]
    if len(levels) == 1 and quantity.spec["column"] not in run.tables[quantity.spec["table"]].columns:
        moved = copy.deepcopy(claim)  # the value moves by change == the threshold by -change
        moved["check"]["threshold"] = check["threshold"] - (side(check["op"]) or 1) * float(change[0])
        return moved, run
    deltas = change / quantity.factor
    per = check.get("per")
    return claim, Run(
        shifted(run.tables, quantity.spec, per, levels, deltas), shifted(run.boots, quantity.spec, per, levels, deltas)
    )


def _verdict(claim: dict, run: Run) -> str:
    try:
        return evaluate_claim(claim, run).verdict
    except ClaimError:  # a dataset that draws no row the claim reads (a relation without arcs): no verdict
        return "no rows"


def check_interval(check: dict) -> str:
    """How the claim's replicates make its interval (an order: its differences' percentiles)."""
    return check.get("interval", "percentile")


def tally(verdicts: list[str]) -> tuple[float, float]:
    n = len(verdicts)
    return sum(v == "holds" for v in verdicts) / n, sum(v == "does not hold" for v in verdicts) / n


def mde(power: list[float]) -> float:
    """The smallest k (SE) where power reaches 80%, interpolated linearly on GRID; inf beyond it."""
    for (k0, p0), (k1, p1) in zip(zip(GRID, power), zip(GRID[1:], power[1:])):
        if p1 >= POWER:
            return float(k1) if p0 >= POWER or p1 == p0 else k0 + (POWER - p0) / (p1 - p0) * (k1 - k0)
    return float("inf")


def calibrate_family(family: Family, claims: list[dict], datasets: int, resamples: int, seed: int) -> pd.DataFrame:
    """One row per claim of ``family``: its size, power and MDE over ``datasets`` resampled datasets."""
    g = family.n_clusters
    observed = family.make(np.ones((1, len(family.clusters))))
    population = Run(
        point_of(observed),
        {k: with_resampled(v, g) for k, v in family.make(cluster_weights(family.clusters, resamples, seed)).items()},
    )
    plans, rows = [], []
    for claim in claims:
        check = claim["check"]
        try:
            quantity = quantity_of(check)
            levels = levels_of(check, population.tables) if check.get("per") else [None]
            q, se = quantities(check, population, levels)
            if not (se > 1e-12).all():  # a constant's SD is rounding noise
                raise NotCovered("its bootstrap SD on the run is 0 (every resample gives the same value)")
            _moved(claim, quantity, population, levels, np.zeros(len(levels)))
        except NotCovered as e:
            rows.append({"claim": claim["id"], "data": family.name, "note": f"not covered: {e}"})
            continue
        plans.append((claim, quantity, levels, q, se))
    verdicts = {(p[0]["id"], k, d): [] for p in plans for k in GRID for d in (1, -1)}
    rng = np.random.default_rng(seed)
    for _ in range(datasets):
        outer, inner = nested_weights(family.clusters, resamples, rng)
        run = Run(
            point_of(family.make(outer[None, :])), {k: with_resampled(v, g) for k, v in family.make(inner).items()}
        )
        for claim, quantity, levels, q, se in plans:
            for k in GRID:
                for direction in (1, -1) if k else (1,):
                    moved_claim, moved_run = _moved(claim, quantity, run, levels, direction * k * se - q)
                    verdicts[(claim["id"], k, direction)].append(_verdict(moved_claim, moved_run))
    mc = lambda p: float(np.sqrt(max(p * (1 - p), 0.025 * 0.975) / datasets))  # noqa: E731
    for claim, _, levels, q, se in plans:
        size_holds, size_fails = tally(verdicts[(claim["id"], 0, 1)])
        up = [tally(verdicts[(claim["id"], k, 1)])[0] for k in GRID[1:]]
        down = [tally(verdicts[(claim["id"], k, -1)])[1] for k in GRID[1:]]
        se_value = float(np.median(se))
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
                **{f"power_holds_{k}se": p for k, p in zip(GRID[1:], up)},
                **{f"power_does_not_hold_{k}se": p for k, p in zip(GRID[1:], down)},
                "mde80_holds_se": mde_holds,
                "mde80_does_not_hold_se": mde_fails,
                "mde80_holds": mde_holds * se_value,
                "mde80_does_not_hold": mde_fails * se_value,
                "observed_se_from_threshold": float(np.median(q / np.where(se > 0, se, np.nan))),
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


def calibrate(
    units: Path, tables: Path, datasets: int, resamples: int, seed: int = 0, only=None, interval=None
) -> pd.DataFrame:
    own = read_claims(claim_files())
    claims = with_interval(own, interval)
    builders = {
        "dep_heads.gum_sd_dev.npz": lambda: dep_heads_family(units, tables, claims),
        "coref_heads.npz": lambda: coref_family(units),
    }
    missing = [f for f in builders if not (units / f).exists()]
    if missing:
        raise SystemExit(f"{units}: no {', '.join(missing)} (rules dep_heads and coref_heads write them; rerun them)")
    parts = []
    for family in (build() for build in builders.values()):
        chosen = [c for c in family_claims(set(family.stems), claims) if only is None or c["id"] in only]
        if chosen:
            parts.append(calibrate_family(family, chosen, datasets, resamples, seed))
    table = pd.concat(parts, ignore_index=True)
    reads = {c["id"]: check_interval(c["check"]) for c in own}
    table["now"] = [reads.get(c) == i for c, i in zip(table["claim"], table["interval"])]  # the claim's own interval
    return table.sort_values("note", kind="stable").reset_index(drop=True)  # the covered claims first


def appended(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """``old`` with ``new``'s rows, each replacing a row of the same claim and interval, placed after
    its claim's other rows (claims in ``old``'s order)."""
    key = lambda t: list(zip(t["claim"], t["interval"].fillna("")))  # noqa: E731
    kept = old[[k not in set(key(new)) for k in key(old)]]
    out = pd.concat([kept, new], ignore_index=True)
    order = {c: i for i, c in enumerate(dict.fromkeys([*old["claim"], *new["claim"]]))}
    return out.sort_values("claim", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--units", type=Path, required=True, help="a run's resources/units/<model>")
    ap.add_argument("--tables", type=Path, required=True, help="the same run's results/<model>/tables")
    ap.add_argument("--datasets", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--claims", nargs="*", help="only these claim ids")
    ap.add_argument(
        "--interval",
        choices=["percentile", "basic", "bc"],
        help="read every claim with this interval instead of its own",
    )
    ap.add_argument(
        "--append", action="store_true", help="add the rows to --csv (replacing those of a claim and interval)"
    )
    ap.add_argument("--csv", type=Path, help="write the table here")
    args = ap.parse_args(argv)
    for path, flag in ((args.units, "--units"), (args.tables, "--tables")):
        if not path.is_dir():
            raise SystemExit(f"{flag} {path}: no such folder (a run's resources/units/<model>, results/<model>/tables)")
    table = calibrate(args.units, args.tables, args.datasets, args.resamples, only=args.claims, interval=args.interval)
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
