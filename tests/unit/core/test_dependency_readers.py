"""Dependency treebank readers on hand-written fixtures (tests/fixtures/dependency)."""

import zipfile

import pytest

from analysis.core.corpora import prepare
from analysis.core.corpora.dependency import read_treebank
from analysis.core.corpora.splits import read_splits
from analysis.core.corpora.treebank_formats import check_tree
from conftest import FIXTURES

FIX = FIXTURES / "dependency"


def test_splits_md_sections():
    s = read_splits(FIX / "splits.md")
    assert s["dev"] == ["docA", "docZ_not_present"]
    assert s["test"] == ["docB"]


def test_splits_md_headings_and_bullets(tmp_path):
    # one parser for GUM-SD and OntoGUM: '##' or deeper headings, lower-cased; '*', '-', '+' bullets;
    # a heading seen twice adds to its list; bullets before any heading are ignored
    p = tmp_path / "splits.md"
    p.write_text("# Splits\n* stray\n## Dev\n* a\n- b\n### test\n+ c\n\n## dev\n  * d extra words\n")
    assert read_splits(p) == {"dev": ["a", "b", "d"], "test": ["c"]}


def test_conllx_dev_split_records():
    recs, counts = read_treebank(FIX, "conllx", files="*.conll10", split="dev")
    assert [r["id"] for r in recs] == ["docA:0", "docA:1"]
    r = recs[0]
    assert r["words"] == [["The", "dog", "saw", "cats", "."]]
    assert r["meta"]["heads"] == [1, 2, -1, 2, 2]
    assert r["meta"]["rels"] == ["det", "nsubj", "root", "dobj", "punct"]
    assert r["meta"]["pos"] == ["DT", "NN", "VBD", "NNS", "."]
    assert (r["meta"]["doc"], r["meta"]["sent"]) == ("docA", 0)
    assert counts["split_listed_documents_absent"] == 1
    assert counts["sentences_kept"] == 2


def test_conllx_train_is_everything_not_dev_or_test():
    recs, _ = read_treebank(FIX, "conllx", files="*.conll10", split="train")
    assert {r["meta"]["doc"] for r in recs} == {"docC"}
    recs, _ = read_treebank(FIX, "conllx", files="*.conll10", split="test")
    assert {r["meta"]["doc"] for r in recs} == {"docB"}


def test_conllu_skips_ranges_and_empty_nodes_counted():
    recs, counts = read_treebank(FIX, "conllu", files="*.conllu")
    assert recs[0]["words"] == [["I", "did", "n't", "go", "."]]
    assert recs[0]["meta"]["heads"] == [3, 3, 3, -1, 3]
    assert recs[0]["meta"]["rels"][1] == "aux"
    assert counts["multiword_tokens_skipped"] == 1
    assert counts["empty_nodes_skipped"] == 1
    assert recs[1]["meta"]["heads"] == [-1, 0]


def test_dp_plain_and_zip(tmp_path):
    recs, counts = read_treebank(FIX, "dp", files="*.dp")
    assert [r["id"] for r in recs] == ["wsj_0001:0", "wsj_0001:1", "wsj_0002:0"]
    assert recs[0]["meta"]["heads"] == [1, 2, -1, 2]
    assert set(recs[0]["meta"]["rels"]) == {"_"}
    with zipfile.ZipFile(tmp_path / "dependency_treebank.zip", "w") as z:
        for p in sorted(FIX.glob("*.dp")):
            z.write(p, f"dependency_treebank/{p.name}")
    zrecs, _ = read_treebank(tmp_path, "dp", files="*.zip", members="*.dp")
    assert [r["meta"] for r in zrecs] == [r["meta"] for r in recs]


def test_max_sentences_is_seeded_and_counted():
    a, ca = read_treebank(FIX, "conllx", files="*.conll10", max_sentences=3, seed=1)
    b, _ = read_treebank(FIX, "conllx", files="*.conll10", max_sentences=3, seed=1)
    assert [r["id"] for r in a] == [r["id"] for r in b] and len(a) == 3
    assert ca["sentences_read"] == 5 and ca["sentences_left_out_by_max_sentences"] == 2


def test_registered_readers_by_config_alone():
    recs, _ = prepare("conllx", FIX, None, files="*.conll10", split="dev", max_len=128)
    assert len(recs) == 2
    recs, _ = prepare("dp", FIX, None, files="wsj_0002.dp")
    assert recs[0]["words"] == [["It", "rains"]]


GOOD = "1\ta\ta\tX\tX\t_\t2\tdep\t_\t_\n2\tb\tb\tX\tX\t_\t0\troot\t_\t_\n"


@pytest.mark.parametrize(
    "text, line, message",
    [
        (GOOD + "\n1\ta\ta\tX\tX\t_\t0\troot\t_\n", 4, "columns"),
        (GOOD + "\n1\ta\ta\tX\tX\t_\tx\troot\t_\t_\n", 4, "not an integer"),
        ("1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n2\tb\tb\tX\tX\t_\t3\tdep\t_\t_\n", 2, "out of range"),
        ("1\ta\ta\tX\tX\t_\t2\tdep\t_\t_\n2\tb\tb\tX\tX\t_\t1\tdep\t_\t_\n", 1, "no root"),
        (
            "1\tr\tr\tX\tX\t_\t0\troot\t_\t_\n2\ta\ta\tX\tX\t_\t3\tdep\t_\t_\n3\tb\tb\tX\tX\t_\t2\tdep\t_\t_\n",
            2,
            "cycle",
        ),
        ("1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n3\tb\tb\tX\tX\t_\t1\tdep\t_\t_\n", 2, "token id"),
    ],
)
@pytest.mark.parametrize("fmt, ext", [("conllx", "conll10"), ("conllu", "conllu")])
def test_malformed_conll_fails_with_file_and_line(tmp_path, text, line, message, fmt, ext):
    p = tmp_path / f"bad.{ext}"
    p.write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        read_treebank(tmp_path, fmt, files=f"*.{ext}")
    assert f"{p}:{line}:" in str(err.value)


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("a\tDT\t2\nb\tNN\n", 2, "columns"),
        ("a\tDT\t2\nb\tNN\t0\n\nc\tNN\tzero\n", 4, "not an integer"),
        ("a\tDT\t2\nb\tNN\t0\n\nc\tNN\t-1\n", 4, "out of range"),
        ("a\tDT\t2\nb\tNN\t1\n", 1, "no root"),
    ],
)
def test_malformed_dp_fails_with_file_and_line(tmp_path, text, line, message):
    p = tmp_path / "bad.dp"
    p.write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        read_treebank(tmp_path, "dp", files="*.dp")
    assert f"{p}:{line}:" in str(err.value)


def test_check_tree_accepts_forest_and_rejects_self_loop():
    check_tree([-1, 0, -1, 2], "x", [1, 2, 3, 4])
    with pytest.raises(ValueError, match="x:7: cycle"):
        check_tree([-1, 1], "x", [6, 7])


def test_missing_split_section(tmp_path):
    with pytest.raises(ValueError, match="no '## nope' section"):
        read_treebank(FIX, "conllx", files="*.conll10", split="nope")


def test_treebank_readers_refuse_unknown_options():
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['max_sentence'\]"):
        prepare("conllx", FIX, None, files="*.conll10", max_sentence=3)
