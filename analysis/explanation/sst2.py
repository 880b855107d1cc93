"""SST-2 sentences as (words, label) pairs for the attention classifiers (GLUE source ``glue``)."""

from __future__ import annotations


def read_sst2(
    raw_dir, split: str, limit: int | None = None, seed: int = 0, task: str = "SST-2"
) -> tuple[list[tuple[list[str], int]], dict]:
    """SST-2 ``<raw_dir>/SST-2/<split>.tsv`` -> [(words, label)], counts, read with the
    project's GLUE reader (:func:`analysis.core.glue.reader.read_split`: malformed rows raise with
    file:line). ``limit`` keeps a seeded random subset (in file order)."""
    from analysis.core.glue.reader import read_split, select_rows

    full = read_split(raw_dir, task, split)
    recs = select_rows(full, limit, seed)
    out = [(r["words"][0], int(r["meta"]["label"])) for r in recs]
    return out, {"rows": len(full), "kept": len(out), "not_used": len(full) - len(out)}
