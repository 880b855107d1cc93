"""Read config/paper_claims.yaml and turn a model's tables into its scorecard."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml
from jsonschema import Draft202012Validator

from analysis.scorecard.evaluate import ALSO_RANDOM, evaluate_claim, tables_read
from analysis.scorecard.registry import derive
from analysis.scorecard.trainings import TRAININGS, claim_seeds

CLAIMS_SCHEMA = yaml.safe_load((Path(__file__).resolve().parents[2] / "config" / "schema" / "claims.schema.yaml").read_text())
COLUMNS = [
    "id",
    "paper",
    "where",
    "claim",
    "paper_value",
    "our_value",
    "interval",
    "replicates",
    "seeds",
    "verdict",
    "reason",
    "control_value",
    "control_verdict",
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
    check = claim["check"]
    specs = [check["value"]] if "value" in check else check["greater"]
    return list(dict.fromkeys(s["column"] for s in specs))


def scorecard(
    claims: list[dict],
    tables: dict[str, pd.DataFrame],
    not_selected=frozenset(),
    control_tables: dict[str, pd.DataFrame] | None = None,
    boots: dict[str, pd.DataFrame] | None = None,
    control_boots: dict[str, pd.DataFrame] | None = None,
    seeds: dict[str, int] | None = None,
) -> pd.DataFrame:
    """One row per claim: the paper's number, ours with its 95% interval (from ``boots``, the
    replicate tables by stem, training replicates pooled in), the verdict and why; ``seeds``: the
    trainings behind each table (:func:`analysis.scorecard.trainings.pool_trainings`). With
    ``control_tables`` (the random-init control's), each claim that reads attention maps
    (``reads_maps``) is judged on the control too; one that holds for both reads ``holds, also at
    random init``."""
    rows = []
    for claim in claims:
        outcome = evaluate_claim(claim, tables, not_selected, boots)
        control = None
        if control_tables is not None and claim.get("reads_maps"):
            control = evaluate_claim(claim, control_tables, not_selected, control_boots)
        verdict = outcome.verdict
        if verdict == "holds" and control is not None and control.verdict == "holds":
            verdict = ALSO_RANDOM
        rows.append(
            {
                **{k: claim[k] for k in ("id", "paper", "where", "claim", "paper_value", "criterion", "figure")},
                "our_value": outcome.our_value,
                "interval": outcome.interval,
                "replicates": outcome.replicates,
                "seeds": claim_seeds(claim, seeds or {}, tables_read(claim)),
                "verdict": verdict,
                "reason": outcome.reason,
                "control_value": control.our_value if control else "",
                "control_verdict": control.verdict if control else "",
                "tables": "; ".join(tables_read(claim)),
                "columns": "; ".join(columns_read(claim)),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)
