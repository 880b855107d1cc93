"""Read the claims files (config/claims/<section>.yaml) and turn a model's tables into its scorecard."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import yaml
from jsonschema import Draft202012Validator

from analysis.core.config_defaults import schema_defaults
from analysis.scorecard.control import with_control
from analysis.scorecard.evaluate import ALSO_RANDOM, INCONCLUSIVE, NO_CONTROL, Outcome, evaluate_claim, tables_read
from analysis.scorecard.multiplicity import (  # noqa: F401 (BH: interface)
    benjamini_hochberg,
    decide,
    levels_held,
    p_monte_carlo_se,
)
from analysis.scorecard.registry import derive
from analysis.scorecard.run import Run
from analysis.scorecard.seed_reference import reference_text
from analysis.scorecard.terms import TERM_COLUMNS, claim_terms, plain
from analysis.scorecard.trainings import TRAININGS, claim_seeds
from analysis.scorecard.values import absent_levels, specs_of
from analysis.scorecard.wording import difference_text, reason_text, reasons_text

# the training families whose claims are the same for any model (GloVe BiLSTMs: Tutek & Snajder)
MODEL_INDEPENDENT = {"staying_true"}
ROOT = Path(__file__).resolve().parents[2]
CLAIMS_SCHEMA = yaml.safe_load((ROOT / "config" / "schema" / "claims.schema.yaml").read_text())
VALUE_COLUMNS = ["id", "group", "position", "value"]  # scorecard.values.csv
# a claim read off maps is compared with the random-init control by a role it must state (no default)
NO_ROLE = "it reads attention maps, so it needs a control role: control: learned | absence | descriptive"
# fine-tuned maps have no control (no random-init network is fine-tuned the same way): only descriptive
NO_FINETUNED_CONTROL = (
    "it reads fine-tuned models' attention maps, for which no random-init control is run, so its control "
    "role must be stated as descriptive (control: descriptive): a 'holds' then reads 'holds (no control)'"
)
JUDGED = ("holds", ALSO_RANDOM, INCONCLUSIVE, "does not hold")  # verdicts with a basis (a judged check)
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
    "seed_reference",  # only where a seed reference was read (overview.seed_reference)
    "basis",
    "p_value",
    "p_mc_se",  # the Monte Carlo standard error of a bootstrap p (from its B resamples)
    "q_value",
    "bh",
    "verdict",
    "levels",
    "reason",
    "control_role",
    "control_value",
    "control_verdict",
    "control_difference",
    "control_draws",
    "about",
    "extension",
    "criterion",
    "tables",
    "columns",
    "figure",
]


def claim_files(root: Path = ROOT) -> list[Path]:
    """The shipped claims files (config overview.claims' default: config/claims/<section>.yaml, in
    the scorecard's order), under ``root``."""
    return [Path(root) / f for f in schema_defaults("overview")["claims"]]


def _file_claims(path, registry: dict | None) -> list[dict]:
    """The claims of one file, checked against config/schema/claims.schema.yaml (a misspelt key,
    op, agg: the file, the claim's position and the key), derived from ``registry`` where given."""
    data = yaml.safe_load(Path(path).read_text())
    errors = sorted(Draft202012Validator(CLAIMS_SCHEMA).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        where = lambda e: "/".join(map(str, e.path)) or "top level"  # noqa: E731
        raise ValueError(f"{path}: " + "; ".join(f"{where(e)}: {e.message}" for e in errors[:5]))
    return [derive(c, registry, str(path)) if registry is not None else c for c in data["claims"]]


def read_claims(paths, registry: dict | None = None, trainings=TRAININGS) -> list[dict]:
    """The claims of ``paths`` (a claims file or a list of them, config overview.claims), file by
    file in that order (the scorecard's rows), each file checked against
    config/schema/claims.schema.yaml, each claim with ``reads_maps`` and ``trained`` derived from
    the tables it reads (``registry``: the claim tables' registry, rules/*.smk ``claim_table``);
    a training family that is not one of ``trainings`` (config ``trainings``) or an id used twice
    (in one file or two) fails too, naming the file."""
    claims, seen = [], {}
    for path in [paths] if isinstance(paths, (str, Path)) else list(paths):
        for claim in _file_claims(path, registry):
            if claim.get("trained") is not None and claim["trained"] not in trainings:
                raise ValueError(
                    f"{path}: claim {claim['id']}: trained: {claim['trained']!r} is not a training family "
                    f"(config trainings: {', '.join(trainings)})"
                )
            if claim["id"] in seen:
                also = "" if seen[claim["id"]] == str(path) else f" (first in {seen[claim['id']]})"
                raise ValueError(f"{path}: claim id {claim['id']!r} used twice{also}")
            if claim.get("reads_maps") and "control" not in claim:
                raise ValueError(f"{path}: claim {claim['id']}: " + NO_ROLE)
            if claim.get("finetuned_maps") and not claim.get("reads_maps") and claim.get("control") != "descriptive":
                raise ValueError(f"{path}: claim {claim['id']}: " + NO_FINETUNED_CONTROL)
            seen[claim["id"]] = str(path)
            claims.append(claim)
    return claims


def columns_read(claim: dict) -> list[str]:
    """The columns (or column expressions) a claim's check reads, for the reader of the scorecard."""
    return list(dict.fromkeys(s["column"] for s in specs_of(claim["check"])))


def clusters_drawn(claim: dict, outcome: Outcome):
    """The clusters its replicates drew (the interval is widened for few of them); NA where its
    units were drawn one by one (a claim not derived from the registry: as its tables say)."""
    return int(outcome.units) if np.isfinite(outcome.units) and claim.get("clustered", True) else pd.NA


class Scorecard(NamedTuple):
    """The scorecard table, its values table (``scorecard.values.csv``) and its terms table (``scorecard.terms.csv``)."""

    card: pd.DataFrame
    values: pd.DataFrame
    terms: pd.DataFrame


def without_control(card: pd.DataFrame, claims: list[dict]) -> pd.DataFrame:
    """``card`` with every claim read off fine-tuned maps alone (no control draw) that holds, after
    Benjamini-Hochberg, reading NO_CONTROL: counted apart from support, as a fine-tuned random network
    was not shown to lack what it describes."""
    alone = [c["id"] for c in claims if c.get("finetuned_maps") and not c.get("reads_maps")]
    rows = card["id"].isin(alone) & card["verdict"].eq("holds")
    why = reason_text(("no control",))
    card.loc[rows, "reason"] = [why + ("; " + r if r else "") for r in card.loc[rows, "reason"]]
    card.loc[rows, "verdict"] = NO_CONTROL
    return card


def scorecard(claims: list[dict], model: Run, controls: Sequence[Run] = ()) -> pd.DataFrame:
    """The scorecard table alone (:func:`scorecard_and_values`)."""
    return scorecard_and_values(claims, model, controls).card


def _control_draws(claim: dict, controls: Sequence[Run]) -> tuple[list, str]:
    """A claim that reads maps judged on every draw of the random-init control, and its control role
    (a claim on fine-tuned maps alone: no draw, role descriptive)."""
    if not claim.get("reads_maps"):
        return [], claim.get("control", "") if claim.get("finetuned_maps") else ""
    if "control" not in claim:
        raise ValueError(f"claim {claim['id']}: " + NO_ROLE)
    return [evaluate_claim(claim, c) for c in controls], claim["control"]


def _p_columns(outcome: Outcome) -> dict:
    """The two-sided p (NaN without an interval) and, for a bootstrap p, its Monte Carlo error."""
    boot = outcome.basis == "bootstrap"
    return {
        "p_value": outcome.p_value,
        "p_mc_se": p_monte_carlo_se(outcome.p_value, outcome.replicates) if boot else np.nan,
    }


def _control_columns(role: str, draws: list, difference) -> dict:
    """The control's columns of a claim's row: its role, its first draw's value and verdict, the
    model's lead over it, and how many draws it was judged on."""
    control = draws[0] if draws else None
    return {
        "control_role": role,
        "control_value": control.our_value if control else "",
        "control_verdict": control.verdict if control else "",
        "control_difference": difference_text(difference),
        "control_draws": len(draws) if draws else pd.NA,
    }


def scorecard_and_values(claims: list[dict], model: Run, controls: Sequence[Run] = ()) -> Scorecard:
    """One row per claim: the paper's number, ours with its 95% interval (from the replicate tables
    of ``model``, and of its training runs: :func:`analysis.scorecard.trainings.pool_trainings`),
    the verdict and why. With ``controls`` (the random-init control's runs: its first draw, then
    more), each claim that reads attention maps (``reads_maps``) is judged on every draw too, and
    compared with it as a paired difference by its ``control`` role
    (:func:`analysis.scorecard.control.with_control`). Every claim with an interval carries a
    two-sided p; over k training seeds the claim's quantity is their mean with a t interval, and a
    one-seed claim is widened by ``model.reference`` (column ``seed_reference``: :mod:`analysis.scorecard.seeds`).
    Benjamini-Hochberg over the p decides (:func:`analysis.scorecard.multiplicity.decide`: ``q_value``, ``bh``, a
    firm verdict that is no discovery reads ``inconclusive (multiplicity)``);
    ``levels``: on how many of its levels a per-level claim holds.

    Also the numbers each ``our_value`` shows, as numbers (``values``: one row per claim, level
    (``group``: the level of ``per``, empty for none) and position (1, 2, ... in an order), ``value``
    at full precision, text for a categorical value), and every claim's named numbers (``terms``:
    :mod:`analysis.scorecard.terms`, what the docs generator reads)."""
    rows, values, terms = [], [], []
    for claim in claims:
        outcome = evaluate_claim(claim, model)
        draws, role = _control_draws(claim, controls)
        spread = model.control_reference.of(claim["id"]) if model.control_reference is not None else None
        verdict, difference, why = with_control(outcome, draws, role, spread)
        stems = tables_read(claim)
        n_seeds = claim_seeds(claim, model.seeds, stems)
        values += [
            {"id": claim["id"], "group": "" if lvl is None else lvl, "position": pos, "value": plain(x)}
            for lvl, pos, x in outcome.values
        ]
        terms += claim_terms(claim["id"], outcome.judged, n_seeds, difference, draws)
        rows.append(
            {
                **{k: claim[k] for k in ("id", "paper", "where", "claim", "paper_value", "criterion", "figure")},
                "our_value": outcome.our_value,
                "interval": outcome.interval,
                "replicates": outcome.replicates,
                "clusters": clusters_drawn(claim, outcome),
                "seeds": n_seeds,
                "seed_reference": reference_text(model.reference, claim, n_seeds),
                "basis": outcome.basis if outcome.verdict in JUDGED else "",
                **_p_columns(outcome),
                "verdict": verdict,
                "levels": levels_held(outcome.judged, len(absent_levels(claim["check"], model.tables))),
                "reason": reasons_text([outcome.reason, why]),
                **_control_columns(role, draws, difference),
                "about": "model-independent" if claim.get("trained") in MODEL_INDEPENDENT else "your model",
                # this project's extension (a setting the paper did not test): counted apart from the paper's claims
                "extension": bool(claim.get("extension")),
                "tables": "; ".join(stems),
                "columns": "; ".join(columns_read(claim)),
            }
        )
    # no seed reference read: no column (the table as without one; the pages say so)
    columns = [c for c in COLUMNS if c != "seed_reference" or model.reference is not None]
    card = pd.DataFrame(rows, columns=[c for c in columns if c not in ("q_value", "bh")])
    card = without_control(decide(card, card["extension"])[columns], claims)
    return Scorecard(
        card, pd.DataFrame(values, columns=VALUE_COLUMNS), pd.DataFrame(terms, columns=TERM_COLUMNS, dtype=object)
    )
