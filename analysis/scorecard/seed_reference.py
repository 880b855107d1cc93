"""The seed reference: each trained claim's between-seed SD, measured once on a run with 5 or more
training seeds of every family (``python -m tools.measure.seed_reference``, config
config/seed_reference.yaml) and committed as config/seed_reference.csv (config overview.seed_reference).

One row per claim, level of its ``per`` (``group``, empty for none) and quantity (``value``, or an
order's ``difference1``, ``difference2``, ...): its between-seed SD (``sd``: the SD of the seeds'
values, k - 1 in the denominator), the seeds it was measured on (``seeds``), the model and the
commit of the run. A claim judged on one seed reads it (:mod:`analysis.scorecard.seeds`); a claim on
k >= 2 seeds measures its own. No file, or no row for a claim: the claim is judged as without a
reference, and the scorecard says so (column seed_reference, where a file was read; its notes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

COLUMNS = ["id", "group", "quantity", "sd", "seeds", "model", "commit"]


@dataclass(frozen=True)
class SeedReference:
    """The rows of a seed reference file (``path``): claim id -> level (text; empty: none) ->
    quantity -> (between-seed SD, seeds), with the model and commit they were measured on."""

    path: str
    entries: dict = field(default_factory=dict)
    source: str = ""  # "<model> @ <commit>" of its rows

    def of(self, claim_id: str) -> dict:
        """Level -> quantity -> (SD, seeds) of one claim ({} where the reference has none)."""
        return self.entries.get(claim_id, {})


def reference_rows(path: Path, columns: list[str], what: str) -> pd.DataFrame | None:
    """The rows of a committed reference file as text (None where there is no such file); a file
    without every one of ``columns`` is an error naming the file and ``what`` it should be."""
    if not path.is_file():
        return None
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: no column {', '.join(missing)} ({what} has {', '.join(columns)})")
    return df


def reference_source(df: pd.DataFrame) -> str:
    """ "<model> @ <commit>" of a reference file's rows (columns model and commit), each once."""
    return "; ".join(dict.fromkeys(f"{m} @ {c[:7]}" for m, c in zip(df["model"], df["commit"])))


def read_seed_reference(path) -> SeedReference | None:
    """The seed reference at ``path`` (None where there is no such file: no widening). A file
    without the columns of :data:`COLUMNS`, or with an SD that is no finite number >= 0, or fewer than
    2 seeds (no SD), is an error naming the file and the row."""
    path = Path(path)
    df = reference_rows(path, COLUMNS, "a seed reference")
    if df is None:
        return None
    sd, seeds = pd.to_numeric(df["sd"], errors="coerce"), pd.to_numeric(df["seeds"], errors="coerce")
    bad = df.index[~np.isfinite(sd) | (sd < 0) | ~(seeds >= 2) | (seeds % 1 != 0)]
    if len(bad):
        row = df.loc[bad[0]]
        raise ValueError(
            f"{path}: row {bad[0] + 2} ({row['id']} {row['group']} {row['quantity']}): sd {row['sd']!r} must be a "
            f"number >= 0 and seeds {row['seeds']!r} a whole number >= 2 (rerun python -m tools.measure.seed_reference)"
        )
    entries: dict = {}
    for r, s, k in zip(df.itertuples(), sd, seeds):
        entries.setdefault(r.id, {}).setdefault(r.group, {})[r.quantity] = (float(s), int(k))
    return SeedReference(str(path), entries, reference_source(df))


def reference_text(reference: SeedReference | None, claim: dict, seeds: int) -> str:
    """What the seed reference does for a claim (column seed_reference): nothing for a claim on no
    training or on several seeds of its own; its between-seed SD(s) for a one-seed claim it covers;
    that it has none for one it does not (the interval then covers the inputs, not the seed)."""
    if reference is None or not claim.get("trained") or seeds != 1:
        return ""
    sds = [sd for quantities in reference.of(claim["id"]).values() for sd, _ in quantities.values()]
    if not sds:
        return "not in the reference: the interval covers the inputs, not the seed"
    counts = sorted({k for q in reference.of(claim["id"]).values() for _, k in q.values()})
    span = f"{min(sds):.3g}" if min(sds) == max(sds) else f"{min(sds):.3g} to {max(sds):.3g}"
    span += f" over {len(sds)} quantities" if len(sds) > 1 else ""
    return f"between-seed SD {span} ({'/'.join(map(str, counts))} seeds; {reference.source})"
