"""Corpus reader ``glue``: GLUE task rows as prepared inputs (see ``analysis.glue``)."""

from __future__ import annotations

from ..glue import read_split
from . import reader


@reader("glue")
def glue_reader(
    raw_dir,
    tokenizer=None,
    task: str = "SST-2",
    split: str = "dev",
    limit: int | None = None,
    seed: int | None = None,
    max_len: int | None = None,
    **unused,
):
    """Corpus reader: ``{reader: glue, source: glue, task: RTE, split: dev, limit: 300}``."""
    if unused:
        raise ValueError(f"glue reader: unknown options {sorted(unused)}")
    full = read_split(raw_dir, task, split)
    recs = read_split(raw_dir, task, split, limit=limit, seed=seed)
    return recs, {"rows": len(full), "records": len(recs), "not_used": len(full) - len(recs)}
