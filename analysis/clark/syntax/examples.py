"""The example head of Clark et al. 2019 Fig. 5 (syntax): the best head of one relation (from
Table 1) and one sentence to draw it on, its word-level map, the gold arcs boxed on it, and
every drawn value as a table (the figure: :func:`analysis.clark.syntax.plots.plot_dobj_head_example`)."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from analysis.clark.syntax.predictions import predictions, word_text
from analysis.core.word_level import unit_of_word, word_maps


def best_head_row(table: pd.DataFrame, relation: str, direction: str, source: str = "dep_heads table") -> pd.Series:
    """The Table 1 row (``analysis.clark.syntax.tables.table1``'s main table) of ``relation`` in ``direction``."""
    rows = table[(table["relation"] == relation) & (table["direction"] == direction)]
    if rows.empty:
        raise ValueError(f"{source}: no row for relation {relation!r} (below min_count, or unlabeled corpus?)")
    return rows.iloc[0]


def pick_example(
    examples: Iterable,
    relation: str,
    sentence: str | None,
    max_words: int,
    head: tuple[int, int] | None,
    direction: str,
    how: str,
    min_words: int = 6,
):
    """The example to draw: the one whose sentence id is ``sentence``, or else the first
    unsplit sentence of ``min_words``..``max_words`` words with a ``relation`` arc on which
    ``head`` (layer, head; 1-indexed) predicts every ``relation`` arc right in ``direction``
    (the first fitting sentence when none does; the shortest one when none fits)."""
    fallback = first_fit = None
    for ex in examples:
        sid = ex.id.split("#", 1)[0]
        if sentence is not None:
            if sid == str(sentence) or ex.id == str(sentence):
                return ex
            continue
        rels = ex.meta.get("rels", [])
        if relation not in rels or ex.meta.get("part") is not None:
            continue
        if min_words <= len(rels) <= max_words:
            if head is None or _all_right(ex, relation, head, direction, how):
                return ex
            first_fit = first_fit or ex
            continue
        if fallback is None or len(rels) < len(fallback.meta["rels"]):
            fallback = ex
    if sentence is not None:
        raise ValueError(f"sentence {sentence!r} is not in the corpus's shards")
    if first_fit is not None:
        return first_fit
    if fallback is None:
        raise ValueError(f"no sentence with a {relation!r} arc in one window")
    return fallback


def _all_right(ex, relation, head, direction, how) -> bool:
    wm, unit_word = word_maps(ex.head_map(*head), ex.word_ids, how)
    pred = predictions(wm, unit_word)
    unit_of = unit_of_word(unit_word)
    for d, (h, rel) in enumerate(zip(ex.meta["heads"], ex.meta["rels"])):
        if rel != relation:
            continue
        if d not in unit_of or h not in unit_of:
            return False
        if direction == "dep->head" and pred[unit_of[d]] != h:
            return False
        if direction == "head->dep" and pred[unit_of[h]] != d:
            return False
    return True


def example_map(ex, layer: int, head: int, how: str):
    """(word-level map of head ``layer``-``head`` (1-indexed), unit labels, unit words)."""
    wm, unit_word = word_maps(ex.head_map(layer, head), ex.word_ids, how)
    words = ex.meta.get("words")
    labels = []
    for u, w in enumerate(unit_word):
        if w >= 0:
            labels.append(words[w] if words else word_text(ex, w))
        else:
            p = [i for i, wid in enumerate(ex.word_ids) if wid < 0][sum(unit_word[:u] < 0)]
            labels.append(ex.tokens[p])
    return wm, labels, unit_word


def example_arcs(unit_word, heads, rels, direction: str) -> list[tuple[int, int, str]]:
    """The gold arcs with both words in the map, as (row unit, column unit, relation) cells:
    (dependent, head) for ``direction`` dep->head, else (head, dependent)."""
    unit_of = unit_of_word(unit_word)
    arcs = []
    for d, (h, rel) in enumerate(zip(heads, rels)):
        if h < 0 or d not in unit_of or h not in unit_of:
            continue
        r, c = (unit_of[d], unit_of[h]) if direction == "dep->head" else (unit_of[h], unit_of[d])
        arcs.append((r, c, rel))
    return arcs


def example_table(sentence: str, layer: int, head: int, wm, labels, arcs) -> pd.DataFrame:
    """Every value of the drawn map: one row per (from word, to word), with its gold arc's relation."""
    gold = {(r, c): rel for r, c, rel in arcs}
    return pd.DataFrame(
        [
            {
                "sentence": sentence,
                "layer": layer,
                "head": head,
                "from_index": i,
                "to_index": j,
                "from_word": labels[i],
                "to_word": labels[j],
                "attention": float(wm[i, j]),
                "gold_arc": gold.get((i, j), ""),
            }
            for i in range(len(labels))
            for j in range(len(labels))
        ]
    )
