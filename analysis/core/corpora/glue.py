"""Corpus reader ``glue``: GLUE task rows as prepared inputs (see ``analysis.core.glue``)."""

from __future__ import annotations

from analysis.core.corpora import reader
from analysis.core.glue.reader import read_split, select_rows


@reader("glue")
def glue_reader(
    raw_dir,
    tokenizer=None,
    task: str = "SST-2",
    split: str = "dev",
    limit: int | None = None,
    seed: int | None = None,
):
    """Corpus reader: ``{reader: glue, source: glue, task: RTE, split: dev, limit: 300}``."""
    full = read_split(raw_dir, task, split)
    recs = select_rows(full, limit, seed)
    return recs, {"rows": len(full), "records": len(recs), "not_used": len(full) - len(recs)}
