"""Antecedent selection accuracy per attention head (Clark et al. 2019, sec. 4.3, Table 2).

Input: attention shards of a coreference corpus prepared by ``analysis.core.corpora.coref`` (one
example per document window: by default each document's first ``max_len`` word pieces, as in the
paper; ``meta["mentions"]`` holds every mention lying whole in the window with its span, head
word, type, cluster and whether the window is where it is scored).

For each scored mention m (one with an antecedent in the window), the *candidates* are the
mentions of the window that precede m (start earlier, do not contain m) and whose head word
is not m's own head word; its *antecedents* are the candidates of m's cluster. An attention
head is right on m when, among the candidates' head words, the one m's head word attends
to most (word-level map, ``analysis.core.word_level``) is the head word of an antecedent.
The best head is also reported with a 2-fold estimate (chosen on the documents of one half,
scored on the other; halves by a hash of the document id), as picking the best of many heads on
the scored data itself flatters it. Baselines choose one candidate mention (none = wrong):

- ``nearest``: the nearest preceding mention;
- ``same_head``: the nearest one with the same head word (case-insensitive); none = wrong, as
  in the paper. Switch ``same_head_fallback``: else the nearest mention (system
  ``same_head_else_nearest``, a different baseline: the paper's number is not printed beside it);
- ``rule_based``: the paper's sieve after Lee et al. (2011), applied in order to EVERY mention;
  the nearest candidate passing the first sieve that any candidate passes: (1) exact string
  match (case-insensitive), (2) same head word, (3) agreement in number, gender and person
  (word lists, ``analysis.core.corpora.coref.mentions``; unknown agrees with anything), (4) nearest.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.clark.coref.head_tally import HeadTally
from analysis.core.corpora.coref.document import precedes
from analysis.core.word_level import unit_of_word, word_maps
from analysis.shared.head_selection import fold_of

TYPES = ("all", "pronoun", "proper", "nominal")
SIEVES = ("exact string", "head word", "agreement", "nearest")
SYSTEM_LABELS = {
    "nearest": "nearest mention",
    "same_head": "nearest same head word",
    "same_head_else_nearest": "nearest same head word, else nearest",
    "rule_based": "rule-based sieve",
}


def baselines(same_head_fallback: bool = False) -> tuple[str, ...]:
    """The baseline systems, in table order."""
    return ("nearest", "same_head_else_nearest" if same_head_fallback else "same_head", "rule_based")


@dataclass
class Case:
    """One scored mention in one window."""

    head: int  # window word index of the mention's head
    type: str
    cand_heads: np.ndarray  # distinct head words of the candidates, window word indices, sorted
    gold: np.ndarray  # bool per cand_heads: head of an antecedent
    baseline_correct: dict  # system -> bool


def _agrees(m: dict, c: dict) -> bool:
    for key in ("number", "gender"):
        if m.get(key) is not None and c.get(key) is not None and m[key] != c[key]:
            return False
    return m.get("person", 3) == c.get("person", 3)


def _nearest(cands: list[dict], pred=None) -> dict | None:
    for c in reversed(cands):  # cands in document order: the last is the nearest
        if pred is None or pred(c):
            return c
    return None


def pick_nearest(m: dict, cands: list[dict]) -> dict:
    return cands[-1]


def pick_same_head(m: dict, cands: list[dict]) -> dict | None:
    """The paper's: the nearest candidate with m's head word, or None (= wrong)."""
    hw = m["head_word"].lower()
    return _nearest(cands, lambda c: c["head_word"].lower() == hw)


def pick_same_head_else_nearest(m: dict, cands: list[dict]) -> dict:
    """Switch ``same_head_fallback``: the nearest candidate with m's head word, else the nearest."""
    return pick_same_head(m, cands) or cands[-1]


def sieve(m: dict, cands: list[dict]) -> tuple[dict, str]:
    """The rule-based sieve: (the nearest candidate passing the first sieve any passes, that sieve)."""
    text, hw = m["text"].lower(), m["head_word"].lower()
    tests = (
        lambda c: c["text"].lower() == text,
        lambda c: c["head_word"].lower() == hw,
        lambda c: _agrees(m, c),
        None,
    )
    for name, test in zip(SIEVES, tests):
        pick = _nearest(cands, test)
        if pick is not None:
            return pick, name
    raise ValueError("a scored mention without candidates")


def pick_rule_based(m: dict, cands: list[dict]) -> dict:
    return sieve(m, cands)[0]


PICKERS = {
    "nearest": pick_nearest,
    "same_head": pick_same_head,
    "same_head_else_nearest": pick_same_head_else_nearest,
    "rule_based": pick_rule_based,
}


def window_cases(mentions: list[dict], counts: dict | None = None) -> list[Case]:
    """The scored mentions of one window with their candidates, antecedents and the picks of every
    baseline (``PICKERS``); ``counts`` gets the cases decided by each sieve (and how many right)."""
    counts = counts if counts is not None else {}
    order = sorted(mentions, key=lambda x: (x["start"], x["end"], str(x["cluster"])))
    cases = []
    for m in order:
        if not m.get("scored"):
            continue
        cands = [c for c in order if precedes(c["start"], c["end"], m["start"], m["end"]) and c["head"] != m["head"]]
        gold_heads = {c["head"] for c in cands if c["cluster"] == m["cluster"]}
        if not gold_heads:
            _add(counts, "skipped_antecedents_share_head")
            continue
        cand_heads = np.array(sorted({c["head"] for c in cands}), dtype=np.int64)
        gold = np.array([h in gold_heads for h in cand_heads])
        picks = {name: fn(m, cands) for name, fn in PICKERS.items()}
        right = {name: c is not None and c["head"] in gold_heads for name, c in picks.items()}
        step = sieve(m, cands)[1].replace(" ", "_")
        _add(counts, f"sieve_{step}")
        _add(counts, f"sieve_{step}_correct", int(right["rule_based"]))
        cases.append(Case(m["head"], m["type"], cand_heads, gold, right))
    return cases


def _add(counts: dict, key: str, n: int = 1) -> None:
    counts[key] = counts.get(key, 0) + n


def head_correct(word_map: np.ndarray, unit_word: np.ndarray, case: Case) -> np.ndarray:
    """(layers, heads) bool: does the head word attend most to an antecedent's head word?

    ``word_map`` (layers, heads, U, U) and ``unit_word`` as returned by ``word_maps``."""
    unit_of = unit_of_word(unit_word)
    try:
        row = unit_of[case.head]
        cols = np.array([unit_of[int(h)] for h in case.cand_heads])
    except KeyError as err:
        raise ValueError(f"word {err.args[0]} of a mention is not in the attention map") from None
    scores = word_map[:, :, row, :][..., cols]  # (L, H, k)
    return case.gold[scores.argmax(-1)]


class Tally(HeadTally):
    """Correct / total counts per mention type for every head and every baseline."""

    def __init__(self, n_layers: int, n_heads: int, systems: tuple[str, ...] = baselines()):
        super().__init__(n_layers, n_heads, TYPES, "mention_type", {s: SYSTEM_LABELS[s] for s in systems})

    def add(self, case: Case, correct: np.ndarray, fold: int = 0, doc: str | None = None) -> None:
        self.count(("all", case.type), correct, fold, case.baseline_correct, unit=doc)

    def summary_table(self, paper: pd.DataFrame | None = None) -> pd.DataFrame:
        """The best head (all cases and 2-fold) and the baselines per mention type, with the
        paper's numbers beside them when ``paper`` is given."""
        out = super().summary_table()
        if paper is not None:
            p = paper.rename(columns={"accuracy": "paper_accuracy", "label": "paper_label"})
            out = out.merge(
                p[["system", "mention_type", "paper_label", "paper_accuracy"]],
                on=["system", "mention_type"],
                how="left",
            )
        return out


def score(
    examples: Iterable, n_layers: int, n_heads: int, how: str = "mean", same_head_fallback: bool = False
) -> tuple[Tally, dict]:
    """Tally every scored mention of every window (examples from ``storage.Shards``)."""
    tally = Tally(n_layers, n_heads, baselines(same_head_fallback))
    counts: dict = {"windows": 0, "windows_with_cases": 0, "cases": 0}
    for ex in examples:
        counts["windows"] += 1
        if "part" in ex.meta or ex.meta.get("truncated"):
            raise ValueError(
                f"example {ex.id}: the window was split or truncated at extraction; prepare the corpus "
                "with the same max_len as extraction"
            )
        if "mentions" not in ex.meta:
            raise ValueError(f"example {ex.id}: no 'mentions' in meta; not a coreference corpus")
        cases = window_cases(ex.meta["mentions"], counts)
        if not cases:
            continue
        counts["windows_with_cases"] += 1
        wm, unit_word = word_maps(ex.attn, ex.word_ids, how)
        doc = str(ex.meta.get("doc", ex.id.split("#")[0]))
        fold = fold_of(doc)
        for case in cases:  # the document is the independent unit of the scorecard's resamples
            tally.add(case, head_correct(wm, unit_word, case), fold, doc)
            counts["cases"] += 1
    counts.setdefault("skipped_antecedents_share_head", 0)
    for step in SIEVES:
        key = "sieve_" + step.replace(" ", "_")
        counts.setdefault(key, 0)
        counts.setdefault(f"{key}_correct", 0)
    for t in TYPES:
        counts[f"cases_{t}"] = tally.n[t]
    return tally, counts


def population_label(reader_counts: dict) -> str:
    """What was scored, from the reader's counts: each document's first max_len pieces (the
    paper's protocol) or overlapping windows over whole documents."""
    n, max_len = reader_counts["documents"], reader_counts["max_len"]
    if reader_counts["windows_mode"] == "first":
        return f"{n} document{'s' if n != 1 else ''}, first {max_len} word pieces each"
    w, stride = reader_counts["windows"], reader_counts["stride"]
    return f"{n} whole documents in {w} overlapping windows (stride {stride})"


def read_paper_numbers(path) -> pd.DataFrame:
    """Clark et al. Table 2 (accuracy in %): columns system, label, mention_type, accuracy (fraction)."""
    df = pd.read_csv(path, comment="#")
    need = {"system", "label", "mention_type", "accuracy"}
    if not need <= set(df.columns):
        raise ValueError(f"{path}: needs columns {sorted(need)}")
    df["accuracy"] = df["accuracy"] / 100.0
    return df
