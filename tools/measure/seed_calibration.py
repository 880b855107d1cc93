"""Calibrate the seed rule: simulated claims on k training seeds whose truth is known, pushed through
the real engine (analysis.scorecard: pool_trainings, evaluate_claim, the seed reference), counting
how often it reads ``holds`` and ``does not hold``.

The shape is the project's: a claim's value is a mean over 14 clusters (GUM dev's documents) shared
by every seed, each seed adds its own offset (between-seed SD 5 x the bootstrap SD of one seed's
value) and a small seed x cluster term, and every seed's replicate table resamples the same clusters
(the run's bootstrap seed), as the rules write them. The truth (the mean over clusters and seeds)
sits on the threshold (every firm verdict is wrong: the size of each direction, at most 2.5% + 2
Monte Carlo SE for a trustworthy rule) or 2 and 3 standard errors above it (the share that reads
``holds``: the power), the standard error being the seed mean's, sqrt(tau^2 / k + sigma^2). Engines:
3 seeds as a random effect (now), 3 seeds' replicates stacked with seed 0's point, firm when 97.5%
agree (as before), and one seed: alone (its bootstrap covers the inputs only), or widened by a seed
reference measured on 5 other seeds of another draw of the data.

    python -m tools.measure.seed_calibration                          # print the table
    python -m tools.measure.seed_calibration --page docs/calibration.md --csv docs/seed_calibration.csv
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.scorecard.evaluate import evaluate_claim
from analysis.scorecard.run import Run
from analysis.scorecard.seed_reference import SeedReference
from analysis.scorecard.trainings import pool_trainings
from analysis.shared.bootstrap import unit_weights, with_resampled
from tools.docs.calibration_table import seed_markdown
from tools.docs.page_block import refresh

T = 0.5  # the threshold
CLUSTERS = 14  # GUM dev's documents
SIGMA_C, SIGMA_I = 0.1, 0.03  # cluster SD; seed x cluster SD
BOOT_SD = float(np.sqrt((SIGMA_C**2 + SIGMA_I**2) / CLUSTERS))  # one seed's value's sampling SD
TAU = 5 * BOOT_SD  # between-seed SD: 5 x the bootstrap SD
SEEDS, REFERENCE_SEEDS = 3, 5
CLAIM = {
    **{"id": "s.x", "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"},
    "check": {"value": {"table": "t", "column": "v"}, "op": ">", "threshold": T},
    "trained": "probes",
}


def standard_error(k: int) -> float:
    """The true standard error of the mean of k seeds' values: sqrt(tau^2 / k + data's)."""
    return float(np.sqrt(TAU**2 / k + (SIGMA_C**2 + SIGMA_I**2 / k) / CLUSTERS))


def seed_values(rng, mean: float, k: int) -> np.ndarray:
    """(k, clusters): each seed's per-cluster values on one draw of the clusters."""
    x = rng.normal(mean, SIGMA_C, CLUSTERS)
    return x[None, :] + rng.normal(0, TAU, k)[:, None] + rng.normal(0, SIGMA_I, (k, CLUSTERS))


def seed_runs(y: np.ndarray, resamples: int, seed: int) -> list[Run]:
    """One Run per seed: its value (the mean over clusters) and its replicate table, every seed
    resampling the same clusters."""
    w = unit_weights(CLUSTERS, resamples, seed)
    reps = (w @ y.T) / w.sum(axis=1, keepdims=True)
    return [
        Run(
            {"t": pd.DataFrame({"v": [row.mean()]})},
            {"t": with_resampled(pd.DataFrame({"replicate": range(resamples), "v": reps[:, s]}), CLUSTERS)},
        )
        for s, row in enumerate(y)
    ]


def random_effect(runs: list[Run], rng) -> str:
    return evaluate_claim(CLAIM, pool_trainings(runs)).verdict


def stacked(runs: list[Run], rng) -> str:
    """As before: every seed's replicates side by side (renumbered), seed 0's point."""
    n = len(runs[0].boots["t"])
    boot = pd.concat([r.boots["t"].assign(replicate=r.boots["t"]["replicate"] + i * n) for i, r in enumerate(runs)])
    return evaluate_claim(CLAIM, Run(runs[0].tables, {"t": boot})).verdict


def one_seed(runs: list[Run], rng) -> str:
    return evaluate_claim(CLAIM, runs[0]).verdict


def with_reference(runs: list[Run], rng) -> str:
    """One seed, widened by the between-seed SD of 5 seeds on another draw of the clusters."""
    sd = float(seed_values(rng, T, REFERENCE_SEEDS).mean(axis=1).std(ddof=1))
    reference = SeedReference("simulated", {"s.x": {"": {"value": (sd, REFERENCE_SEEDS)}}}, "simulated")
    return evaluate_claim(CLAIM, Run(runs[0].tables, runs[0].boots, reference=reference)).verdict


ENGINES = [
    ("3 seeds as a random effect", random_effect, SEEDS, "now"),
    ("3 seeds' replicates stacked, seed 0's point", stacked, SEEDS, "as before"),
    ("1 seed, its bootstrap alone", one_seed, 1, "as before"),
    ("1 seed, widened by a 5-seed reference", with_reference, 1, "now"),
]
TRUTHS = (0.0, 2.0, 3.0)  # the truth's distance above the threshold, in standard errors


def calibrate(datasets: int, resamples: int, seed: int = 0, truths=TRUTHS, engines=ENGINES) -> pd.DataFrame:
    """One row per engine and truth: the share of ``datasets`` simulated datasets read ``holds`` and
    ``does not hold``, with their Monte Carlo standard errors."""
    rows = []
    for name, engine, k, when in engines:
        for truth in truths:
            rng = np.random.default_rng([seed, int(10 * truth), k])
            verdicts = pd.Series(
                [
                    engine(seed_runs(seed_values(rng, T + truth * standard_error(k), k), resamples, seed + i), rng)
                    for i in range(datasets)
                ]
            )
            holds, fails = float((verdicts == "holds").mean()), float((verdicts == "does not hold").mean())
            rows.append(
                {
                    "engine": name,
                    "when": when,
                    "seeds": k,
                    "truth_se": truth,
                    "datasets": datasets,
                    "resamples": resamples,
                    "holds": holds,
                    "does_not_hold": fails,
                    "mc_se_holds": float(np.sqrt(holds * (1 - holds) / datasets)),
                    "mc_se_does_not_hold": float(np.sqrt(fails * (1 - fails) / datasets)),
                }
            )
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=int, default=2000)
    ap.add_argument("--resamples", type=int, default=1000)  # the default run's bootstrap.resamples
    ap.add_argument("--csv", type=Path, help="write the table here")
    ap.add_argument("--page", type=Path, help="a docs page whose seed-calibration block to fill")
    args = ap.parse_args(argv)
    csv = calibrate(args.datasets, args.resamples).to_csv(index=False, float_format="%.4g")
    text = seed_markdown(pd.read_csv(io.StringIO(csv)))  # as tools.docs renders the csv: the same digits
    print(text)
    if args.csv:
        args.csv.write_text(csv)
    if args.page:
        refresh(args.page, "seed-calibration", text, False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
