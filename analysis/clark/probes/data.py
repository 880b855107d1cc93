"""Sentences for the attention-based dependency probes (Clark et al. 2019 sec. 5, Table 3).

For a sentence of W words, units are index 0 = [CLS] (the root's first stand-in), 1..W = the
words and W + 1 = the closing [SEP] (the root's second stand-in: the probes score the root from
attention to and from both, as the authors do); ``Sentence.attn[k, j, i]`` is head k's
word-level attention from unit j to unit i (``word_level.word_maps``: sum TO a word, mean FROM
a word), with the gold tree and which words are scored (not punctuation by gold POS). Sentences
come from the stored shards or, for a model whose maps are not stored (the randomly initialised
control), from running the model here.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from analysis.clark.probes.settings import MapSettings
from analysis.core.inputs import seeded_subset
from analysis.core.word_level import unit_of_word, units, word_maps

log = logging.getLogger(__name__)


@dataclass
class Sentence:
    id: str
    words: list[str]
    heads: np.ndarray  # (W,) gold head unit of each word: 0 = root, i = word i - 1
    scored: np.ndarray  # (W,) bool: counted in UAS (not punctuation)
    attn: np.ndarray | None = None  # (K, W + 2, W + 2) float16: [CLS], the W words, [SEP]
    extra: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.words)


def sentence_maps(attn: np.ndarray, word_ids, kinds: str, n_words: int, how: str = "mean") -> np.ndarray:
    """(L, H, n, n) word-piece maps -> (L*H, W+2, W+2) over [[CLS], words..., [SEP]] (the first
    [CLS]-kind and the last [SEP]-kind token, the two stand-ins of the root)."""
    maps, unit_word = word_maps(attn, word_ids, how=how)
    cls_piece, sep_piece = kinds.find("C"), kinds.rfind("S")
    if cls_piece < 0 or sep_piece < 0:
        raise ValueError("no [CLS]-kind or no [SEP]-kind token to stand for the root")
    unit_of_piece = units(word_ids)[0]
    word_unit = unit_of_word(unit_word)
    if sorted(word_unit) != list(range(n_words)):
        raise ValueError(f"maps cover {len(word_unit)} words, the tree has {n_words}")
    order = [int(unit_of_piece[cls_piece])] + [word_unit[w] for w in range(n_words)] + [int(unit_of_piece[sep_piece])]
    L, H = maps.shape[:2]
    return maps[:, :, order][:, :, :, order].reshape(L * H, n_words + 2, n_words + 2)


def sentences_from_examples(examples, punct_pos, how: str, counts: dict | None = None):
    """Sentences (gold tree from ``meta``) with their word-level maps, from shard examples.
    Split or truncated inputs are skipped and counted."""
    counts = counts if counts is not None else {}
    out = []
    for ex in examples:
        meta = ex.meta
        if "part" in meta or meta.get("truncated"):
            counts["skipped_split_or_truncated"] = counts.get("skipped_split_or_truncated", 0) + 1
            continue
        if "heads" not in meta:
            raise ValueError(f"example {ex.id}: no gold heads in meta (not a dependency corpus?)")
        s = make_sentence(ex.id, meta, punct_pos)
        s.attn = sentence_maps(ex.attn, ex.word_ids, ex.kinds, s.n, how).astype(np.float16)
        out.append(s)
    counts["sentences"] = len(out)
    return out


def make_sentence(sid: str, meta: dict, punct_pos=(), words=None) -> Sentence:
    """A sentence of a dependency record; words whose gold POS is in ``punct_pos`` (config
    clark_probes.punct_pos) are not scored."""
    heads = np.asarray(meta["heads"], dtype=np.int64) + 1  # -1 (root) -> 0, word h -> h + 1
    pos = meta.get("pos") or [""] * len(heads)
    scored = np.array([p not in set(punct_pos) for p in pos], dtype=bool)
    return Sentence(
        id=sid,
        words=list(words if words is not None else meta.get("words", [""] * len(heads))),
        heads=heads,
        scored=scored,
    )


def sentences_from_model(model, tokenizer, records: list[dict], maps: MapSettings, counts: dict | None = None):
    """Like ``sentences_from_examples`` but running ``model`` here as ``maps`` says (e.g. a
    randomly initialised model of the same shape, whose maps are not stored as shards)."""
    from analysis.core.extraction import encode_records, iter_maps
    from analysis.core.storage import Example

    counts = counts if counts is not None else {}
    items, enc = encode_records(tokenizer, records, maps.max_len, "split")
    counts["encoding"] = enc
    # streamed: each map becomes a small word-level map before the next batch is computed
    # (no padded batch kept alive); sentences back in input order afterwards
    examples = (
        Example(
            id=items[i]["id"],
            tokens=items[i]["tokens"],
            input_ids=items[i]["input_ids"],
            kinds=items[i]["kinds"],
            word_ids=items[i]["word_ids"],
            seq_ids=items[i]["seq_ids"],
            attn16=m.copy(),
            meta=items[i]["meta"],
        )
        for i, m in iter_maps(model, tokenizer, items, maps.batch_size, False, maps.precision, where="random-init maps")
    )
    order = {it["id"]: k for k, it in enumerate(items)}
    sents = sentences_from_examples(examples, maps.punct_pos, maps.how, counts)
    return sorted(sents, key=lambda s: order[s.id])


def subset_records(records: list[dict], n: int | None, seed: int, name: str, counts: dict, log=log) -> list[dict]:
    """A seeded sample of ``n`` records (all of them when ``n`` is None or not below their
    number); the number sampled from goes to ``counts[name + "_sampled_from"]``."""
    if n is None or n >= len(records):
        return records
    log.info("%s: seeded sample of %d of %d sentences", name, n, len(records))
    counts[f"{name}_sampled_from"] = len(records)
    return seeded_subset(records, n, seed)


def attach_words(sents: list[Sentence], records: list[dict]) -> list[Sentence]:
    """Give every sentence the words of its input record (checked against the tree's size)."""
    words = {r["id"]: r["words"][0] for r in records}
    for s in sents:
        s.words = words[s.id]
        if len(s.words) != s.n:
            raise ValueError(f"sentence {s.id}: {len(s.words)} words in the inputs, {s.n} in the tree")
    return sents


def random_init_sentences(
    spec: str, records: dict[str, list[dict]], shape: tuple[int, int], dev_ids: set, maps: MapSettings, counts: dict
) -> dict[str, list[Sentence]]:
    """Per split, the sentences of ``records`` with the maps of a randomly initialised model of
    ``spec``'s shape (the control probe; its maps are not stored as shards; computed as ``maps``
    says), words attached. Its dev sentences must be the trained model's (``dev_ids``)."""
    from analysis.core.models import load_model, load_tokenizer, shape_of

    tok = load_tokenizer(spec)
    rnd = load_model(spec, random_init=True, device=maps.device)
    if shape_of(rnd) != tuple(shape):
        raise RuntimeError("the randomly initialised model does not have the shape of the trained one")
    out = {}
    for split in ("train", "dev"):
        recs = records[split]
        rs = sentences_from_model(rnd, tok, recs, maps, counts[f"{split}_random_init"])
        out[split] = attach_words(rs, recs)
    if {s.id for s in out["dev"]} != dev_ids:
        raise RuntimeError("the random-init model's dev sentences differ from the trained model's")
    return out


def attach_vectors(sentences: list[Sentence], vectors) -> dict:
    n = oov = 0
    for s in sentences:
        v, miss = vectors.lookup(s.words)
        s.extra["vec"] = v
        n += len(miss)
        oov += int(miss.sum())
    return {"words": n, "oov": oov, "oov_rate": oov / max(n, 1)}
