"""Coreference readers (CoNLL-2012, OntoGUM), mention heads/types, windows (analysis/core/corpora/coref/)."""

import pytest

from analysis.core.corpora import prepare
from analysis.core.corpora.coref.conll2012 import read_conll2012
from analysis.core.corpora.coref.document import CorefDoc, Mention, parse_coref_cell
from analysis.core.corpora.coref.mentions import mention_head, mention_type, rule_head
from analysis.core.corpora.coref.ontogum import read_ontogum
from analysis.core.corpora.coref.windows import make_windows
from conftest import FIXTURES

COREF = FIXTURES / "coref"
OG = COREF / "ontogum"


def spans(doc):
    return [(m.start, m.end, m.cluster) for m in doc.mentions]


def test_parse_coref_cells():
    assert parse_coref_cell("-") == []
    assert parse_coref_cell("_") == []
    assert parse_coref_cell("(12)") == [("one", "12")]
    assert parse_coref_cell("(3|(12") == [("open", "3"), ("open", "12")]
    assert parse_coref_cell("12)|3)") == [("close", "12"), ("close", "3")]
    assert parse_coref_cell("(1(2)") == [("open", "1"), ("one", "2")]  # OntoGUM glues parts
    assert parse_coref_cell("2)(3") == [("close", "2"), ("open", "3")]
    with pytest.raises(ValueError, match="f.conll:7: cannot parse"):
        parse_coref_cell("((1", "f.conll:7")


def test_conll2012_reader_nested_and_multi_token():
    docs = read_conll2012(COREF / "sample_gold_conll")
    assert [d.id for d in docs] == ["test/doc_0/part_000", "test/doc_0/part_001"]
    d0, d1 = docs
    assert d0.sentences == [(0, 5), (5, 12)]
    assert d0.words[:4] == ["John", "saw", "his", "sister"]
    # "(3|(1)" on "his": opens 3 (his sister), one-word mention of 1 (his)
    assert spans(d0) == [(0, 0, "1"), (2, 3, "3"), (2, 2, "1"), (5, 5, "3"), (8, 10, "1")]
    # nested mentions of the same cluster closing on one word: "4)|4)" closes the inner one first
    assert spans(d1) == [(0, 7, "4"), (3, 4, "6"), (6, 7, "4"), (10, 10, "4")]
    assert d1.heads is None and d1.pos[1] == "NN"


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def _conll_line(i, word, coref, ncols=13):
    return "  ".join(["d", "0", str(i), word, "NN", "*"] + ["-"] * (ncols - 7) + [coref])


def test_conll2012_unbalanced_brackets_fail_with_file_line(tmp_path):
    body = (
        "\n".join(
            ["#begin document (d); part 000", _conll_line(0, "a", "(1"), _conll_line(1, "b", "-"), "", "#end document"]
        )
        + "\n"
    )
    p = _write(tmp_path, "open_conll", body)
    with pytest.raises(ValueError, match=rf"{p}:2: mention of cluster 1 opened here is never closed"):
        read_conll2012(p)
    body = (
        "\n".join(
            ["#begin document (d); part 000", _conll_line(0, "a", "-"), _conll_line(1, "b", "2)"), "", "#end document"]
        )
        + "\n"
    )
    p = _write(tmp_path, "close_conll", body)
    with pytest.raises(ValueError, match=rf"{p}:3: closing bracket '2\)' with no open mention"):
        read_conll2012(p)


def test_conll2012_bad_lines(tmp_path):
    p = _write(tmp_path, "short_conll", "#begin document (d); part 000\nd 0 0 a NN * (1)\n#end document\n")
    with pytest.raises(ValueError, match=rf"{p}:2: 7 columns"):
        read_conll2012(p)
    body = "\n".join(["#begin document (d); part 000", _conll_line(0, "a", "-"), _conll_line(5, "b", "-"), ""])
    p = _write(tmp_path, "idx_conll", body + "\n#end document\n")
    with pytest.raises(ValueError, match=rf"{p}:3: word index 5, expected 1"):
        read_conll2012(p)
    p = _write(tmp_path, "noend_conll", "#begin document (d); part 000\n" + _conll_line(0, "a", "-") + "\n")
    with pytest.raises(ValueError, match="no '#end document'"):
        read_conll2012(p)


SENTS = [  # (word, POS, coreference cell or None for no mention), two sentences
    [("Yesterday", "NN", None), ("Kim", "NNP", "(1)"), ("left", "VBD", None), (".", ".", None)],
    [("She", "PRP", "(1)"), ("slept", "VBD", None)],
]


def _variant(cell_style: str, n_pred=(2, 0), pos=True) -> str:
    """A CoNLL-2012 document written as public files do: 'dash' (space-aligned, '-'), 'tab_empty'
    (tab-separated, an empty last field), 'tab_stripped' (tab-separated, that field left out)."""
    out = ["#begin document (v); part 000"]
    for sent, k in zip(SENTS, n_pred):
        for i, (word, tag, cell) in enumerate(sent):
            cols = ["v", "0", str(i), word, tag if pos else "-", "*", "-", "-", "-", "spk", "*"] + ["*"] * k
            if cell_style == "dash":
                out.append("   ".join([*cols, cell or "-"]))
            elif cell_style == "tab_empty":
                out.append("\t".join([*cols, cell or ""]))
            else:
                out.append("\t".join(cols + ([cell] if cell else [])))
        out.append("")
    return "\n".join([*out, "#end document", ""])


@pytest.mark.parametrize("style", ["dash", "tab_empty", "tab_stripped"])
def test_conll2012_variants_read_alike(tmp_path, style):
    """'-', an empty last field after a tab, or that field left out (one column fewer) all mean no
    mention; the predicate columns vary from sentence to sentence (2 here, then none)."""
    (d,) = read_conll2012(_write(tmp_path, f"{style}_conll", _variant(style)))
    assert d.words == ["Yesterday", "Kim", "left", ".", "She", "slept"] and d.sentences == [(0, 4), (4, 6)]
    assert spans(d) == [(1, 1, "1"), (4, 4, "1")]
    assert d.counts["coref_cells_empty"] == (0 if style == "dash" else 4)


def test_conll2012_without_pos_types_from_words(tmp_path, tokenizer):
    _write(tmp_path, "nopos_conll", _variant("tab_empty", pos=False))
    (d,) = read_conll2012(tmp_path / "nopos_conll")
    assert d.pos == [None] * 6
    assert [mention_type(d, m, mention_head(d, m)) for m in d.mentions] == ["proper", "pronoun"]  # capital, lexicon
    _, counts = prepare("conll2012", tmp_path, tokenizer, pattern="*_conll", max_len=64)
    assert counts["mention_types_from_words"] == 2 and counts["mention_types_from_pos"] == 0
    assert counts["coref_cells_empty"] == 4


def test_conll2012_malformed_lines_still_fail(tmp_path):
    text = _variant("dash")
    lines = text.split("\n")
    lines[2] = " ".join(lines[2].split()[:-2])  # 'Kim' with two columns fewer than its sentence
    p = _write(tmp_path, "short_conll", "\n".join(lines))
    with pytest.raises(ValueError, match=rf"{p}:3: 12 columns where this sentence's lines have 14"):
        read_conll2012(p)
    # every line of a sentence with predicates lacks the cell: its last column is no coreference cell
    p = _write(tmp_path, "nocell_conll", _variant("tab_stripped", n_pred=(1, 1)).replace("\t(1)", ""))
    with pytest.raises(ValueError, match=rf"{p}:2: last column '\*' is not a coreference cell"):
        read_conll2012(p)
    p = _write(tmp_path, "trail_conll", _variant("dash").replace("(1)\n", "(1)\t\n", 1))
    with pytest.raises(ValueError, match=rf"{p}:3: a tab after the coreference cell '\(1\)'"):
        read_conll2012(p)


def test_ontogum_reader_aligns_conllu():
    d = read_ontogum(OG / "conll" / "doc_a.conll", OG / "conllu" / "doc_a.conllu")
    assert d.id == "doc_a"
    assert d.sentences == [(0, 8), (8, 13), (13, 18)]  # from the .conllu; the range line 1-2 skipped
    assert d.words[13:16] == ["Anna", "'s", "trip"]
    assert d.heads[0] == 1 and d.heads[1] == -1 and d.heads[13] == 15 and d.heads[14] == 13
    # glued "(1)(2" and "(4(1)"; clusters 2 and 4 are singletons
    assert spans(d) == [
        (0, 0, "1"),
        (2, 4, "2"),
        (2, 2, "1"),
        (6, 6, "3"),
        (8, 8, "1"),
        (10, 11, "3"),
        (13, 15, "4"),
        (13, 13, "1"),
    ]


def test_ontogum_errors(tmp_path):
    conllu = OG / "conllu" / "doc_a.conllu"
    text = (OG / "conll" / "doc_a.conll").read_text()
    p = _write(tmp_path, "bad.conll", text.replace("1\tmet\t_", "1\tmeet\t_"))
    with pytest.raises(ValueError, match=rf"{p}:3: word 'meet' but .*doc_a.conllu:5 has 'met'"):
        read_ontogum(p, conllu)
    p = _write(tmp_path, "unbal.conll", text.replace("4\tfriend\t2)", "4\tfriend\t_"))
    with pytest.raises(ValueError, match=rf"{p}:4: mention of cluster 2 opened here is never closed"):
        read_ontogum(p, conllu)
    d = read_ontogum(p, conllu, strict=False)
    assert d.counts["unbalanced_brackets_skipped"] == 1 and (2, 4, "2") not in spans(d)
    p = _write(tmp_path, "empty.conll", text.replace("1\tmet\t_", "1\t\t_"))  # upstream quirk: '|' words empty
    d = read_ontogum(p, conllu)
    assert d.words[1] == "met" and d.counts["words_restored_from_conllu"] == 1


def test_heads_from_tree_and_types():
    d = read_ontogum(OG / "conll" / "doc_a.conll", OG / "conllu" / "doc_a.conllu")
    got = {(m.start, m.end): d.words[mention_head(d, m)] for m in d.mentions}
    assert got == {
        (0, 0): "Anna",
        (2, 4): "friend",
        (2, 2): "her",
        (6, 6): "Paris",
        (8, 8): "She",
        (10, 11): "city",
        (13, 15): "trip",
        (13, 13): "Anna",
    }
    types = {(m.start, m.end): mention_type(d, m, mention_head(d, m)) for m in d.mentions}
    assert types[(0, 0)] == "proper" and types[(2, 2)] == "pronoun" and types[(2, 4)] == "nominal"
    assert types[(8, 8)] == "pronoun" and types[(10, 11)] == "nominal" and types[(13, 15)] == "nominal"


def test_head_skips_punctuation_and_picks_highest():
    # "the city ." with the period attached outside the span: the head is still "city"
    d = CorefDoc(
        "x",
        ["She", "liked", "the", "city", "."],
        [(0, 5)],
        [],
        pos=["PRP", "VBD", "DT", "NN", "."],
        heads=[1, -1, 3, 1, 1],
        deprels=["nsubj", "root", "det", "obj", "punct"],
    )
    assert mention_head(d, Mention(2, 4, "1")) == 3
    # a span that is not a subtree: both "liked" (root, depth 0) and "She" point outside; the root wins
    assert mention_head(d, Mention(0, 1, "1")) == 1
    # UD flat names are headed on their first word; the mention head is the last one (PTB convention)
    d = CorefDoc(
        "y",
        ["Lord", "Byron", "left"],
        [(0, 3)],
        [],
        pos=["NNP", "NNP", "VBD"],
        heads=[2, 0, -1],
        deprels=["nsubj", "flat", "root"],
    )
    assert mention_head(d, Mention(0, 1, "1")) == 1


def test_rule_head():
    w = ["the", "school", "of", "Dr.", "William", "Glennie"]
    assert rule_head(w, ["DT", "NN", "IN", "NNP", "NNP", "NNP"]) == 1
    assert rule_head(w, [None] * 6) == 1  # POS unknown: 'of' from the stop-word list
    assert rule_head(["Dr.", "William", "Glennie"], ["NNP", "NNP", "NNP"]) == 2
    assert rule_head(["Byron", "'s", "junior"], ["NNP", "POS", "NN"]) == 2
    assert rule_head(["he"], ["PRP"]) == 0
    assert rule_head(["the", "man", ",", "who", "left"], ["DT", "NN", ",", "WP", "VBD"]) == 1
    d = read_conll2012(COREF / "sample_gold_conll")[1]
    assert [d.words[mention_head(d, m)] for m in d.mentions] == ["president", "club", "Smith", "herself"]
    assert [mention_type(d, m, mention_head(d, m)) for m in d.mentions] == ["nominal", "nominal", "proper", "pronoun"]


def test_make_windows():
    units = [(0, 5, 5), (5, 10, 5), (10, 15, 5), (15, 20, 5)]
    assert make_windows(units, budget=10, stride=5) == [(0, 10), (5, 15), (10, 20)]
    assert make_windows(units, budget=10, stride=10) == [(0, 10), (10, 20)]
    assert make_windows(units, budget=100, stride=5) == [(0, 20)]
    # stride below one unit still moves on by one unit
    assert make_windows(units, budget=10, stride=1) == [(0, 10), (5, 15), (10, 20)]
    with pytest.raises(ValueError, match="does not fit"):
        make_windows([(0, 3, 12)], budget=10, stride=5)


def test_ontogum_overlapping_windows_and_counts(tokenizer):
    # tiny tokenizer: sentences of 8, 5, 6 pieces ("'s" = 2); budget 16 - 2 = 14
    recs, counts = prepare("ontogum", OG, tokenizer, split="dev", max_len=16, windows="overlapping", stride=5)
    assert [r["meta"]["word_offset"] for r in recs] == [0, 8]
    assert [len(r["words"][0]) for r in recs] == [13, 10]
    assert counts["documents_used"] == 1 and counts["missing"] == ["doc_missing"]
    assert counts["windows_mode"] == "overlapping" and counts["stride"] == 5
    assert counts["anaphors"] == 4 and counts["anaphors_scorable"] == 4
    assert counts["anaphors_antecedents_outside_window"] == 0 and counts["anaphors_in_no_window"] == 0
    # Anna(13) - Anna(0) and Anna(13) - her(2) never share a window; the other 5 pairs do
    assert counts["pairs_in_one_window"] == 5 and counts["pairs_not_in_one_window"] == 2
    scored = [[(m["start"], m["end"]) for m in r["meta"]["mentions"] if m["scored"]] for r in recs]
    assert scored == [[(2, 2), (8, 8), (10, 11)], [(5, 5)]]  # window word indices
    w1 = {(m["start"], m["end"]): m for m in recs[1]["meta"]["mentions"]}
    assert w1[(5, 7)]["head"] == 7 and w1[(5, 7)]["head_word"] == "trip"
    # non-overlapping sentence windows: Anna(13) has no antecedent in its window
    recs, counts = prepare("ontogum", OG, tokenizer, split="dev", max_len=12, windows="overlapping", stride=5)
    assert len(recs) == 3
    assert counts["anaphors_scorable"] == 1 and counts["anaphors_antecedents_outside_window"] == 3


def test_first_window_is_the_papers_population(tokenizer):
    """The paper truncates each document to its first max_len pieces (the default): what lies
    beyond is never scored, where overlapping windows over the whole document score it."""
    recs, counts = prepare("ontogum", OG, tokenizer, split="dev", max_len=12)  # budget 10 pieces
    assert len(recs) == 1 and recs[0]["meta"]["word_offset"] == 0
    assert recs[0]["words"][0] == "Anna met her old friend in Paris . She liked".split()  # whole words, mid-sentence
    assert counts["windows_mode"] == "first" and "stride" not in counts
    assert counts["documents_truncated"] == 1 and counts["words_beyond_truncation"] == 8
    # her(2) and She(8) are scored; "the city"(10-11) and Anna(13) lie beyond the first 10 pieces
    scored = [(m["start"], m["end"]) for m in recs[0]["meta"]["mentions"] if m["scored"]]
    assert scored == [(2, 2), (8, 8)]
    assert counts["anaphors"] == 4 and counts["anaphors_scorable"] == 2 and counts["anaphors_in_no_window"] == 2
    assert counts["mentions_in_windows"] == 5 and counts["mentions_in_no_window"] == 3
    over, _ = prepare("ontogum", OG, tokenizer, split="dev", max_len=12, windows="overlapping", stride=5)
    assert [m["head_word"] for r in over for m in r["meta"]["mentions"] if m["scored"]] == ["her"]
    # a document that fits is not truncated: one window of all its words, every anaphor scored
    recs, counts = prepare("ontogum", OG, tokenizer, split="dev", max_len=64)
    assert len(recs[0]["words"][0]) == 18 and counts["documents_truncated"] == 0
    assert counts["anaphors_scorable"] == 4


def test_windows_option_is_checked(tokenizer):
    with pytest.raises(ValueError, match="windows must be one of"):
        prepare("ontogum", OG, tokenizer, split="dev", max_len=16, windows="all")
    with pytest.raises(ValueError, match="stride applies to windows: overlapping only"):
        prepare("ontogum", OG, tokenizer, split="dev", max_len=16, stride=5)


def test_conll2012_reader_registered(tokenizer):
    recs, counts = prepare("conll2012", COREF, tokenizer, pattern="*_conll", max_len=64)
    assert [r["id"] for r in recs] == ["test/doc_0/part_000#w000", "test/doc_0/part_001#w000"]
    assert counts["documents"] == 2 and counts["anaphors"] == 4  # his, She, the tall man, herself


@pytest.mark.parametrize("name, opts", [("ontogum", {"split": "dev"}), ("conll2012", {"pattern": "*_conll"})])
def test_coref_readers_refuse_unknown_options(tokenizer, name, opts):
    src = OG if name == "ontogum" else COREF
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['max_doc'\]"):
        prepare(name, src, tokenizer, max_len=64, max_doc=1, **opts)
