"""Tiny random-init encoders of every family the workflow supports, built with no download: a
config (3 layers x 4 heads, hidden 64), seeded random weights and a fast tokenizer, saved with
``save_pretrained`` as a user's local model directory is. The list ``FAMILIES`` is the one
docs/families.md is generated from (tools/families_table.py).

Tokenizers: the embedded model's WordPiece vocabulary for the WordPiece families (BERT, ALBERT,
DistilBERT, ELECTRA, DeBERTa, MPNet, ModernBERT: the tokenizer's kind does not change the
architecture under test), saved with the input names the family's own tokenizer has; a byte-level
BPE trained on fixture sentences for RoBERTa and XLM-RoBERTa (``<s> A </s></s> B </s>``).
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
WIKI = ROOT / "tests" / "fixtures" / "mirror" / "wikitext-2-raw" / "wiki.test.raw"
SHAPE = {"hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 128}

# family -> (model_type, tokenizer, extra config, what is saved: "mlm" = a checkpoint with its
# masked-LM head, "base" = the encoder alone, so that rule mlm_head fits one; note for the docs)
FAMILIES = {
    "bert": ("bert", "wordpiece", {}, "mlm", "the reference family"),
    "roberta": ("roberta", "bpe", {"type_vocab_size": 1}, "mlm", "byte-level BPE, no token types"),
    "xlm-roberta": ("xlm-roberta", "bpe", {"type_vocab_size": 1}, "base", "RoBERTa's architecture"),
    "albert": (
        "albert",
        "wordpiece",
        {"embedding_size": 32, "num_hidden_groups": 1},
        "mlm",
        "one layer's weights shared by every layer: each layer's heads are still its own maps",
    ),
    "distilbert": (
        "distilbert",
        "wordpiece",
        {"dim": 64, "n_layers": 3, "n_heads": 4, "hidden_dim": 128},
        "mlm",
        "no token types; other module names (q_lin, out_lin)",
    ),
    "electra": (
        "electra",
        "wordpiece",
        {"embedding_size": 32},
        "discriminator",
        "the discriminator has no masked-LM head: rule mlm_head fits one",
    ),
    "deberta-v2": (
        "deberta-v2",
        "wordpiece",
        {"relative_attention": True, "pos_att_type": ["p2c", "c2p"], "type_vocab_size": 0, "position_buckets": 16},
        "mlm",
        "maps are the weights after its disentangled (content + relative position) scores",
    ),
    "mpnet": ("mpnet", "wordpiece", {}, "mlm", "relative position bias in the scores"),
    "modernbert": (
        "modernbert",
        "wordpiece",
        {"global_attn_every_n_layers": 3, "local_attention": 8},
        "mlm",
        "local sliding-window layers beside global ones (layer 1 global, 2 and 3 local here)",
    ),
}

NO_TOKEN_TYPES = ("distilbert", "modernbert", "deberta-v2", "mpnet")
_AUTO = {"mlm": "AutoModelForMaskedLM", "base": "AutoModel", "discriminator": "AutoModelForPreTraining"}


def _wordpiece(dest: Path, model_type: str):
    from analysis.core.models import TINY, load_tokenizer

    tok = load_tokenizer(TINY)
    tok.save_pretrained(dest)
    if model_type in NO_TOKEN_TYPES:  # as the family's own tokenizer: no token_type_ids
        path = dest / "tokenizer_config.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "model_input_names": ["input_ids", "attention_mask"]}))
    return load_tokenizer(str(dest))


def _bpe(dest: Path):
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaTokenizerFast

    lines = [line.strip() for line in WIKI.read_text(encoding="utf-8").splitlines() if line.strip()][:400]
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        lines, vocab_size=600, min_frequency=2, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    )
    bpe.save_model(str(dest))
    tok = RobertaTokenizerFast(vocab=str(dest / "vocab.json"), merges=str(dest / "merges.txt"), model_max_length=512)
    tok.save_pretrained(dest)
    return tok


def family_config(name: str, tok):
    from transformers import AutoConfig

    model_type, _, extra, _, _ = FAMILIES[name]
    ids = {
        "pad_token_id": tok.pad_token_id,
        "bos_token_id": tok.cls_token_id,
        "eos_token_id": tok.sep_token_id,
        "cls_token_id": tok.cls_token_id,
        "sep_token_id": tok.sep_token_id,
    }
    return AutoConfig.for_model(
        model_type, vocab_size=len(tok), max_position_embeddings=514, **SHAPE, **ids, **extra
    )


def build_family(name: str, dest: Path, seed: int = 0) -> Path:
    """A tiny random-init model of family ``name`` saved in ``dest`` (created), with its tokenizer."""
    import transformers

    _, kind, _, saved, _ = FAMILIES[name]
    dest.mkdir(parents=True, exist_ok=True)
    tok = _bpe(dest) if kind == "bpe" else _wordpiece(dest, FAMILIES[name][0])
    config = family_config(name, tok)
    torch.manual_seed(seed)
    model = getattr(transformers, _AUTO[saved]).from_config(config)
    model.save_pretrained(dest)
    return dest
