"""The rows the calibration on the project's own data writes (tools/measure/own_calibration.py):
its csv, new rows in place of old (``--append``), and the calibrated tails file (``--tails-out``)."""

from __future__ import annotations

import pandas as pd

from analysis.scorecard.calibrated_tails import DIRECTIONS
from tools.docs.calibration_table import is_true


def appended(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """``old`` with ``new``'s rows, each replacing a row of the same claim, interval and tails, placed
    after its claim's other rows (claims in ``old``'s order); a new row the claim reads now (column
    ``now``) makes its claim's old rows rows it no longer reads."""
    old, new = (t.assign(tails=t["tails"] if "tails" in t else "nominal") for t in (old, new))
    key = lambda t: list(zip(t["claim"], t["interval"].fillna(""), t["tails"]))  # noqa: E731
    kept = old[[k not in set(key(new)) for k in key(old)]].copy()
    read_now = new["now"].map(is_true) if "now" in new else pd.Series(False, new.index)
    kept.loc[kept["claim"].isin(new.loc[read_now, "claim"]), "now"] = False
    out = pd.concat([kept, new], ignore_index=True)
    order = {c: i for i, c in enumerate(dict.fromkeys([*old["claim"], *new["claim"]]))}
    return out.sort_values("claim", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)


def tails_table(table: pd.DataFrame, model: str, commit: str) -> pd.DataFrame:
    """The calibrated tails file's rows (:mod:`analysis.scorecard.calibrated_tails`) of the covered
    claims read at their own interval."""
    rows = table[table["now"] & table["note"].fillna("").eq("")]
    return pd.DataFrame(
        [
            {"id": r.claim, "direction": d, "tail": t, "datasets": r.datasets, "resamples": r.resamples}
            for r in rows.itertuples()
            for d, t in zip(DIRECTIONS, (r.tail_holds, r.tail_does_not_hold))
        ]
    ).assign(model=model, commit=commit)
