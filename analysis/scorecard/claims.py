"""Read config/paper_claims.yaml and turn a model's tables into its scorecard."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from jsonschema import Draft202012Validator
from scipy import stats

from analysis.scorecard.checks import AGREEMENT, LEVEL
from analysis.scorecard.evaluate import (
    ALSO_RANDOM,
    INCONCLUSIVE,
    VERDICTS,
    Outcome,
    evaluate_claim,
    tables_read,
)
from analysis.scorecard.few_units import MIN_CLUSTERS, few_unit_p, required_share
from analysis.scorecard.registry import derive
from analysis.scorecard.trainings import TRAININGS, claim_seeds
from analysis.scorecard.values import specs_of

# the training families whose claims are the same for any model (GloVe BiLSTMs: Tutek & Snajder)
MODEL_INDEPENDENT = {"staying_true"}
CLAIMS_SCHEMA = yaml.safe_load(
    (Path(__file__).resolve().parents[2] / "config" / "schema" / "claims.schema.yaml").read_text()
)
VALUE_COLUMNS = ["id", "group", "position", "value"]  # scorecard.values.csv
COLUMNS = [
    "id",
    "paper",
    "where",
    "claim",
    "paper_value",
    "our_value",
    "interval",
    "replicates",
    "clusters",
    "seeds",
    "basis",
    "p_value",
    "bh",
    "verdict",
    "reason",
    "control_role",
    "control_value",
    "control_verdict",
    "control_difference",
    "control_draws",
    "about",
    "criterion",
    "tables",
    "columns",
    "figure",
]


def read_claims(path, registry: dict | None = None, trainings=TRAININGS) -> list[dict]:
    """The claims of ``path``, checked against config/schema/claims.schema.yaml (a misspelt key,
    op, agg: the claim's position and the key), each with ``reads_maps`` and ``trained`` derived
    from the tables it reads (``registry``: the claim tables' registry, rules/*.smk
    ``claim_table``); a training family that is not one of ``trainings`` (config ``trainings``)
    or an id used twice fails too."""
    data = yaml.safe_load(Path(path).read_text())
    errors = sorted(Draft202012Validator(CLAIMS_SCHEMA).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        where = lambda e: "/".join(map(str, e.path)) or "top level"  # noqa: E731
        raise ValueError(f"{path}: " + "; ".join(f"{where(e)}: {e.message}" for e in errors[:5]))
    claims = [derive(c, registry, str(path)) if registry is not None else c for c in data["claims"]]
    ids = set()
    for claim in claims:
        if claim.get("trained") is not None and claim["trained"] not in trainings:
            raise ValueError(
                f"{path}: claim {claim['id']}: trained: {claim['trained']!r} is not a training family "
                f"(config trainings: {', '.join(trainings)})"
            )
        if claim["id"] in ids:
            raise ValueError(f"{path}: claim id {claim['id']!r} used twice")
        ids.add(claim["id"])
    return claims


def columns_read(claim: dict) -> list[str]:
    """The columns (or column expressions) a claim's check reads, for the reader of the scorecard."""
    return list(dict.fromkeys(s["column"] for s in specs_of(claim["check"])))


def paired_difference(model: Outcome, control: Outcome) -> tuple[str, bool | None, float]:
    """The model's lead over its random-init control in the claim's direction (> 0: further on the
    claim's side), on the same resamples (their replicate tables resample the same units with the
    same seeds): (text, firmly above 0 or None without replicates, its bootstrap p)."""
    if not np.isfinite(model.strength_point) or not np.isfinite(control.strength_point):
        return "", None, np.nan
    point = model.strength_point - control.strength_point
    if model.strength is None or control.strength is None:
        return f"{point:+.3g} (point only)", None, np.nan
    reps = (model.strength - control.strength.reindex(model.strength.index)).dropna()
    if reps.empty:
        return f"{point:+.3g}", None, np.nan
    # as the model's own verdict: widened where its tables resample few clusters
    share = required_share(1 - AGREEMENT, model.units)
    if not np.isfinite(share) or model.units < MIN_CLUSTERS:
        return f"{point:+.3g} ({model.units:.0f} clusters)", False, np.nan
    lo, hi = np.quantile(reps, [1 - share, share])
    above = float((reps > 0).sum() / len(model.strength))
    p = few_unit_p(float((1 + (reps <= 0).sum()) / (1 + len(reps))), model.units)
    return f"{point:+.3g} [{lo:+.3g}, {hi:+.3g}]", above >= share, p


def clusters_drawn(claim: dict, outcome: Outcome):
    """The clusters its replicates drew (the interval is widened for few of them); NA where its
    units were drawn one by one (a claim not derived from the registry: as its tables say)."""
    return int(outcome.units) if np.isfinite(outcome.units) and claim.get("clustered", True) else pd.NA


def beyond_draws(model: Outcome, controls: list[Outcome], side: int = 1) -> tuple[bool, str]:
    """Whether the model is further on the claim's side than a new random-init draw would be: its
    strength (how far on the claim's side) above the upper end of the 95% t prediction interval of
    the draws' strengths, mean + t(0.975, k - 1) sd sqrt(1 + 1/k), over the k >= 2 draws with a
    strength; and that bound, as text. ``side`` -1: further *against* the claim's side (below the
    lower end). Fewer than 2 such draws: no test (True, '')."""
    x = np.array([c.strength_point for c in controls], dtype=float)
    x = x[np.isfinite(x)]
    k = len(x)
    if k < 2 or not np.isfinite(model.strength_point):
        return True, ""
    bound = x.mean() + side * stats.t.ppf(0.975, k - 1) * x.std(ddof=1) * np.sqrt(1 + 1 / k)
    beyond = side * model.strength_point > side * bound
    return bool(beyond), f"model {model.strength_point:+.3g} vs a new draw's bound {bound:+.3g}"


def _draw_name(d: int) -> str:
    return "the random-init control" if d == 1 else f"random-init draw {d}"


def _absence(outcome: Outcome, controls: list[Outcome], diff: str) -> tuple[str, str, str]:
    """An ``absence`` claim that holds: it stands where the model has firmly more of the structure
    than every comparable control draw (it learnt some, not enough for the claim: a finding about
    training); where it has no more than a random network, the absence is a random network's too
    (ALSO_RANDOM), as for a random-init model judged as the main model."""
    against = [paired_difference(c, outcome) for c in controls]  # control minus model, on the claim's side
    comparable = [(d, text, firm) for d, (text, firm, _) in enumerate(against, start=1) if firm is not None]
    if not comparable:
        return outcome.verdict, diff, ""
    for d, text, firm in comparable:
        if not firm:
            return ALSO_RANDOM, diff, f"no more of the structure than {_draw_name(d)} (it minus the model {text})"
    beyond, text = beyond_draws(outcome, controls, side=-1)
    if not beyond:
        return ALSO_RANDOM, diff, f"within the spread of {len(controls)} random-init draws ({text})"
    return "holds", diff, ""


def _with_control(outcome: Outcome, controls: list[Outcome], role: str) -> tuple[str, str, str]:
    """(verdict, control difference text, why) of a claim read off maps, by its control role:
    ``learned`` supports the claim only when the model is firmly further on its side than every
    control draw that can be compared with it (a paired difference; with 2 or more draws also beyond
    their spread, :func:`beyond_draws`; else ALSO_RANDOM; no draw comparable: as ``descriptive``);
    ``absence`` keeps it where the model has firmly more of the structure than every draw, still
    too little (:func:`_absence`; a random network lacking the structure does not weaken a claim
    that a trained one lacks it), else ALSO_RANDOM; ``descriptive`` keeps it unless a control draw holds or is undecided too
    (ALSO_RANDOM)."""
    if not controls:
        return outcome.verdict, "", ""
    pairs = [paired_difference(outcome, c) for c in controls]
    diff = pairs[0][0]
    if outcome.verdict != "holds":
        return outcome.verdict, diff, ""
    if role == "absence":
        return _absence(outcome, controls, diff)
    comparable = [(d, text, firm) for d, (text, firm, _) in enumerate(pairs, start=1) if firm is not None]
    if role == "learned" and comparable:
        for d, text, firm in comparable:
            if not firm:
                return ALSO_RANDOM, diff, f"not firmly further than {_draw_name(d)} (model minus it {text})"
        beyond, text = beyond_draws(outcome, controls)
        if not beyond:
            return ALSO_RANDOM, diff, f"within the spread of {len(controls)} random-init draws ({text})"
        return "holds", diff, ""
    undecided = [c.verdict for c in controls if c.verdict in ("holds", INCONCLUSIVE)]
    if undecided:
        return ALSO_RANDOM, diff, f"the random-init control {undecided[0]} too"
    return "holds", diff, ""


def benjamini_hochberg(p: pd.Series, q: float = LEVEL) -> pd.Series:
    """Which of the p-values ``p`` (NaN: none) are discoveries at false-discovery rate ``q``."""
    known = p.dropna().sort_values()
    m = len(known)
    passed = known.to_numpy() <= q * np.arange(1, m + 1) / max(m, 1)
    k = int(np.max(np.nonzero(passed)[0]) + 1) if passed.any() else 0
    return pd.Series(p.index.isin(known.index[:k]), index=p.index)


def scorecard(*args, **kwargs) -> pd.DataFrame:
    """The scorecard alone (:func:`scorecard_and_values`)."""
    return scorecard_and_values(*args, **kwargs)[0]


def scorecard_and_values(
    claims: list[dict],
    tables: dict[str, pd.DataFrame],
    not_selected=frozenset(),
    control_tables: dict[str, pd.DataFrame] | None = None,
    boots: dict[str, pd.DataFrame] | None = None,
    control_boots: dict[str, pd.DataFrame] | None = None,
    seeds: dict[str, int] | None = None,
    more_controls: list[tuple[dict, dict]] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per claim: the paper's number, ours with its 95% interval (from ``boots``, the
    replicate tables by stem, training runs pooled in), the verdict and why; ``seeds``: the
    trainings behind each table (:func:`analysis.scorecard.trainings.pool_trainings`). With
    ``control_tables`` (the random-init control's), each claim that reads attention maps
    (``reads_maps``) is judged on the control too, and compared with it as a paired difference by
    its ``control`` role (:func:`_with_control`). Firm verdicts carry a bootstrap p; ``bh`` marks
    those that stay firm under Benjamini-Hochberg at 5% across the claims.

    Also the numbers each ``our_value`` shows, as numbers (``scorecard.values.csv``, what the docs
    generator reads): one row per claim, level (``group``: the level of ``per``, empty for none) and
    position (1, 2, ... in an order), ``value`` at full precision (text for a categorical value)."""
    rows, values = [], []
    for claim in claims:
        outcome = evaluate_claim(claim, tables, not_selected, boots)
        controls = []
        if control_tables is not None and claim.get("reads_maps"):
            draws = [(control_tables, control_boots), *(more_controls or [])]
            controls = [evaluate_claim(claim, t, not_selected, b) for t, b in draws]
        control = controls[0] if controls else None
        role = claim.get("control", "learned") if claim.get("reads_maps") else ""
        verdict, difference, why = _with_control(outcome, controls, role)
        stems = tables_read(claim)
        n_seeds = claim_seeds(claim, seeds or {}, stems)
        values += [
            {"id": claim["id"], "group": "" if lvl is None else lvl, "position": pos, "value": _plain(x)}
            for lvl, pos, x in outcome.values
        ]
        rows.append(
            {
                **{k: claim[k] for k in ("id", "paper", "where", "claim", "paper_value", "criterion", "figure")},
                "our_value": outcome.our_value,
                "interval": outcome.interval,
                "replicates": outcome.replicates,
                "clusters": clusters_drawn(claim, outcome),
                "seeds": n_seeds,
                "basis": outcome.basis if outcome.verdict in VERDICTS[:4] else "",
                "p_value": outcome.p_value if verdict in ("holds", ALSO_RANDOM, "does not hold") else np.nan,
                "verdict": verdict,
                "reason": "; ".join(filter(None, [outcome.reason, why])),
                "control_role": role,
                "control_value": control.our_value if control else "",
                "control_verdict": control.verdict if control else "",
                "control_difference": difference,
                "control_draws": len(controls) if controls else pd.NA,
                "about": "model-independent" if claim.get("trained") in MODEL_INDEPENDENT else "your model",
                "criterion": claim["criterion"],
                "tables": "; ".join(stems),
                "columns": "; ".join(columns_read(claim)),
            }
        )
    card = pd.DataFrame(rows, columns=COLUMNS)
    card["bh"] = benjamini_hochberg(pd.to_numeric(card["p_value"], errors="coerce"))
    return card, pd.DataFrame(values, columns=VALUE_COLUMNS)


def _plain(x):
    """A value as plain Python (a numpy number as float or int; text as is)."""
    if isinstance(x, (np.integer, int)) and not isinstance(x, bool):
        return int(x)
    if isinstance(x, (np.floating, float)):
        return float(x)
    return x
