import json

import numpy as np
import pytest
import torch

from analysis.core.extraction import TooLong, encode_records, extract_shard
from analysis.core.extraction_settings import ShardSettings
from analysis.core.storage import Shard, Shards, write_shard


def test_write_read_roundtrip(tmp_path):
    rng = np.random.default_rng(0)
    examples = [
        {
            "id": "a",
            "n": 3,
            "tokens": list("xyz"),
            "input_ids": [1, 2, 3],
            "kinds": "COS",
            "word_ids": [-1, 0, -1],
            "seq_ids": [-1, 0, -1],
        },
        {
            "id": "b",
            "n": 2,
            "tokens": list("xy"),
            "input_ids": [1, 3],
            "kinds": "CS",
            "word_ids": [-1, -1],
            "seq_ids": [-1, -1],
        },
    ]
    maps = {0: rng.dirichlet(np.ones(3), size=(2, 1, 3)), 1: rng.dirichlet(np.ones(2), size=(2, 1, 2))}
    write_shard(tmp_path / "shard-0", {"n_layers": 2, "n_heads": 1}, examples, [(1, maps[1]), (0, maps[0])])
    got = list(Shard(tmp_path / "shard-0.npy"))
    assert [e.id for e in got] == ["a", "b"]
    assert np.allclose(got[0].attn, maps[0], atol=1e-3)
    assert got[1].attn16.dtype == np.float16 and got[1].attn.shape == (2, 1, 2, 2)
    # one head's map: the same values as the full copy's slice (layer, head 1-indexed)
    assert np.array_equal(got[1].head_map(2, 1), got[1].attn[1, 0])
    # unpadded: exactly sum of L*H*n^2 float16 values
    assert np.load(tmp_path / "shard-0.npy").size == 2 * 9 + 2 * 4
    assert not list(tmp_path.glob("*.part"))


def test_write_refuses_missing_or_misshaped(tmp_path):
    ex = [
        {
            "id": "a",
            "n": 2,
            "tokens": ["x", "y"],
            "input_ids": [1, 2],
            "kinds": "CS",
            "word_ids": [-1, -1],
            "seq_ids": [-1, -1],
        }
    ]
    with pytest.raises(ValueError, match="got no attention"):
        write_shard(tmp_path / "s", {"n_layers": 1, "n_heads": 1}, ex, [])
    with pytest.raises(ValueError, match="shape"):
        write_shard(tmp_path / "s", {"n_layers": 1, "n_heads": 1}, ex, [(0, np.ones((1, 1, 3, 3)))])


def test_extract_tiny_model(tmp_path, tiny_model, tokenizer):
    records = [
        {"id": "p", "words": [["The", "cat", "sat", "."], ["It", "purred", ","]]},
        {"id": "q", "words": [["Unbelievably", "short"]], "meta": {"x": 1}},
    ]
    settings = ShardSettings(max_len=32, batch_size=2, progress=False)
    counts = extract_shard(tiny_model, tokenizer, records, tmp_path / "shard-0", settings, model_name="tiny")["counts"]
    assert counts == {"records": 2, "examples": 2}
    shards = Shards([tmp_path / "shard-0.npy"])
    assert (shards.n_layers, shards.n_heads) == (2, 4)
    exs = list(shards)
    p = exs[0]
    assert p.kinds[0] == "C" and p.kinds[-1] == "S" and p.kinds.count("S") == 2
    assert p.kinds[p.tokens.index(".")] == "P" and p.kinds[p.tokens.index(",")] == "P"
    # word ids are global over A and B
    assert max(p.word_ids) == 6 and p.word_ids[0] == -1
    assert exs[1].meta == {"x": 1}
    for e in exs:
        assert np.allclose(e.attn16.astype(np.float32).sum(-1), 1, atol=5e-3)
    # same maps as an unbatched forward pass
    import torch

    enc = tokenizer(*records[1]["words"], is_split_into_words=True, return_tensors="pt")
    with torch.inference_mode():
        ref = torch.stack(tiny_model(**enc, output_attentions=True).attentions, 1)[0].numpy()
    assert np.allclose(exs[1].attn, ref, atol=2e-3)


def test_long_inputs_split_truncated_or_refused(tokenizer):
    words = [f"w{i}" for i in range(30)]  # 'w12' -> several pieces each
    rec = {"id": "long", "words": [words]}
    items, counts = encode_records(tokenizer, [rec], max_len=16, policy="split")
    assert counts["too_long"] == 1 and counts["split_into"] == len(items) > 1
    assert all(it["n"] <= 16 for it in items)
    # every word lands in exactly one window, with its global index
    seen = [w for it in items for w in dict.fromkeys(x for x in it["word_ids"] if x >= 0)]
    assert seen == list(range(30))
    assert items[1]["meta"]["part"] == 1 and items[1]["meta"]["word_offset"] > 0
    items, counts = encode_records(tokenizer, [rec], max_len=16, policy="truncate")
    assert counts["truncated"] == 1 and items[0]["n"] == 16 and items[0]["meta"]["truncated"]
    with pytest.raises(TooLong, match="long"):
        encode_records(tokenizer, [rec], max_len=16, policy="error")


def test_header_records_special_tokens(tmp_path, tiny_model, tokenizer):
    extract_shard(
        tiny_model, tokenizer, [{"id": "a", "words": [["hi"]]}], tmp_path / "s", ShardSettings(8, progress=False)
    )
    header = json.loads((tmp_path / "s.json").read_text())
    assert header["cls_token"] == tokenizer.cls_token and header["sep_token"] == tokenizer.sep_token


def _reference_maps(model, enc, token_type_ids):
    feed = {k: torch.tensor([v]) for k, v in enc.items()}
    feed["token_type_ids"] = torch.tensor([token_type_ids])
    with torch.inference_mode():
        out = model(**feed, output_attentions=True)
    return torch.stack(out.attentions, 1)[0].numpy()


def test_pairs_are_fed_zeros_by_default_as_the_authors_did(tiny_model, tokenizer):
    # [CLS] A [SEP] B [SEP]: the authors' extraction feeds token type 0 to both segments (the
    # default); segment_ids "pairs" feeds the tokenizer's 0/1 (the closing [SEP] in B, type 1)
    from analysis.core.extraction import iter_maps, segment_ids

    rec = {"id": "p", "words": [["the", "dog", "barked"], ["it", "ran"]]}
    enc = tokenizer(["the", "dog", "barked"], ["it", "ran"], is_split_into_words=True)
    assert 1 in enc["token_type_ids"]  # the tokenizer's own ids differ from the authors'
    zeros, _ = encode_records(tokenizer, [rec], max_len=64)
    pairs, _ = encode_records(tokenizer, [rec], max_len=64, segments="pairs")
    assert segment_ids(zeros[0]) == [0] * zeros[0]["n"]
    assert segment_ids(pairs[0]) == list(enc["token_type_ids"])
    assert segment_ids(pairs[0])[-1] == 1 and pairs[0]["seq_ids"][-1] == -1
    # the stored maps are those of the model on exactly the ids each setting feeds, and differ
    _, m_zeros = next(iter_maps(tiny_model, tokenizer, zeros, progress=False))
    _, m_pairs = next(iter_maps(tiny_model, tokenizer, pairs, progress=False))
    assert np.allclose(m_zeros.astype(np.float32), _reference_maps(tiny_model, enc, [0] * zeros[0]["n"]), atol=2e-3)
    assert np.allclose(m_pairs.astype(np.float32), _reference_maps(tiny_model, enc, enc["token_type_ids"]), atol=2e-3)
    assert not np.allclose(m_zeros.astype(np.float32), m_pairs.astype(np.float32), atol=2e-3)


def test_type_ids_by_setting():
    from analysis.core.extraction import type_ids

    seq = [-1, 0, 0, -1, 1, -1]
    assert type_ids("zeros", seq, [0, 0, 0, 0, 1, 1]) == [0] * 6
    assert type_ids("pairs", seq, [0, 0, 0, 0, 1, 1]) == [0, 0, 0, 0, 1, 1]
    # a tokenizer that gives none: special tokens take the segment of the token before them
    assert type_ids("pairs", seq) == [0, 0, 0, 0, 1, 1]
    assert type_ids("pairs", [-1, 0, 0, -1]) == [0, 0, 0, 0]  # one segment: zeros either way
    with pytest.raises(ValueError, match="segment_ids"):
        type_ids("ones", seq)


@pytest.mark.parametrize("segments", ["zeros", "pairs"])
def test_header_and_examples_record_the_segment_ids(tmp_path, tiny_model, tokenizer, segments):
    rec = {"id": "p", "words": [["a", "b"], ["c"]]}
    extract_shard(tiny_model, tokenizer, [rec], tmp_path / "s", ShardSettings(16, segments=segments, progress=False))
    header = json.loads((tmp_path / "s.json").read_text())
    assert header["segment_ids"] == segments
    fed = header["examples"][0]["token_type_ids"]
    assert fed == ([0, 0, 0, 0, 1, 1] if segments == "pairs" else [0] * 6)


def test_header_file_streams_examples_and_old_one_line_shards_still_read(tmp_path):
    ex = [
        {
            "id": k,
            "n": 2,
            "tokens": ["x", "y"],
            "input_ids": [1, 2],
            "kinds": "CS",
            "word_ids": [-1, -1],
            "seq_ids": [-1, -1],
        }
        for k in "ab"
    ]
    maps = [(i, np.full((1, 1, 2, 2), 0.5)) for i in range(2)]
    write_shard(tmp_path / "s", {"n_layers": 1, "n_heads": 1}, ex, maps)
    text = (tmp_path / "s.json").read_text()
    assert len(text.splitlines()) == 4 and json.loads(text)["examples"][1]["id"] == "b"  # header, a, b, close
    (tmp_path / "s.json").write_text(json.dumps(json.loads(text)))  # the one-line file of earlier shards
    shard = Shard(tmp_path / "s.npy")
    assert len(shard) == 2 and [e.id for e in shard] == ["a", "b"] and shard.header == {"n_layers": 1, "n_heads": 1}
