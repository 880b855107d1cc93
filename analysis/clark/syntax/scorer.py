"""Which heads track which dependency relation (Clark et al. 2019 sec. 4.2, Table 1): the scorer.

Each attention head is read as a parser (:mod:`analysis.clark.syntax.predictions`): on word-level
maps (``analysis.core.word_level``), the prediction for word i is the word it attends to most,
special tokens and i itself excluded. For every relation, two directions are scored per gold arc (dependent d, head h):

- ``dep->head``: does d's most-attended word equal h?
- ``head->dep``: with ``reverse='transpose'`` (the workflow's default, the authors'
  released code, which produced the paper's head->dep numbers), is h the word that
  attends most to d? With ``reverse='row'`` (another reading of the paper's "the head word
  attending to the dependent"), does h's most-attended word equal d? (capped: h has one
  guess for all its dependents).

Baseline (:mod:`analysis.clark.syntax.baselines`): a fixed relative offset, as in the authors'
code: d's head is predicted to be the word at d + o, where positions before the first word are the
root and positions after the last word are the last word; the best o in -k..k (o != 0) is chosen
per relation and direction.

``poss`` (UD: ``nmod:poss``; as in the paper, sec. 4.2, and the authors' code): when the
possessor is followed by a possessive clitic (``poss_clitics``; default the authors' ``'s`` and
``s'``; PTB/SD tokenise the clitic as a word of its own; PTB's plural ``'`` is an option),
the clitic stands for it, for the heads' predictions and for the offset baseline alike, since
BERT can route the possessive relation through the clitic (counted: ``poss_scored_via_clitic``).

``All`` (the paper's Table 1 row, the authors' code) pools every arc of every word, the root
arcs included: a head's prediction is always another word, so a root arc is always wrong for
a head, and right for an offset that points before the first word. ``All (no root)`` pools
every arc but the root arcs (a separately labelled variant; for heads it is ``All`` divided by
the share of non-root arcs).

Inputs over ``max_len`` pieces were split by the extraction into windows of whole words
(``meta['word_offset']``); an arc is scored only when both its words lie in one window,
and the arcs lost to splitting are counted, per relation and in total.

Tables from the scorer: :mod:`analysis.clark.syntax.tables`; figures: :mod:`analysis.clark.syntax.plots`;
the example head's map (Clark Fig. 5): :mod:`analysis.clark.syntax.examples`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from analysis.clark.syntax.baselines import arc_baseline, baseline_offsets, root_baseline
from analysis.clark.syntax.predictions import predictions, sentence_words, transposed_predictions
from analysis.core.word_level import unit_of_word, word_maps

DIRECTIONS = ("dep->head", "head->dep")
ALL = "All"  # the paper's row: every arc, the root arcs included
ALL_NO_ROOT = "All (no root)"  # every arc but the root arcs
ALL_ROWS = (ALL, ALL_NO_ROOT)
POSS_RELATIONS = ("poss", "nmod:poss")  # Stanford Dependencies, Universal Dependencies
POSS_CLITICS = (
    "'s",
    "s'",
)  # possessive clitics tokenised as words: the authors' code (PTB's plural "'" not among them)
UNLABELED = "_"  # the relation of unlabeled corpora: scored in All only


@dataclass(frozen=True)
class GoldWindow:
    """What is scored of one example (a sentence or one window of it): the gold tree of the whole
    sentence ``sentence`` (``heads`` 0-based, -1 the root; ``rels``), which window it is (``part``;
    None: the whole sentence), whether the input was ``truncated``, and the sentence's ``words``
    (optional: they enable the ``poss`` clitic rule)."""

    heads: list[int]
    rels: list[str]
    sentence: str
    part: int | None = None
    truncated: bool = False
    words: list[str] | None = None


class _Guesses(NamedTuple):
    """One window's predictions (L, H, U) for dep->head and head->dep, its words' units, and the
    sentence's word count."""

    dep2head: np.ndarray
    rev: np.ndarray
    unit_of: dict
    n_words: int


class DepScorer:
    """Accumulates per-head, per-relation, per-direction correct counts and the offset
    baselines' (:mod:`analysis.clark.syntax.baselines`) over a stream of examples."""

    def __init__(self, n_layers: int, n_heads: int, max_offset: int, how: str, reverse: str, poss_clitics=POSS_CLITICS):
        if reverse not in ("row", "transpose"):
            raise ValueError(f"reverse must be 'row' or 'transpose', not {reverse!r}")
        self.shape = (n_layers, n_heads)
        self.offsets = baseline_offsets(max_offset)
        self.how, self.reverse = how, reverse
        self.poss_clitics = {c.lower() for c in poss_clitics}
        self.correct: dict[str, np.ndarray] = {}  # rel -> (2, L, H)
        self.base: dict[str, np.ndarray] = {}  # rel -> (2, n_offsets)
        self.n: dict[str, int] = {}
        self.counts = {
            "examples": 0,
            "sentences": 0,
            "sentences_split": 0,
            "windows_of_split_sentences": 0,
            "truncated_examples": 0,
            "arcs_total": 0,
            "arcs_scored": 0,
            "root_arcs": 0,
            "root_arcs_scored": 0,
            "poss_scored_via_clitic": 0,
        }
        # the sentence being scored: its windows are consecutive examples; a finished
        # sentence's lost arcs go into the tallies below and its record is dropped (streamed)
        self._sentences: dict[str, dict] = {}
        self._settled: set[str] = set()
        self._lost = {"split": 0, "truncation": 0, "no_pieces": 0, "root": 0}
        self._lost_rel: dict[str, int] = {}
        # each sentence's own tallies (sentence -> rel -> [hits (2, L, H), baseline (2, n_offsets), n]), the
        # units that analysis.clark.syntax.replicates resamples for the scorecard's intervals
        self.by_sentence: dict[str, dict[str, list]] = {}
        self.docs: dict[str, str] = {}  # sentence -> its document (meta ``doc``), set by score_examples
        self._current: str | None = None

    def _acc(self, rel: str):
        if rel not in self.correct:
            self.correct[rel] = np.zeros((2, *self.shape), dtype=np.int64)
            self.base[rel] = np.zeros((2, len(self.offsets)), dtype=np.int64)
            self.n[rel] = 0
        return self.correct[rel], self.base[rel]

    def add(self, maps: np.ndarray, word_ids, gold: GoldWindow) -> None:
        """Score one example (a sentence or one window of it): piece-level ``maps``
        (L, H, n, n), its ``word_ids`` (sentence-level word indices, -1 for special
        tokens) and its ``gold``."""
        wm, unit_word = word_maps(maps, word_ids, self.how)
        self.add_word_maps(wm, unit_word, gold)

    def add_word_maps(self, wm: np.ndarray, unit_word: np.ndarray, gold: GoldWindow) -> None:
        """Score one window given its word-level maps (L, H, U, U) and unit words."""
        heads, rels, sentence, words = gold.heads, gold.rels, gold.sentence, gold.words
        self._current = sentence
        self.counts["examples"] += 1
        self.counts["truncated_examples"] += int(gold.truncated)
        info = self._sentences.get(sentence)
        if info is None:
            if sentence in self._settled:
                raise ValueError(f"sentence {sentence}: its windows are not consecutive examples")
            for done in list(self._sentences):
                self._settle(done)
            info = self._sentences[sentence] = {
                "heads": list(heads),
                "rels": list(rels),
                "windows": 0,
                "covered": set(),
                "scored": set(),
                "truncated": False,
            }
            n_root = sum(h < 0 for h in heads)
            self.counts["sentences"] += 1
            self.counts["root_arcs"] += n_root
            self.counts["arcs_total"] += len(heads) - n_root
        info["windows"] += 1
        info["truncated"] |= bool(gold.truncated)
        if gold.part is not None:
            self.counts["windows_of_split_sentences"] += 1
            if info["windows"] == 1:
                self.counts["sentences_split"] += 1

        unit_of = unit_of_word(unit_word)
        info["covered"].update(unit_of)
        dep2head = predictions(wm, unit_word)  # (L, H, U)
        rev = transposed_predictions(wm, unit_word) if self.reverse == "transpose" else dep2head
        n_words = len(heads)
        guesses = _Guesses(dep2head, rev, unit_of, n_words)
        for d, (h, rel) in enumerate(zip(heads, rels)):
            if d not in unit_of or d in info["scored"]:
                continue
            if h < 0:  # the root arc: in All only, never right for a head
                self._add((ALL,), np.zeros((2, *self.shape), bool), root_baseline(d, n_words, self.offsets))
                self.counts["root_arcs_scored"] += 1
            elif h in unit_of:
                via = self._poss_via(d, h, rel, words, unit_of)
                self._score(rel, d, h, via, guesses)
                self.counts["arcs_scored"] += 1
            else:
                continue
            info["scored"].add(d)

    def _poss_via(self, d, h, rel, words, unit_of) -> int:
        """The word whose prediction stands for d's: the following clitic for a possessor
        (the poss rule), else d itself."""
        if rel in POSS_RELATIONS and words is not None and d + 1 < len(words) and d + 1 in unit_of:
            if words[d + 1].lower() in self.poss_clitics and d + 1 != h:
                self.counts["poss_scored_via_clitic"] += 1
                return d + 1
        return d

    def _score(self, rel, d, h, v, guesses: _Guesses):
        """One non-root arc d -> h, with ``v`` the word whose prediction stands for d's (the
        poss clitic rule: for heads and baseline, in the relation's row and in All, as in the
        authors' code)."""
        dep2head, rev, unit_of, n_words = guesses
        hits = np.empty((2, *self.shape), bool)
        hits[0] = dep2head[..., unit_of[v]] == h
        if self.reverse == "row":
            hits[1] = (rev[..., unit_of[h]] == d) | (rev[..., unit_of[h]] == v)
        else:
            hits[1] = rev[..., unit_of[v]] == h
        base = arc_baseline(d, h, v, n_words, self.offsets, self.reverse)
        self._add((*(() if rel == UNLABELED else (rel,)), *ALL_ROWS), hits, base)

    def _add(self, relations, hits, base) -> None:
        own = self.by_sentence.setdefault(self._current, {})
        for r in relations:
            corr, b = self._acc(r)
            corr += hits
            b += base
            self.n[r] += 1
            if r not in own:
                own[r] = [np.zeros_like(corr, dtype=np.int32), np.zeros_like(b, dtype=np.int32), 0]
            own[r][0] += hits
            own[r][1] += base
            own[r][2] += 1

    def _settle(self, sentence: str) -> None:
        """Tally the arcs of a finished sentence never scored (by relation and cause) and
        drop its record."""
        info = self._sentences.pop(sentence)
        self._settled.add(sentence)
        for d, (h, rel) in enumerate(zip(info["heads"], info["rels"])):
            if d in info["scored"]:
                continue
            if h < 0:
                self._lost["root"] += 1
                continue
            self._lost_rel[rel] = self._lost_rel.get(rel, 0) + 1
            if d in info["covered"] and h in info["covered"]:
                self._lost["split"] += 1
            elif info["truncated"]:
                self._lost["truncation"] += 1
            else:
                self._lost["no_pieces"] += 1

    def finish_counts(self) -> dict:
        """Counts of sentences, windows and arcs; the arcs never scored by relation and
        cause: ``split`` (both words were seen, never in one window), ``truncation`` (a
        word fell outside every window of a truncated input) or ``no_pieces`` (a word the
        tokenizer gave no piece). Root arcs (in All only) are counted apart: ``root_arcs``,
        ``root_arcs_scored``, ``root_arcs_lost``."""
        for sentence in list(self._sentences):
            self._settle(sentence)
        c = dict(self.counts)
        c["root_arcs_lost"] = self._lost["root"]
        c["arcs_lost_to_split"] = self._lost["split"]
        c["arcs_lost_to_truncation"] = self._lost["truncation"]
        c["arcs_without_pieces"] = self._lost["no_pieces"]
        c["arcs_lost"] = self._lost["split"] + self._lost["truncation"] + self._lost["no_pieces"]
        c["arcs_lost_by_relation"] = dict(sorted(self._lost_rel.items()))
        return c


def rel_key(rel: str):
    """Sort key of relations: All, All (no root), then by name."""
    return (ALL_ROWS.index(rel) if rel in ALL_ROWS else len(ALL_ROWS), rel)


def score_examples(
    examples: Iterable, n_layers: int, n_heads: int, max_offset: int, how: str, reverse: str, poss_clitics=POSS_CLITICS
) -> DepScorer:
    """Score a stream of ``storage.Example`` whose meta holds ``heads`` and ``rels``."""
    sc = DepScorer(n_layers, n_heads, max_offset=max_offset, how=how, reverse=reverse, poss_clitics=poss_clitics)
    for ex in examples:
        meta = ex.meta
        if "heads" not in meta or "rels" not in meta:
            raise ValueError(f"example {ex.id}: meta has no gold 'heads'/'rels' (not a dependency corpus?)")
        sent = ex.id.split("#", 1)[0]
        if "doc" in meta:  # the document of each sentence: the cluster of the scorecard's resamples
            sc.docs[sent] = str(meta["doc"])
        # words only matter to the poss clitic rule: read back from the pieces when needed
        words = sentence_words(ex, len(meta["heads"])) if set(meta["rels"]) & set(POSS_RELATIONS) else None
        gold = GoldWindow(meta["heads"], meta["rels"], sent, meta.get("part"), bool(meta.get("truncated")), words)
        sc.add(ex.attn, ex.word_ids, gold)
    return sc
