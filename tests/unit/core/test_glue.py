"""GLUE readers on hand-written fixtures (tests/fixtures/glue) and metrics computed by hand."""

import math
import shutil

import numpy as np
import pytest

from analysis.core.corpora import prepare
from analysis.core.glue import metrics
from analysis.core.glue.reader import GlueFormatError, read_split, select_rows
from conftest import FIXTURES, mirror_dir

GLUE = FIXTURES / "glue"


def test_sst2_single_sentences():
    recs = read_split(GLUE, "SST-2", "train")
    assert [r["words"] for r in recs] == [
        [["it", "is", "a", "charming", "film", "."]],
        [["bleak", "and", "dull"]],
        [["warm", ",", "funny", "and", "wise", "."]],
    ]
    assert [r["meta"]["label"] for r in recs] == [1, 0, 1]
    assert recs[0]["id"] == "SST-2-train-0" and recs[0]["meta"]["line"] == 2


def test_mrpc_bom_header_and_bare_quotes():
    recs = read_split(GLUE, "MRPC", "dev")
    assert len(recs) == 2  # the BOM header is skipped, the quotes do not merge rows
    assert recs[0]["words"] == [["He", "said", '"', "yes", '"', "."], ["He", "agreed", "."]]
    assert [r["meta"]["label"] for r in recs] == [1, 0]


def test_rte_labels_and_stsb_scores():
    rte = read_split(GLUE, "RTE", "dev")
    assert [r["meta"]["label"] for r in rte] == [1, 0]  # entailment = 1
    assert rte[1]["words"][0] == ["It", "rained", '"a', 'lot".']
    sts = read_split(GLUE, "STS-B", "dev")
    assert [r["meta"]["label"] for r in sts] == [5.0, 0.25]
    assert sts[0]["words"][1] == ["An", "air", "plane", "is", "taking", "off."]


def test_cola_no_header_no_final_newline():
    recs = read_split(GLUE, "CoLA", "dev")
    assert [r["words"][0] for r in recs] == [["Bill", "likes", "himself."], ["Himself", "likes", "Bill."]]
    assert [r["meta"]["label"] for r in recs] == [1, 0]
    assert recs[0]["meta"]["line"] == 1


def test_qnli_has_no_train_split():
    assert len(read_split(GLUE, "QNLI", "dev")) == 1
    with pytest.raises(ValueError, match="no 'train' split"):
        read_split(GLUE, "QNLI", "train")


@pytest.mark.parametrize(
    "content,message",
    [
        ("sentence\tlabel\ngood film\t1\nno label here\n", r"dev.tsv:3: 1 tab-separated columns"),
        ("sentence\tlabel\ngood film\t1\nbad\t2\n", r"dev.tsv:3: label '2'"),
        ("sentence\tlabel\n \t1\n", r"dev.tsv:2: empty sentence"),
        ("sentence\tlabel\ngood\t1\n\n", r"dev.tsv:3: empty line"),
    ],
)
def test_malformed_rows_name_file_and_line(tmp_path, content, message):
    (tmp_path / "SST-2").mkdir()
    (tmp_path / "SST-2" / "dev.tsv").write_text(content)
    with pytest.raises(GlueFormatError, match=message):
        read_split(tmp_path, "SST-2", "dev")


def test_bad_score(tmp_path):
    shutil.copytree(GLUE / "STS-B", tmp_path / "STS-B")
    p = tmp_path / "STS-B" / "dev.tsv"
    p.write_text(p.read_text().replace("0.250", "n/a"))
    with pytest.raises(GlueFormatError, match=r"dev.tsv:3: score 'n/a'"):
        read_split(tmp_path, "STS-B", "dev")


def test_limit_and_seeded_sample_and_corpus_reader():
    assert [r["id"] for r in read_split(GLUE, "SST-2", "train", limit=2)] == ["SST-2-train-0", "SST-2-train-1"]
    a = read_split(GLUE, "SST-2", "train", limit=2, seed=3)
    assert a == read_split(GLUE, "SST-2", "train", limit=2, seed=3)
    assert [int(r["id"].rsplit("-", 1)[1]) for r in a] == sorted(int(r["id"].rsplit("-", 1)[1]) for r in a)
    recs, counts = prepare("glue", GLUE, None, task="RTE", split="dev", limit=1)
    assert len(recs) == 1 and counts == {"rows": 2, "records": 1, "not_used": 1}


def test_metrics_by_hand():
    pred, gold = [1, 1, 0, 0, 1], [1, 0, 0, 1, 1]
    assert metrics.accuracy(pred, gold) == 0.6
    # tp=2 fp=1 fn=1 -> F1 = 4/6
    assert metrics.f1(pred, gold) == pytest.approx(2 / 3)
    # tp=2 tn=1 fp=1 fn=1: (2-1)/sqrt(3*3*2*2) = 1/6
    assert metrics.mcc(pred, gold) == pytest.approx(1 / 6)
    assert metrics.mcc([1, 1], [0, 1]) == 0.0
    assert metrics.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    # ranks of [1, 2, 2, 3] are [0, 1.5, 1.5, 3]; spearman of a monotone map is 1
    assert metrics.spearman([1, 2, 2, 3], [10, 20, 20, 100]) == pytest.approx(1.0)
    assert metrics.spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    x, y = [0.0, 1.0, 2.0, 5.0], [1.0, 0.0, 3.0, 2.0]
    assert metrics.pearson(x, y) == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert metrics.evaluate("STS-B", np.array([1.0, 2.0, 3.0]), [1.0, 2.0, 2.5]).keys() == {"pearson", "spearman"}
    assert list(metrics.predictions("MRPC", [[0.1, 0.9], [2.0, -1.0]])) == [1, 0]
    assert math.isclose(metrics.predictions("STS-B", [[3.5], [1.0]])[0], 3.5)


@pytest.mark.skipif(mirror_dir() is None, reason="no offline mirror")
def test_real_files_row_counts():
    """The counts stated in the mirror's README (QNLI dev only)."""
    root = mirror_dir() / "glue"
    expected = {
        ("SST-2", "train"): 67349,
        ("SST-2", "dev"): 872,
        ("MRPC", "train"): 3668,
        ("MRPC", "dev"): 408,
        ("RTE", "train"): 2490,
        ("RTE", "dev"): 277,
        ("STS-B", "train"): 5749,
        ("STS-B", "dev"): 1500,
        ("CoLA", "train"): 8551,
        ("CoLA", "dev"): 1043,
        ("QNLI", "dev"): 5463,
    }
    for (task, split), n in expected.items():
        assert len(read_split(root, task, split)) == n, (task, split)


def test_select_rows_picks_as_read_split_does():
    full = read_split(GLUE, "SST-2", "dev")
    for limit, seed in [(3, 0), (3, None), (None, 0), (len(full) + 5, 1)]:
        assert select_rows(full, limit, seed) == read_split(GLUE, "SST-2", "dev", limit=limit, seed=seed)
