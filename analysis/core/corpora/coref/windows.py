"""Coreference documents -> window records (Clark et al. sec. 4.3).

Which part of a document is scored (reader option ``windows``):

- ``first`` (default, the paper's protocol): each document is truncated to its first ``max_len``
  word pieces (special tokens included; whole words, a word never split); everything after is
  left out, counted (``documents_truncated``, ``words_beyond_truncation``, mentions and anaphors
  outside the window).
- ``overlapping``: the whole document, in windows of at most ``max_len`` pieces made of whole
  sentences (a sentence longer than a window is cut at word boundaries, counted); a window starts
  ``stride`` pieces after the previous one's start (snapped back to a sentence start, at least one
  sentence on; default half a window). A mention is evaluated in the EARLIEST window that holds
  it whole, i.e. the one with the most left context.

A mention is scorable only when one of its antecedents lies in its window too. Everything that
cannot be scored is counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analysis.core.corpora.coref.document import CorefDoc, Mention, precedes
from analysis.core.corpora.coref.mentions import mention_features, mention_head, mention_type


def word_pieces(tokenizer, sentences: list[list[str]]) -> list[np.ndarray]:
    """Number of word pieces of every word, per sentence."""
    if not sentences:
        return []
    enc = tokenizer(sentences, is_split_into_words=True, add_special_tokens=False)
    out = []
    for k, words in enumerate(sentences):
        ids = [w for w in enc.word_ids(k) if w is not None]
        out.append(np.bincount(ids, minlength=len(words)))
    return out


def make_windows(units: list[tuple[int, int, int]], budget: int, stride: int) -> list[tuple[int, int]]:
    """Windows over ``units`` = (start word, end word, pieces), each at most ``budget`` pieces.

    The next window starts at the last unit beginning at most ``stride`` pieces after the
    current start (at least one unit on); returns [start word, end word) per window."""
    if not units:
        return []
    if stride < 1:
        raise ValueError(f"stride must be >= 1 word piece, got {stride}")
    offsets = np.concatenate([[0], np.cumsum([u[2] for u in units])])
    out, i, n = [], 0, len(units)
    while True:
        j = i
        while j < n and offsets[j + 1] - offsets[i] <= budget:
            j += 1
        if j == i:
            raise ValueError(f"a unit of {units[i][2]} pieces does not fit a window of {budget}")
        out.append((units[i][0], units[j - 1][1]))
        if j == n:
            return out
        k = i + 1
        while k + 1 <= j and offsets[k + 1] - offsets[i] <= stride:
            k += 1
        i = k


def doc_units(doc: CorefDoc, pieces: list[np.ndarray], budget: int, counts: dict) -> list[tuple[int, int, int]]:
    """Sentences as window units; a sentence over ``budget`` pieces is cut at word boundaries."""
    units = []
    for (s, e), p in zip(doc.sentences, pieces):
        if p.max(initial=0) > budget:
            raise ValueError(
                f"{doc.path}: document {doc.id}: word {doc.words[s + int(p.argmax())]!r} has "
                f"{int(p.max())} word pieces > {budget}"
            )
        if p.sum() <= budget:
            units.append((s, e, int(p.sum())))
            continue
        counts["long_sentences_cut"] = counts.get("long_sentences_cut", 0) + 1
        a, used = s, 0
        for i, n in enumerate(p):
            if used + n > budget:
                units.append((a, s + i, used))
                a, used = s + i, 0
            used += int(n)
        units.append((a, e, used))
    return units


def first_window(doc: CorefDoc, pieces: list[np.ndarray], budget: int, counts: dict) -> tuple[int, int]:
    """The paper's population: [0, k) = the longest run of whole words from the document's start
    whose pieces fit ``budget``; the words after it are counted as truncated."""
    per_word = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
    if len(per_word) and per_word[0] > budget:
        raise ValueError(
            f"{doc.path}: document {doc.id}: word {doc.words[0]!r} has {int(per_word[0])} word pieces > {budget}"
        )
    k = int(np.searchsorted(np.cumsum(per_word), budget, side="right"))
    if k < len(doc.words):
        counts["documents_truncated"] = counts.get("documents_truncated", 0) + 1
        counts["words_beyond_truncation"] = counts.get("words_beyond_truncation", 0) + len(doc.words) - k
    return (0, k)


@dataclass
class _Annotated:
    """A document's mentions in document order with their heads, types, agreement features
    and antecedents (indices of earlier mentions of the same cluster)."""

    mentions: list[Mention]
    heads: list[int]
    types: list[str]
    feats: list[tuple]
    antecedents: list[list[int]]


def _annotate(doc: CorefDoc, c: dict) -> _Annotated:
    """Heads, types (counted by what they came from) and antecedents of the document's mentions."""
    ms = sorted(doc.mentions, key=lambda m: (m.key, m.cluster))
    heads = [mention_head(doc, m) for m in ms]
    types = [mention_type(doc, m, h) for m, h in zip(ms, heads)]
    feats = [mention_features(doc, h, t) for h, t in zip(heads, types)]
    for h in heads:  # with a POS tag on the head: tags; without: pronoun lexicon and capitalisation
        key = "mention_types_from_pos" if doc.pos and doc.pos[h] is not None else "mention_types_from_words"
        _add(c, key)
    antecedents = [
        [a for a in range(k) if ms[a].cluster == m.cluster and precedes(ms[a].start, ms[a].end, m.start, m.end)]
        for k, m in enumerate(ms)
    ]
    return _Annotated(ms, heads, types, feats, antecedents)


def _add(c: dict, key: str, n: int = 1) -> None:
    c[key] = c.get(key, 0) + n


def _inside(window: tuple[int, int], m: Mention) -> bool:
    return window[0] <= m.start and m.end < window[1]


def _count_and_place(doc: CorefDoc, ann: _Annotated, windows: list[tuple[int, int]], c: dict) -> dict[int, int]:
    """Count the document (words, windows, mentions, anaphors, pairs) into ``c``; returns
    mention index -> the window where it is scored (its earliest window, when one of its
    antecedents lies in it too)."""
    ms, antecedents = ann.mentions, ann.antecedents
    home = [next((w for w in range(len(windows)) if _inside(windows[w], m)), None) for m in ms]
    scored_in: dict[int, int] = {}
    for key, n in [("documents", 1), ("words", len(doc.words)), ("sentences", len(doc.sentences))]:
        _add(c, key, n)
    _add(c, "windows", len(windows))
    for k, v in doc.counts.items():
        _add(c, k, v)
    _add(c, "mentions", len(ms))
    _add(c, "clusters", len({m.cluster for m in ms}))
    for k, m in enumerate(ms):
        _add(c, f"mentions_{ann.types[k]}")
        _add(c, "mentions_in_no_window" if home[k] is None else "mentions_in_windows")
        if not antecedents[k]:
            continue
        _add(c, "anaphors")
        for a in antecedents[k]:
            shared = any(_inside(win, ms[a]) and _inside(win, m) for win in windows)
            _add(c, "pairs_in_one_window" if shared else "pairs_not_in_one_window")
        if home[k] is None:
            _add(c, "anaphors_in_no_window")
        elif any(_inside(windows[home[k]], ms[a]) for a in antecedents[k]):
            scored_in[k] = home[k]
            _add(c, "anaphors_scorable")
        else:
            _add(c, "anaphors_antecedents_outside_window")
    return scored_in


def _window_mentions(doc: CorefDoc, ann: _Annotated, w: int, window: tuple[int, int], scored_in) -> list[dict]:
    """The mentions lying whole in window ``w``, in window word indices."""
    a = window[0]
    mentions = []
    for k, m in enumerate(ann.mentions):
        if not _inside(window, m):
            continue
        number, gender, person = ann.feats[k]
        mentions.append(
            {
                "start": m.start - a,
                "end": m.end - a,
                "head": ann.heads[k] - a,
                "type": ann.types[k],
                "cluster": m.cluster,
                "text": " ".join(doc.words[m.start : m.end + 1]),
                "head_word": doc.words[ann.heads[k]],
                "number": number,
                "gender": gender,
                "person": person,
                "scored": scored_in.get(k) == w,
            }
        )
    return mentions


def doc_windows(doc: CorefDoc, tokenizer, max_len: int, windows: str, stride: int | None, counts: dict):
    """[start word, end word) of the document's windows: its first ``max_len`` pieces (``first``)
    or overlapping windows of whole sentences over all of it (``overlapping``)."""
    budget = max_len - tokenizer.num_special_tokens_to_add(pair=False)
    pieces = word_pieces(tokenizer, [doc.words[s:e] for s, e in doc.sentences])
    if windows == "first":
        return [first_window(doc, pieces, budget, counts)] if doc.words else []
    return make_windows(doc_units(doc, pieces, budget, counts), budget, stride or max(budget // 2, 1))


def doc_records(
    doc: CorefDoc, tokenizer, max_len: int, counts: dict, windows: str = "first", stride: int | None = None
) -> list[dict]:
    """Window records of one document, with mention annotations (window word indices) in meta."""
    spans = doc_windows(doc, tokenizer, max_len, windows, stride, counts)
    ann = _annotate(doc, counts)
    scored_in = _count_and_place(doc, ann, spans, counts)
    records = []
    for w, (a, b) in enumerate(spans):
        mentions = _window_mentions(doc, ann, w, (a, b), scored_in)
        records.append(
            {
                "id": f"{doc.id}#w{w:03d}",
                "words": [doc.words[a:b]],
                "meta": {"doc": doc.id, "window": w, "word_offset": a, "words": doc.words[a:b], "mentions": mentions},
            }
        )
    return records


WINDOWS = ("first", "overlapping")
_COUNTED = (
    "anaphors",
    "anaphors_scorable",
    "anaphors_in_no_window",
    "anaphors_antecedents_outside_window",
    "pairs_in_one_window",
    "pairs_not_in_one_window",
    "mentions_in_windows",
    "mentions_in_no_window",
    "mention_types_from_pos",
    "mention_types_from_words",
)


def records_for(
    docs: list[CorefDoc], tokenizer, max_len: int, windows: str = "first", stride: int | None = None
) -> tuple[list[dict], dict]:
    """Window records of every document and the counts (population, everything left out)."""
    if windows not in WINDOWS:
        raise ValueError(f"windows must be one of {list(WINDOWS)}, got {windows!r}")
    if windows == "first" and stride is not None:
        raise ValueError("stride applies to windows: overlapping only; with windows: first leave it null")
    budget = max_len - tokenizer.num_special_tokens_to_add(pair=False)
    counts: dict = {"max_len": max_len, "windows_mode": windows}
    if windows == "first":
        counts.update(documents_truncated=0, words_beyond_truncation=0)
    else:
        counts.update(stride=stride or max(budget // 2, 1), long_sentences_cut=0)
    records = []
    for d in docs:
        records.extend(doc_records(d, tokenizer, max_len, counts, windows, stride))
    for k in _COUNTED:
        counts.setdefault(k, 0)
    return records, counts
