"""GAP reader (analysis/core/corpora/gap.py), pronoun -> name accuracy per head (analysis/clark/coref/gap_heads.py)."""

from types import SimpleNamespace

import numpy as np
import pytest

from analysis.clark.coref.gap_heads import baseline_picks, score
from analysis.clark.coref.plots import plot_gap_heads
from analysis.core.corpora import prepare
from analysis.core.corpora.gap import read_gap, window
from analysis.shared.plots import close
from conftest import FIXTURES

GAP = FIXTURES / "coref" / "gap_sample.tsv"


def test_read_gap():
    rows = read_gap(GAP)
    assert [r["label"] for r in rows] == ["A", "B", "neither"]
    r = rows[1]  # Mary and Kate Lee arrived . Later , Kate Lee said she was tired .
    assert r["words"][8:12] == ["Kate", "Lee", "said", "she"]
    assert (r["pronoun"], r["a_span"], r["b_span"], r["a_head"], r["b_head"]) == (11, [0, 0], [8, 9], 0, 9)
    assert r["gender"] == "feminine" and rows[0]["gender"] == "masculine"


def test_read_gap_bad_offset(tmp_path):
    lines = GAP.read_text().splitlines()
    lines[2] = lines[2].replace("\t48\t", "\t47\t")
    p = tmp_path / "bad.tsv"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=rf"{p}:3: pronoun offset 47 does not start a word"):
        read_gap(p)


def test_window():
    pieces = np.array([1, 1, 2, 1, 1])
    assert window(pieces, 2, 3, budget=4) == (1, 4)  # left context first
    assert window(pieces, 2, 3, budget=10) == (0, 5)
    assert window(pieces, 0, 4, budget=5) is None


def test_baselines():
    assert baseline_picks({"pronoun": 5, "a_head": 0, "b_head": 3}) == {
        "nearest": "B",
        "nearest_preceding": "B",
        "first_name": "A",
    }
    # B after the pronoun: nearest B, nearest preceding A
    assert baseline_picks({"pronoun": 5, "a_head": 0, "b_head": 7}) == {
        "nearest": "B",
        "nearest_preceding": "A",
        "first_name": "A",
    }


def _ex(meta, rows, n):
    a = np.full((1, len(rows), n, n), 1.0 / n, dtype=np.float32)
    for h, row in enumerate(rows):
        a[0, h, meta["pronoun"] + 1] = row  # + 1: [CLS] first
    return SimpleNamespace(id="x", meta=meta, word_ids=[-1, *range(n - 2), -1], attn=a)


def test_score_hand_made(tokenizer):
    recs, counts = prepare("gap", GAP.parent, tokenizer, file=GAP.name, max_len=64)
    assert len(recs) == 3 and counts["label_neither"] == 1 and counts["cut_to_window"] == 0
    m1, m2, m3 = (r["meta"] for r in recs)
    # fix-1 (label A): head 1 attends to John (A) most, head 2 to Bill (B)
    ex1 = _ex(m1, [[0, 0.5, 0, 0.1, 0, 0.2, 0, 0, 0, 0.2], [0, 0.1, 0, 0.5, 0, 0.2, 0, 0, 0, 0.2]], 10)
    # fix-2 (label B, Lee = word 9): head 1 to Mary (A), head 2 to Lee (B)
    n2 = len(recs[1]["words"][0]) + 2
    r1, r2 = np.zeros(n2), np.zeros(n2)
    r1[1], r1[10], r1[-1] = 0.6, 0.1, 0.3
    r2[1], r2[10], r2[-1] = 0.1, 0.6, 0.3
    ex2 = _ex(m2, [r1, r2], n2)
    ex3 = SimpleNamespace(id="z", meta=m3, word_ids=[], attn=None)  # neither: counted, not scored
    tally, c = score([ex1, ex2, ex3], 1, 2)
    assert c == {"examples": 3, "scored": 2, "not_scored_neither": 1, "not_scored_both": 0}
    assert tally.heads["all"].tolist() == [[1, 1]]
    assert tally.heads["masculine"].tolist() == [[1, 0]] and tally.heads["feminine"].tolist() == [[0, 1]]
    assert tally.base["all"] == {"nearest": 1, "nearest_preceding": 1, "first_name": 1}
    s = tally.summary_table()
    assert s[(s.system == "best_head") & (s.gender == "all")]["label"].item() == "head 1-1"
    t = tally.per_head_table()
    assert len(t) == 2 * 3 and t[t.gender == "masculine"]["accuracy"].tolist() == [1.0, 0.0]
    fig = plot_gap_heads(t, s, "m", c["examples"])
    assert fig._suptitle.get_text() == "m: GAP pronoun -> name, 3 examples"
    close(fig)


def test_max_examples_balanced_by_gender(tokenizer):
    recs, counts = prepare("gap", GAP.parent, tokenizer, file=GAP.name, max_len=64, max_examples=2)
    # rows: fix-1 he, fix-2 she, fix-3 he -> one masculine, one feminine
    assert [r["id"] for r in recs] == ["fix-1", "fix-2"] and counts["rows_used"] == 2


def test_gap_reader_refuses_unknown_options(tokenizer):
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['max_example'\]"):
        prepare("gap", GAP.parent, tokenizer, file=GAP.name, max_len=64, max_example=2)
