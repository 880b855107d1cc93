"""Calibrate the verdict engine: push synthetic claim tables whose truth is known through the real
engine (analysis.scorecard) and count how often it gives a firm verdict that is wrong.

Each shape is one way a verdict can be fooled; the truth of each is "not firmly decidable" (the value
sits on the threshold, the heads tie, the control equals the model ...), so every firm verdict is
wrong. For each shape, ``--datasets`` datasets are simulated (seeded), each resampled ``--resamples``
times as the rules do, and the engine's verdicts counted: the rate of a wrong "holds" and of a wrong
"does not hold". A trustworthy engine keeps each at or under 2.5% (5% together); rows marked "as
before" show the way the project used to read the same data, for comparison.

    python -m tools.measure.calibration                          # print the table
    python -m tools.measure.calibration --page docs/calibration.md --csv docs/calibration.csv
    python -m tools.measure.calibration --page docs/calibration.md --csv docs/calibration.csv --check
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.scorecard.claims import scorecard
from analysis.scorecard.evaluate import evaluate_claim
from analysis.scorecard.run import Run
from analysis.scorecard.trainings import pool_trainings
from analysis.shared.bootstrap import RESAMPLED, unit_weights, with_resampled
from analysis.shared.head_selection import two_fold
from tools.docs.calibration_table import markdown
from tools.docs.page_block import refresh

T = 0.5  # every shape's threshold
BASE = {"id": "s.x", "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"}


def claim(check, **kw) -> dict:
    return {**BASE, "check": check, **kw}


ABOVE = {"value": {"table": "t", "column": "v"}, "op": ">", "threshold": T}


def weighted_mean(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return (w @ x) / w.sum(axis=1)


def table_and_boot(point: float, stats: np.ndarray, units: int | None = None) -> tuple[dict, dict]:
    """The point table and the replicate table of one value; ``units``: the units each resample
    drew, written as the rules write it (None: as before, infinitely many: the plain percentile interval)."""
    boot = pd.DataFrame({"replicate": range(len(stats)), "v": stats})
    return {"t": pd.DataFrame({"v": [point]})}, {
        "t": boot.assign(**{RESAMPLED: np.inf}) if units is None else with_resampled(boot, units)
    }


def on_threshold(rng, resamples, seed, written=True):
    """200 units whose true mean is the threshold: a claim on their mean (now: the table says it
    drew 200 units, and the interval is read with 199 degrees of freedom)."""
    x = rng.normal(T, 0.3, 200)  # continuous: no value equals the threshold itself
    w = unit_weights(len(x), resamples, seed)
    return [claim(ABOVE)], *table_and_boot(x.mean(), weighted_mean(x, w), len(x) if written else None)


def on_threshold_percentile(rng, resamples, seed):
    """200 units on the threshold, read as the plain percentile interval (as before)."""
    return on_threshold(rng, resamples, seed, written=False)


def _heads(rng, n=200, heads=3):
    return rng.binomial(1, T, (n, heads)).astype(float)  # every head's true accuracy: the threshold


def heads_in_sample(rng, resamples, seed):
    """Three heads tied at the threshold, the best chosen on the data it is scored on (as before)."""
    x = _heads(rng)
    w = unit_weights(len(x), resamples, seed)
    stats = (w @ x / w.sum(axis=1, keepdims=True)).max(axis=1)
    return [claim(ABOVE)], *table_and_boot(x.mean(axis=0).max(), stats)


def _cross_fit(x: np.ndarray, w: np.ndarray) -> float:
    """The best head chosen on one half of the units and scored on the other, both ways, as the
    coreference heads do (analysis.shared.head_selection.two_fold; ``w``: the units' multiplicities)."""
    fold = np.arange(len(x)) % 2
    correct = [{"all": ((w * (fold == f)) @ x)[None, :]} for f in (0, 1)]
    hits, _ = two_fold(correct, ["all"])
    return hits["all"] / w.sum()


def heads_cross_fit(rng, resamples, seed):
    """Three heads tied at the threshold, the best chosen on one fold and scored on the other (now)."""
    x = _heads(rng)
    w = unit_weights(len(x), resamples, seed)
    stats = np.array([_cross_fit(x, row) for row in w])
    return [claim(ABOVE)], *table_and_boot(_cross_fit(x, np.ones(len(x))), stats, len(x))


def _clustered(rng, n_clusters=15, size=20):
    """Units in clusters that share most of their value (documents, articles); true mean = threshold."""
    centre = np.repeat(rng.normal(T, 0.15, n_clusters), size)
    return centre + rng.normal(0, 0.05, n_clusters * size), np.repeat(np.arange(n_clusters), size)


def clusters_as_units(rng, resamples, seed):
    """Clustered units resampled one by one (as before)."""
    x, _ = _clustered(rng)
    w = unit_weights(len(x), resamples, seed)
    return [claim(ABOVE)], *table_and_boot(x.mean(), weighted_mean(x, w))


def clusters_resampled(rng, resamples, seed, n_clusters=15):
    """Clustered units resampled by cluster (now); 15 clusters as GUM dev's 14 documents."""
    x, cluster = _clustered(rng, n_clusters, 300 // n_clusters)
    cw = unit_weights(cluster.max() + 1, resamples, seed)
    tables, boots = table_and_boot(x.mean(), weighted_mean(x, cw[:, cluster]))
    # the clusters each resample drew, as the rules write them: the engine widens the interval for few
    return [claim(ABOVE)], tables, {"t": with_resampled(boots["t"], n_clusters)}


def clusters_percentile(rng, resamples, seed):
    """15 clusters resampled by cluster, read as the plain percentile interval (as before): a table
    that says it drew infinitely many units (resampled_units inf; one that does not say is an error)."""
    claims, tables, boots = clusters_resampled(rng, resamples, seed)
    return claims, tables, {"t": boots["t"].assign(**{RESAMPLED: np.inf})}


def few_clusters_resampled(rng, resamples, seed):
    """5 clusters resampled by cluster: fewer than 10, never firm (analysis.scorecard.few_units.MIN_CLUSTERS)."""
    return clusters_resampled(rng, resamples, seed, n_clusters=5)


def many_clusters_resampled(rng, resamples, seed):
    """60 clusters resampled by cluster, as the 62 Wikipedia articles of the default run."""
    return clusters_resampled(rng, resamples, seed, n_clusters=60)


def _seeds(rng, k=3):
    """k trainings whose values scatter by seed around the threshold (no bootstrap)."""
    return rng.normal(T, 0.05, k)


def seeds_t_interval(rng, resamples, seed):
    """Three seeds, no bootstrap: the seeds' mean and a t interval (now)."""
    pooled = pool_trainings([Run({"t": pd.DataFrame({"v": [v]})}) for v in _seeds(rng)])
    return [claim(ABOVE)], pooled.tables, pooled.boots


def seeds_agreement(rng, resamples, seed):
    """Three seeds read as three replicates, firm when all agree (as before)."""
    values = _seeds(rng)
    return [claim(ABOVE)], *table_and_boot(values[0], values.repeat(40))  # 3 values, equal weight


def reversed_pair(rng, resamples, seed):
    """An order a > b > c where a and b are equal in truth and b > c clearly: it does not hold, but
    no data can show a > b firmly either way."""
    x = rng.normal([0.6, 0.6, 0.3], 0.2, (200, 3))
    w = unit_weights(len(x), resamples, seed)
    stats = w @ x / w.sum(axis=1, keepdims=True)
    boot = pd.DataFrame({"replicate": range(resamples), "a": stats[:, 0], "b": stats[:, 1], "c": stats[:, 2]})
    boot = with_resampled(boot, len(x))
    point = pd.DataFrame({"a": [x[:, 0].mean()], "b": [x[:, 1].mean()], "c": [x[:, 2].mean()]})
    spec = lambda col: {"table": "t", "column": col}  # noqa: E731
    return [claim({"greater": [spec("a"), spec("b"), spec("c")]})], {"t": point}, {"t": boot}


def control_equal(rng, resamples, seed):
    """A model and a random-init control drawn alike (both above the threshold): a claim that the
    model learnt it must not read as support."""
    x = rng.binomial(1, 0.7, (200, 2)).astype(float)
    w = unit_weights(len(x), resamples, seed)  # the same resamples for both, as the rules draw them
    stats = w @ x / w.sum(axis=1, keepdims=True)
    model = table_and_boot(x[:, 0].mean(), stats[:, 0], len(x))
    control = table_and_boot(x[:, 1].mean(), stats[:, 1], len(x))
    return [claim(ABOVE, reads_maps=True, control="learned")], model, control


SHAPES = [
    ("a value on its threshold, plain percentile interval", on_threshold_percentile, "as before"),
    ("a value on its threshold, 199 degrees of freedom", on_threshold, "now"),
    ("three heads tied at it, best chosen in-sample", heads_in_sample, "as before"),
    ("three heads tied at it, best chosen on the other fold", heads_cross_fit, "now"),
    ("15 clusters' units resampled one by one", clusters_as_units, "as before"),
    ("15 clusters resampled by cluster, percentile interval", clusters_percentile, "as before"),
    ("15 clusters resampled by cluster, widened for few clusters", clusters_resampled, "now"),
    ("5 clusters resampled by cluster (fewer than 10: never firm)", few_clusters_resampled, "now"),
    ("60 clusters resampled by cluster", many_clusters_resampled, "now"),
    ("3 seeds, k-of-k agreement", seeds_agreement, "as before"),
    ("3 seeds, t interval", seeds_t_interval, "now"),
    ("an order with a pair equal in truth", reversed_pair, "now"),
    ("a control equal to the model", control_equal, "now"),
]


def verdict(case) -> str:
    claims, *rest = case
    if len(rest) == 2 and isinstance(rest[0], tuple):  # model and control runs
        (tables, boots), (c_tables, c_boots) = rest
        return scorecard(claims, Run(tables, boots), [Run(c_tables, c_boots)]).iloc[0].verdict
    tables, boots = rest
    return evaluate_claim(claims[0], Run(tables, boots)).verdict


def calibrate(datasets: int, resamples: int, seed: int = 0) -> pd.DataFrame:
    rows = []
    for name, make, when in SHAPES:
        rng = np.random.default_rng(seed)
        verdicts = [verdict(make(rng, resamples, seed + i)) for i in range(datasets)]
        counts = pd.Series(verdicts).value_counts()
        rows.append(
            {
                "shape": name,
                "engine": when,
                "datasets": datasets,
                "resamples": resamples,
                "wrong_holds": counts.get("holds", 0) / datasets,
                "wrong_does_not_hold": counts.get("does not hold", 0) / datasets,
                # Monte Carlo standard error of a rate of 2.5% over these datasets
                "mc_se_at_2.5pct": float(np.sqrt(0.025 * 0.975 / datasets)),
            }
        )
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=int, default=4000)  # +-0.5% at a rate of 2.5% (two Monte Carlo SE)
    ap.add_argument("--resamples", type=int, default=1000)  # the default run's bootstrap.resamples
    ap.add_argument("--csv", type=Path, help="write the table here")
    ap.add_argument("--page", type=Path, help="a docs page whose calibration block to fill")
    ap.add_argument("--check", action="store_true", help="exit 1 if the csv or the page differ from a new run")
    args = ap.parse_args(argv)
    table = calibrate(args.datasets, args.resamples)
    text = markdown(table)
    if not args.csv and not args.page:
        print(text)
        return 0
    stale = []
    if args.csv:
        new = table.to_csv(index=False, float_format="%.4g")
        if args.check and (not args.csv.exists() or args.csv.read_text() != new):
            stale.append(str(args.csv))
        elif not args.check:
            args.csv.write_text(new)
    if args.page:
        stale += refresh(args.page, "calibration", text, args.check)
    if stale and args.check:
        print("stale: " + ", ".join(stale) + " (python -m tools.measure.calibration --page ... --csv ...)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
