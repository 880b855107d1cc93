"""The tables of rule rollout from the per-token scores of :mod:`analysis.beyond_papers.rollout_compare`
(``token_table``): per input the Spearman correlation of each method's scores with each importance
target (``spearman_table``), their summary per layer and method with bootstrap intervals
(``summary_table``), the methods compared pairwise on the same inputs (``paired_table``), and the
input drawn as the example (``pick_example``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.beyond_papers.rollout_compare import METHODS, TARGETS
from analysis.core.glue.metrics import spearman
from analysis.shared.bootstrap import percentile_interval, resamples


def authors_spearman(x, y) -> float:
    """Abnar & Zuidema's own formula (their ``run_bert_sv``): 1 - 6 sum d^2 / (n (n^2 - 1)) on
    dense ranks (tied values share a rank, the next value takes the next integer), with no tie
    correction: under ties it is no correlation (it can read above or below the tie-corrected value;
    flow's scores, tied by its min cut, read higher on the default run)."""
    rx = np.unique(np.asarray(x), return_inverse=True)[1]
    ry = np.unique(np.asarray(y), return_inverse=True)[1]
    n = len(rx)
    return float(1 - 6 * ((rx - ry) ** 2).sum() / (n * (n * n - 1)))


def spearman_table(tokens: pd.DataFrame, min_tokens: int = 3) -> pd.DataFrame:
    """Per (input, layer, method, target): Spearman of the method's scores at that layer with
    the target over the input's scored tokens; inputs with fewer than ``min_tokens`` of them are
    left out, and a constant vector (e.g. no blanked token changes the probability) gives NaN.
    Beside it, ``spearman_authors``: :func:`authors_spearman`, a constant vector counted as 0 (as
    their code does)."""
    targets = [t for t in TARGETS if t in tokens]
    columns = ["id", "layer", "method", "target", "spearman", "spearman_authors", "n_tokens"]
    rows = []
    for (input_id, layer), g in tokens[tokens.scored].groupby(["id", "layer"], sort=False):
        if len(g) < min_tokens:
            continue
        for method in METHODS:
            scores = g[method].to_numpy()
            if np.isnan(scores).any():
                continue  # flow not computed for this input
            for target in targets:
                importance = g[target].to_numpy()
                undefined = np.ptp(importance) == 0 or np.ptp(scores) == 0
                rho = np.nan if undefined else spearman(scores, importance)
                rows.append(
                    {
                        "id": input_id,
                        "layer": layer,
                        "method": method,
                        "target": target,
                        "spearman": rho,
                        "spearman_authors": 0.0 if undefined else authors_spearman(scores, importance),
                        "n_tokens": len(g),
                    }
                )
    return pd.DataFrame(rows, columns=columns).sort_values(
        ["target", "layer", "method"], kind="stable", ignore_index=True
    )


def summary_table(per_input: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Per (target, layer, method): inputs, mean (with its bootstrap 95% interval) / median /
    quartiles of the Spearman correlations, the share above zero; NaN correlations (constant
    vectors) are counted, not averaged."""
    rows = []
    for (target, layer, method), g in per_input.groupby(["target", "layer", "method"], sort=False):
        rho = g["spearman"]
        ok = rho.dropna()
        rows.append(
            {
                "target": target,
                "layer": layer,
                "method": method,
                "inputs": int(len(rho)),
                "undefined": int(rho.isna().sum()),
                "mean": ok.mean(),
                "median": ok.median(),
                "q25": ok.quantile(0.25),
                "q75": ok.quantile(0.75),
                "share_positive": float((ok > 0).mean()) if len(ok) else np.nan,
                **dict(zip(("mean_ci95_low", "mean_ci95_high"), bootstrap_ci(ok.to_numpy(), n_boot, seed))),
            }
        )
    return _ordered(pd.DataFrame(rows))


def bootstrap_ci(values: np.ndarray, n_boot: int, seed: int) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean (``analysis.shared.bootstrap``; seeded; NaN
    for fewer than 2 values)."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return np.nan, np.nan
    return percentile_interval(values[resamples(len(values), n_boot, seed)].mean(axis=1))


def paired_table(per_input: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Per (target, layer) and pair of methods, on the inputs where both are defined: mean
    difference of the Spearman correlations (with its bootstrap interval) and the share of
    inputs where the first is higher."""
    rows = []
    for (target, layer), g in per_input.groupby(["target", "layer"], sort=False):
        wide = g.pivot(index="id", columns="method", values="spearman")
        for a, b in (("rollout", "raw"), ("flow", "raw"), ("flow", "rollout")):
            if a not in wide or b not in wide:
                continue
            both = wide[[a, b]].dropna()
            diff = both[a] - both[b]
            rows.append(
                {
                    "target": target,
                    "layer": layer,
                    "first": a,
                    "second": b,
                    "inputs": len(both),
                    "mean_difference": diff.mean(),
                    "share_first_higher": float((diff > 0).mean()) if len(both) else np.nan,
                    **dict(
                        zip(
                            ("difference_ci95_low", "difference_ci95_high"), bootstrap_ci(diff.to_numpy(), n_boot, seed)
                        )
                    ),
                }
            )
    return _ordered(pd.DataFrame(rows))


def _ordered(table: pd.DataFrame) -> pd.DataFrame:
    """Targets in ``TARGETS`` order, then layers, methods in ``METHODS`` order."""
    if table.empty:
        return table
    key = {"target": TARGETS.index, "method": METHODS.index, "first": METHODS.index}
    by = [c for c in ("target", "layer", "method", "first") if c in table]
    return table.sort_values(by, key=lambda s: s.map(key[s.name]) if s.name in key else s, ignore_index=True)


def pick_example(tokens: pd.DataFrame, max_tokens: int) -> str:
    """The first input (in draw order) with flow computed and at most ``max_tokens`` tokens
    (special included), else the shortest one with flow."""
    last = tokens[tokens.layer == tokens.layer.max()]
    sizes = last.groupby("id", sort=False).agg(n=("position", "size"), flow=("flow", lambda f: f.notna().all()))
    with_flow = sizes[sizes.flow] if sizes.flow.any() else sizes
    fits = with_flow[with_flow.n <= max_tokens]
    return str(fits.index[0] if len(fits) else with_flow.n.idxmin())
