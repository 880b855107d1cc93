"""Read config/paper_claims.yaml and turn a model's tables into its scorecard."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from analysis.scorecard.evaluate import ClaimError, evaluate_claim, load_tables, tables_read

REQUIRED = ("id", "paper", "where", "claim", "paper_value", "criterion", "check", "figure")
COLUMNS = [
    "id",
    "paper",
    "where",
    "claim",
    "paper_value",
    "our_value",
    "verdict",
    "reason",
    "criterion",
    "tables",
    "columns",
    "figure",
]


def read_claims(path) -> list[dict]:
    """The claims of ``path``; fails with the claim's position and the missing key."""
    claims = yaml.safe_load(Path(path).read_text())["claims"]
    ids = set()
    for i, claim in enumerate(claims):
        missing = [k for k in REQUIRED if k not in claim]
        if missing:
            raise ValueError(f"{path}: claim {i + 1} ({claim.get('id', '?')}) lacks {', '.join(missing)}")
        if claim["id"] in ids:
            raise ValueError(f"{path}: claim id {claim['id']!r} used twice")
        ids.add(claim["id"])
    return claims


def columns_read(claim: dict) -> list[str]:
    """The columns (or column expressions) a claim's check reads, for the reader of the scorecard."""
    check = claim["check"]
    specs = [check["value"]] if "value" in check else check["greater"]
    return list(dict.fromkeys(s["column"] for s in specs))


def scorecard(claims: list[dict], tables: dict[str, pd.DataFrame], not_selected=frozenset()) -> pd.DataFrame:
    """One row per claim: the paper's number, ours, the verdict and why."""
    rows = []
    for claim in claims:
        outcome = evaluate_claim(claim, tables, not_selected)
        rows.append(
            {
                **{k: claim[k] for k in ("id", "paper", "where", "claim", "paper_value", "criterion", "figure")},
                "our_value": outcome.our_value,
                "verdict": outcome.verdict,
                "reason": outcome.reason,
                "tables": "; ".join(tables_read(claim)),
                "columns": "; ".join(columns_read(claim)),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def scorecard_from_dir(claims_path, table_dir, not_selected=frozenset()) -> pd.DataFrame:
    claims = read_claims(claims_path)
    stems = {t for c in claims for t in tables_read(c)}
    try:
        return scorecard(claims, load_tables(stems, table_dir), not_selected)
    except ClaimError as e:
        raise ClaimError(f"{claims_path}: {e} (tables in {table_dir})") from None
