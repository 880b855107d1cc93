"""Models side by side: the compare target on the fixture mirror with the embedded MiniLM, the tiny
random BERT and a RoBERTa-style model built here (byte-level BPE trained on fixture sentences,
random weights, `<s> A </s></s> B </s>`); plus the spine's special tokens for that model."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from analysis.scorecard.evaluate import ALSO_RANDOM, INCONCLUSIVE, MULTIPLICITY
from conftest import ROOT, WORKFLOW, copy_into

WIKI = ROOT / "tests" / "fixtures" / "mirror" / "wikitext-2-raw" / "wiki.test.raw"


def build_roberta(dest: Path, n_layers: int = 2, n_heads: int = 4, seed: int = 0) -> Path:
    """A RoBERTa-style encoder from nothing: a byte-level BPE tokenizer trained on fixture
    sentences, random RobertaConfig weights; saved with save_pretrained (no download)."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizerFast

    lines = [line.strip() for line in WIKI.read_text(encoding="utf-8").splitlines() if line.strip()][:400]
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        lines, vocab_size=600, min_frequency=2, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    )
    dest.mkdir(parents=True, exist_ok=True)
    bpe.save_model(str(dest))
    # transformers 5 takes the vocabulary and merges themselves (vocab=, merges=)
    tok = RobertaTokenizerFast(vocab=str(dest / "vocab.json"), merges=str(dest / "merges.txt"), model_max_length=512)
    tok.save_pretrained(dest)
    torch.manual_seed(seed)
    config = RobertaConfig(
        vocab_size=len(tok),
        hidden_size=32,
        num_hidden_layers=n_layers,
        num_attention_heads=n_heads,
        intermediate_size=64,
        max_position_embeddings=514,
        type_vocab_size=1,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    RobertaModel(config).save_pretrained(dest)
    return dest


@pytest.fixture(scope="module")
def roberta_dir(tmp_path_factory):
    return build_roberta(tmp_path_factory.mktemp("models") / "tiny-roberta")


def test_the_spine_reads_roberta_special_tokens(roberta_dir):
    from analysis.core.extraction import encode_records
    from analysis.core.models import load_tokenizer, token_kinds

    tok = load_tokenizer(str(roberta_dir))
    rec = {"id": "r0", "words": [["The", "river", "rose", "."], ["It", "fell", ",", "then", "rose"]]}
    items, _ = encode_records(tok, [rec], max_len=64, policy="split", segments="pairs")
    item = items[0]
    tokens = item["tokens"]
    # <s> A </s></s> B </s>: two separators between the segments
    assert tokens[0] == "<s>" and tokens[-1] == "</s>"
    assert item["kinds"][0] == "C" and item["kinds"].count("S") == 3
    assert token_kinds(tok, item["input_ids"]) == item["kinds"]
    assert item["kinds"].count("P") == 2  # "." and "," read as punctuation through byte-level BPE
    # every word gets its pieces, in order; special tokens belong to no word
    words = [w for w in item["word_ids"] if w >= 0]
    assert words == sorted(words) and set(words) == set(range(9))
    assert [w for w, k in zip(item["word_ids"], item["kinds"]) if k in "CS"] == [-1] * 4
    # RoBERTa has one token type: the model is fed none (type_vocab_size 1)
    assert set(item["token_type_ids"]) <= {0, 1}


FIXTURE_ITEMS = ["mirror", "sources.yaml", "smoke_mirror.yaml", "patterns"]
CHEAP_RULES = ["relative_position", "special_tokens", "sep_attention", "entropy", "dep_heads", "coref_heads"]


@pytest.mark.slow
def test_compare_three_models(roberta_dir, tmp_path):
    """`snakemake compare` with three models on the fixture mirror: only the cheap rules the chosen
    panels need (extraction, sec. 3 tables, dep_heads, coref_heads, scorecard), about a minute."""
    work = copy_into(tmp_path / "wf", WORKFLOW)
    copy_into(work / "tests" / "fixtures", FIXTURE_ITEMS, ROOT / "tests" / "fixtures")
    overlay = {
        "model": ["embedded:all-MiniLM-L6-v2", "tiny-random-bert", str(roberta_dir)],
        "clark_syntax": {"corpora": ["gum_sd_dev"]},
        "corpora": {"wiki": {"n_shards": 1}, "gum_sd_dev": {"n_shards": 1}},  # fewer extraction jobs
        "overview": {
            "scorecard_rules": CHEAP_RULES,
            "compare": {"panels": ["special_tokens", "entropy", "dep_heads", "coref", "scorecard"]},
            "explorer": {"dep_corpus": "gum_sd_dev", "n_examples": 3},
        },
    }
    (work / "compare.yaml").write_text(yaml.safe_dump(overlay))
    slugs = ["all-MiniLM-L6-v2", "tiny-random-bert", "tiny-roberta"]
    targets = ["compare", *[f"results/{s}/explorer.html" for s in slugs]]
    env = {**os.environ, "ATTN_MIRROR": str(work / "tests/fixtures/mirror"), "PYTHONPATH": str(work)}
    snakemake = str(Path(sys.executable).with_name("snakemake"))
    configs = ["config/smoke.yaml", "tests/fixtures/smoke_mirror.yaml", "compare.yaml"]
    run = subprocess.run(
        [snakemake, "--cores", "2", "--configfile", *configs, "--", *targets],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    logs = "\n".join(p.read_text()[-2000:] for p in sorted((work / "logs").rglob("*.log")))
    assert run.returncode == 0, run.stderr[-5000:] + logs[-5000:]
    tables = work / "results" / "compare" / "tables"
    special = pd.read_csv(tables / "compare.special_tokens.csv")
    assert list(dict.fromkeys(special["model"])) == slugs
    for slug in slugs:  # every model's own by-layer table, with its relative depth
        own = pd.read_csv(work / "results" / slug / "tables" / "special_tokens.by_layer.csv")
        mine = special[special["model"] == slug]
        assert np.allclose(mine["cls"], own["cls"]) and np.allclose(
            mine["relative_depth"], own["layer"] / own["layer"].max()
        )
    matrix = pd.read_csv(tables / "compare.scorecard.csv")
    assert set(matrix["model"]) == set(slugs)
    probes = matrix[matrix["id"] == "clark5.probe_order"]
    assert (probes["verdict"] == "not run").all() and probes["reason"].str.contains("not selected").all()
    surface = matrix[matrix["id"] == "clark3.current_token_low"]
    assert set(surface["verdict"]) <= {"holds", ALSO_RANDOM, INCONCLUSIVE, MULTIPLICITY, "does not hold"}
    # RoBERTa's <s> and </s> are its [CLS] and [SEP]: attention to them is measured, not zero
    rob = special[special["model"] == "tiny-roberta"]
    assert (rob["cls"] > 0).all() and (rob["sep"] > 0).all()
    for panel in ["special_tokens", "entropy", "dep_heads", "coref", "scorecard"]:
        assert (work / "results" / "compare" / "figures" / f"compare.{panel}.png").stat().st_size > 10_000
    for slug in slugs:
        assert (work / "results" / slug / "explorer.html").stat().st_size > 1000
    out = ROOT / "results" / "test_screenshots"
    out.mkdir(parents=True, exist_ok=True)
    for panel in ["special_tokens", "scorecard", "dep_heads"]:
        (out / f"compare.{panel}.png").write_bytes(
            (work / "results/compare/figures" / f"compare.{panel}.png").read_bytes()
        )
