"""GAP (Webster et al. 2018): ambiguous pronoun -> name coreference on Wikipedia snippets.

A ``gap-*.tsv`` row holds a text, a pronoun with its character offset and two candidate names
A and B (offsets and TRUE/FALSE coreference labels). The text is split into words
(``\\w+`` runs and single other characters, with character offsets); the pronoun and the names
must start at a word. The head word of a name is its last word (PTB convention: ``Cheryl
Cassidy`` -> ``Cassidy``). A text over ``max_len`` word pieces is cut to a window holding the
pronoun and both names (as much left context as fits, then right context); when even that does
not fit, the example is skipped and counted.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np

from analysis.core.corpora import reader
from analysis.core.inputs import read_text

WORD = re.compile(r"\w+|[^\w\s]")
GENDER = {
    "he": "masculine",
    "him": "masculine",
    "his": "masculine",
    "himself": "masculine",
    "she": "feminine",
    "her": "feminine",
    "hers": "feminine",
    "herself": "feminine",
}
COLUMNS = ["ID", "Text", "Pronoun", "Pronoun-offset", "A", "A-offset", "A-coref", "B", "B-offset", "B-coref"]


def words_with_offsets(text: str) -> tuple[list[str], list[int]]:
    ms = list(WORD.finditer(text))
    return [m.group() for m in ms], [m.start() for m in ms]


def _span(starts: list[int], words: list[str], offset: int, string: str, where: str, what: str) -> tuple[int, int]:
    try:
        first = starts.index(offset)
    except ValueError:
        raise ValueError(f"{where}: {what} offset {offset} does not start a word") from None
    end = offset + len(string)
    last = first
    while last + 1 < len(starts) and starts[last + 1] < end:
        last += 1
    got = " ".join(words[first : last + 1])
    if re.sub(r"\s+", "", got) != re.sub(r"\s+", "", string):
        raise ValueError(f"{where}: {what} {string!r} at offset {offset}, the text has {got!r}")
    return first, last


def _label(a: str, b: str, where: str) -> str:
    vals = {"TRUE": True, "FALSE": False}
    if a.upper() not in vals or b.upper() not in vals:
        raise ValueError(f"{where}: coreference labels must be TRUE/FALSE, got {a!r}, {b!r}")
    a, b = vals[a.upper()], vals[b.upper()]
    return "both" if a and b else "A" if a else "B" if b else "neither"


def read_gap(path) -> list[dict]:
    """Rows of a GAP TSV as examples: words, pronoun index, name spans and heads, label, gender."""
    path = str(path)
    out = []
    with io.StringIO(read_text(path), newline="") as f:
        rows = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(rows, None)
        if header is None or header[: len(COLUMNS)] != COLUMNS:
            raise ValueError(f"{path}:1: expected the GAP header {COLUMNS}")
        for lineno, row in enumerate(rows, 2):
            where = f"{path}:{lineno}"
            if len(row) < len(COLUMNS):
                raise ValueError(f"{where}: {len(row)} columns, GAP rows have {len(COLUMNS) + 1}")
            r = dict(zip(COLUMNS, row))
            words, starts = words_with_offsets(r["Text"])
            try:
                p_off, a_off, b_off = int(r["Pronoun-offset"]), int(r["A-offset"]), int(r["B-offset"])
            except ValueError:
                raise ValueError(f"{where}: non-integer offset") from None
            p = _span(starts, words, p_off, r["Pronoun"], where, "pronoun")[0]
            a = _span(starts, words, a_off, r["A"], where, "name A")
            b = _span(starts, words, b_off, r["B"], where, "name B")
            out.append(
                {
                    "id": r["ID"],
                    "words": words,
                    "pronoun": p,
                    "a_span": list(a),
                    "b_span": list(b),
                    "a_head": _name_head(words, a),
                    "b_head": _name_head(words, b),
                    "label": _label(r["A-coref"], r["B-coref"], where),
                    "gender": GENDER.get(r["Pronoun"].lower(), "other"),
                    "where": where,
                }
            )
    return out


def _name_head(words, span) -> int:
    for i in range(span[1], span[0] - 1, -1):
        if any(c.isalnum() for c in words[i]):
            return i
    return span[1]


def window(pieces: np.ndarray, need_lo: int, need_hi: int, budget: int) -> tuple[int, int] | None:
    """[lo, hi) word range of at most ``budget`` pieces holding words need_lo..need_hi;
    as much left context as fits, then right context. None when the needed words do not fit."""
    lo, hi = need_lo, need_hi + 1
    used = int(pieces[lo:hi].sum())
    if used > budget:
        return None
    while lo > 0 and used + pieces[lo - 1] <= budget:
        lo -= 1
        used += int(pieces[lo])
    while hi < len(pieces) and used + pieces[hi] <= budget:
        used += int(pieces[hi])
        hi += 1
    return lo, hi


@reader("gap")
def prepare_gap(
    raw_dir, tokenizer, file: str = "gap-development.tsv", max_examples: int | None = None, max_len: int = 128
):
    """GAP examples of ``file``, one record each, cut to fit ``max_len``. ``max_examples``: the
    first half of them with masculine and the first half with feminine pronouns (file order
    kept), so the by-gender results stay balanced as in GAP itself."""
    rows = read_gap(Path(raw_dir) / file)
    counts = {"rows": len(rows), "max_len": max_len}
    if max_examples:
        quota = {"masculine": (max_examples + 1) // 2, "feminine": max_examples // 2}
        keep = []
        for r in rows:
            g = r["gender"] if r["gender"] in quota else "masculine"
            if quota[g] > 0:
                quota[g] -= 1
                keep.append(r)
        rows = keep
    counts["rows_used"] = len(rows)
    budget = max_len - tokenizer.num_special_tokens_to_add(pair=False)
    enc = tokenizer([r["words"] for r in rows], is_split_into_words=True, add_special_tokens=False) if rows else None
    records = []
    for k, r in enumerate(rows):
        counts[f"label_{r['label']}"] = counts.get(f"label_{r['label']}", 0) + 1
        pieces = np.bincount([w for w in enc.word_ids(k) if w is not None], minlength=len(r["words"]))
        idx = [r["pronoun"], *r["a_span"], *r["b_span"]]
        win = window(pieces, min(idx), max(idx), budget)
        if win is None:
            counts["skipped_too_long"] = counts.get("skipped_too_long", 0) + 1
            continue
        lo, hi = win
        if (lo, hi) != (0, len(r["words"])):
            counts["cut_to_window"] = counts.get("cut_to_window", 0) + 1
        records.append(
            {
                "id": r["id"],
                "words": [r["words"][lo:hi]],
                "meta": {
                    "pronoun": r["pronoun"] - lo,
                    "a_head": r["a_head"] - lo,
                    "b_head": r["b_head"] - lo,
                    "a_span": [r["a_span"][0] - lo, r["a_span"][1] - lo],
                    "b_span": [r["b_span"][0] - lo, r["b_span"][1] - lo],
                    "label": r["label"],
                    "gender": r["gender"],
                    "word_offset": lo,
                },
            }
        )
    counts.setdefault("skipped_too_long", 0)
    counts.setdefault("cut_to_window", 0)
    counts["records"] = len(records)
    return records, counts
