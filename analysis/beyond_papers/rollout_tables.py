"""The tables of rule rollout from the per-token scores of :mod:`analysis.beyond_papers.rollout_compare`
(``token_table``): per input the Spearman correlation of each method's scores with each importance
target (``spearman_table``), their summary per layer and method with bootstrap intervals, the
three methods on the inputs they share (``summary_table``), the methods compared pairwise on the
same inputs (``paired_table``), the authors' own logged run beside both (``authors_log``,
``with_authors_log``), and the input drawn as the example (``pick_example``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.beyond_papers.rollout_compare import METHODS, TARGETS
from analysis.core.glue.metrics import spearman
from analysis.shared.bootstrap import percentile_interval, resample_indices

SUBSETS = ("common", "all")


def authors_spearman(x, y) -> float:
    """Abnar & Zuidema's own formula (the ``spearmanr`` of their SST-2 script,
    ``compute_corel_distilbert_sst.py``; their ``run_bert_sv.py`` calls scipy's): 1 - 6 sum d^2 /
    (n (n^2 - 1)) on dense ranks (tied values share a rank, the next value takes the next integer),
    with no tie correction: under ties it is no correlation (it can read above or below the
    tie-corrected value; flow's scores, tied by its min cut, read higher on the default run). A
    constant vector gives a finite number (all its ranks equal), as in their script."""
    rx = np.unique(np.asarray(x), return_inverse=True)[1]
    ry = np.unique(np.asarray(y), return_inverse=True)[1]
    n = len(rx)
    return float(1 - 6 * ((rx - ry) ** 2).sum() / (n * (n * n - 1)))


def spearman_table(tokens: pd.DataFrame, min_tokens: int = 3) -> pd.DataFrame:
    """Per (input, layer, method, target): Spearman of the method's scores at that layer with
    the target over the input's scored tokens; inputs with fewer than ``min_tokens`` of them are
    left out, and a constant vector (e.g. no blanked token changes the probability) gives NaN.
    Beside it, ``spearman_authors``: :func:`authors_spearman`, finite on a constant vector too (as
    their SST-2 script computes it)."""
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
                        "spearman_authors": authors_spearman(scores, importance),
                        "n_tokens": len(g),
                    }
                )
    return pd.DataFrame(rows, columns=columns).sort_values(
        ["target", "layer", "method"], kind="stable", ignore_index=True
    )


def common_inputs(per_input: pd.DataFrame) -> pd.DataFrame:
    """The rows of the inputs that every method of the table was computed on, per target and layer
    (flow's subsample when flow was computed on fewer inputs)."""
    methods = per_input.groupby(["target", "layer", "id"]).method.transform("nunique")
    return per_input[methods == per_input.method.nunique()]


def summary_table(per_input: pd.DataFrame, resamples: int, seed: int) -> pd.DataFrame:
    """Per (target, layer, method): inputs, mean (with its bootstrap 95% interval) / median /
    quartiles of the Spearman correlations, the share above zero, the mean under the authors'
    formula (``mean_authors_formula``); NaN correlations (constant vectors) are counted, not
    averaged. ``subset`` ``common``: every method on the inputs they all have (:func:`common_inputs`;
    the same inputs in the same order, so the same bootstrap draws: paired); ``all``: a method on
    every input it has, only where those are more (raw and rollout when flow ran on a subsample)."""
    if per_input.empty:
        return pd.DataFrame()
    common = _summaries(common_inputs(per_input), resamples, seed).assign(subset="common")
    full = _summaries(per_input, resamples, seed).assign(subset="all")
    keys = ["target", "layer", "method"]
    inputs_common = full[keys].merge(common[[*keys, "inputs"]], on=keys, how="left").inputs
    return _ordered(pd.concat([common, full[(full.inputs > inputs_common.fillna(0)).to_numpy()]], ignore_index=True))


def _summaries(per_input: pd.DataFrame, resamples: int, seed: int) -> pd.DataFrame:
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
                **dict(zip(("mean_ci95_low", "mean_ci95_high"), bootstrap_ci(ok.to_numpy(), resamples, seed))),
                "mean_authors_formula": g["spearman_authors"].mean(),
            }
        )
    return pd.DataFrame(rows)


def bootstrap_ci(values: np.ndarray, resamples: int, seed: int) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean (``analysis.shared.bootstrap``; seeded; NaN
    for fewer than 2 values)."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return np.nan, np.nan
    return percentile_interval(values[resample_indices(len(values), resamples, seed)].mean(axis=1))


def paired_table(per_input: pd.DataFrame, resamples: int, seed: int) -> pd.DataFrame:
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
                            ("difference_ci95_low", "difference_ci95_high"),
                            bootstrap_ci(diff.to_numpy(), resamples, seed),
                        )
                    ),
                }
            )
    return _ordered(pd.DataFrame(rows))


AUTHORS_LOG_COLUMNS = ("task", "protocol", "target", "layer", "method", "mean", "sd", "inputs")


def authors_log(path) -> pd.DataFrame:
    """The authors' own logged run (config ``beyond_papers.rollout.paper_numbers``, e.g.
    config/paper_numbers/abnar_zuidema_sst2.csv): one row per task, protocol, target, layer, method."""
    table = pd.read_csv(path, comment="#")
    missing = set(AUTHORS_LOG_COLUMNS) - set(table.columns)
    if missing:
        raise ValueError(f"config beyond_papers.rollout.paper_numbers: {path} lacks the columns {sorted(missing)}")
    return table


def with_authors_log(summary: pd.DataFrame, paired: pd.DataFrame, log: pd.DataFrame, task: str, protocol: str):
    """(summary, paired) with the authors' logged numbers of the same task and protocol beside:
    ``authors_log_mean`` / ``_sd`` / ``_inputs`` per target, layer and method, and in the paired
    table ``authors_log_difference``, the difference of their two means (their methods ran on the
    same sentences: the mean paired difference); NaN where their log has no such row."""
    keys = ["target", "layer", "method"]
    ref = log[(log.task == task) & (log.protocol == protocol)][[*keys, "mean", "sd", "inputs"]]
    ref = ref.rename(columns={c: f"authors_log_{c}" for c in ("mean", "sd", "inputs")})
    if not summary.empty:
        summary = summary.merge(ref, on=keys, how="left")
    means = ref.set_index(keys).authors_log_mean.to_dict()
    if not paired.empty:
        pairs = paired[["target", "layer", "first", "second"]].itertuples(index=False)
        diff = [means.get((t, layer, a), np.nan) - means.get((t, layer, b), np.nan) for t, layer, a, b in pairs]
        paired = paired.assign(authors_log_difference=diff)
    return summary, paired


def _ordered(table: pd.DataFrame) -> pd.DataFrame:
    """Targets in ``TARGETS`` order, then layers, methods in ``METHODS`` order, the common subset first."""
    if table.empty:
        return table
    key = {"target": TARGETS.index, "method": METHODS.index, "first": METHODS.index, "subset": SUBSETS.index}
    by = [c for c in ("target", "layer", "method", "first", "subset") if c in table]
    return table.sort_values(by, key=lambda s: s.map(key[s.name]) if s.name in key else s, ignore_index=True)


def pick_example(tokens: pd.DataFrame, max_tokens: int) -> str:
    """The first input (in draw order) with flow computed and at most ``max_tokens`` tokens
    (special included), else the shortest one with flow."""
    last = tokens[tokens.layer == tokens.layer.max()]
    sizes = last.groupby("id", sort=False).agg(n=("position", "size"), flow=("flow", lambda f: f.notna().all()))
    with_flow = sizes[sizes.flow] if sizes.flow.any() else sizes
    fits = with_flow[with_flow.n <= max_tokens]
    return str(fits.index[0] if len(fits) else with_flow.n.idxmin())
