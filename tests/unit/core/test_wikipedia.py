import pytest

from analysis.core.corpora import prepare
from analysis.core.corpora.wikipedia import read_articles, segments
from conftest import FIXTURES

MINI = FIXTURES / "wikipedia" / "mini.raw"


def test_read_articles_titles_crlf_artefacts():
    arts = read_articles(MINI)
    assert [t for t, _ in arts] == ["Alpha Article", "Beta"]
    alpha = arts[0][1]
    assert alpha[0] == ["Alpha is a test .", "It has 1,000 words and a well-known name .", "The end ."]
    assert alpha[1] == ["Second paragraph here .", "Another sentence follows !"]  # heading skipped
    assert arts[1][1] == [["Beta starts here .", "Beta ends 3.5 times ."]]
    assert not any("\r" in s for _, ps in arts for p in ps for s in p)


def test_text_before_title_is_an_error(tmp_path):
    bad = tmp_path / "bad.raw"
    bad.write_text(" orphan text .\n = T = \n")
    with pytest.raises(ValueError, match="bad.raw:1"):
        read_articles(bad)


def test_segments_fit_and_stay_in_one_article(tokenizer):
    arts = read_articles(MINI)
    segs, counts = segments(arts, tokenizer, max_len=16, seed=0)
    assert counts["articles"] == 2 and counts["sentences"] == 7
    for s in segs:
        a, b = s["words"]
        assert a and b
        n = len(tokenizer(a, b, is_split_into_words=True)["input_ids"])
        assert n <= 16
    # consecutive chunks: concatenating an article's segments gives back its words in order
    alpha = [w for s in segs if s["meta"]["article"] == "Alpha Article" for part in s["words"] for w in part]
    assert alpha[:4] == ["Alpha", "is", "a", "test"]
    assert alpha[-3:] == ["sentence", "follows", "!"]


def test_long_sentence_is_cut_and_counted(tokenizer):
    arts = [("T", [[" ".join(["word"] * 40) + " .", "Short one ."]])]
    segs, counts = segments(arts, tokenizer, max_len=16)
    assert counts["long_sentences_cut"] == 1
    assert all(len(tokenizer(*s["words"], is_split_into_words=True)["input_ids"]) <= 16 for s in segs)


def test_sampling_is_seeded(tokenizer):
    a, _ = prepare("wikipedia", MINI.parent, tokenizer, file=MINI.name, n_segments=2, max_len=16, seed=3)
    b, _ = prepare("wikipedia", MINI.parent, tokenizer, file=MINI.name, n_segments=2, max_len=16, seed=3)
    assert a == b
    with pytest.raises(ValueError, match="only"):
        prepare("wikipedia", MINI.parent, tokenizer, file=MINI.name, n_segments=999, max_len=16)
