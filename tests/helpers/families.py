"""Tiny random-init encoders of every family the workflow supports, built with no download: a
config (3 layers x 4 heads, hidden 64), seeded random weights and a fast tokenizer, saved with
``save_pretrained`` as a user's local model directory is, with its masked-LM head or without it;
one per family of ``analysis.core.model_families.FAMILIES`` (the list docs/families.md is generated
from).

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

# model type (analysis.core.model_families.FAMILIES) -> (tokenizer, extra config)
FAMILIES = {
    "bert": ("wordpiece", {}),
    "roberta": ("bpe", {"type_vocab_size": 1}),
    "xlm-roberta": ("bpe", {"type_vocab_size": 1}),
    "albert": ("wordpiece", {"embedding_size": 32, "num_hidden_groups": 1}),
    "distilbert": ("wordpiece", {"dim": 64, "n_layers": 3, "n_heads": 4, "hidden_dim": 128}),
    "electra": ("wordpiece", {"embedding_size": 32}),
    "deberta-v2": (
        "wordpiece",
        {"relative_attention": True, "pos_att_type": ["p2c", "c2p"], "type_vocab_size": 0, "position_buckets": 16},
    ),
    "mpnet": ("wordpiece", {}),
    # 3 layers: layer 1 global, layers 2 and 3 local with a window of 8 tokens; ModernBERT's linear
    # layers and norms have no biases (classifier_bias, mlp_bias, norm_bias: false by default)
    "modernbert": ("wordpiece", {"global_attn_every_n_layers": 3, "local_attention": 8}),
}

# How a checkpoint comes, each with its Auto class: "mlm" with its masked-LM head (as the families
# publish theirs), "bare" the encoder alone (AutoModel: a fine-tuned encoder saved without its head),
# "discriminator" ELECTRA's pre-training discriminator (as ELECTRA is published: no masked-LM head).
# Rule mlm_head fits a head for the last two.
FORMS = {"mlm": "AutoModelForMaskedLM", "bare": "AutoModel", "discriminator": "AutoModelForPreTraining"}
# (directory name, family, form) of every checkpoint the family matrix runs: each family with and
# without its head, and ELECTRA's discriminator
CHECKPOINTS = [(f"{name}.{form}", name, form) for name in FAMILIES for form in ("mlm", "bare")]
CHECKPOINTS.append(("electra.discriminator", "electra", "discriminator"))

NO_TOKEN_TYPES = ("distilbert", "modernbert", "deberta-v2", "mpnet")


def _wordpiece(dest: Path, model_type: str):
    from analysis.core.models import TINY, load_tokenizer

    tok = load_tokenizer(TINY)
    tok.save_pretrained(dest)
    if model_type in NO_TOKEN_TYPES:  # as the family's own tokenizer: no token_type_ids
        path = dest / "tokenizer_config.json"
        path.write_text(
            json.dumps({**json.loads(path.read_text()), "model_input_names": ["input_ids", "attention_mask"]})
        )
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


def family_config(name: str, tok, **overrides):
    from transformers import AutoConfig

    _, extra = FAMILIES[name]
    ids = {
        "pad_token_id": tok.pad_token_id,
        "bos_token_id": tok.cls_token_id,
        "eos_token_id": tok.sep_token_id,
        "cls_token_id": tok.cls_token_id,
        "sep_token_id": tok.sep_token_id,
    }
    kwargs = {"vocab_size": len(tok), "max_position_embeddings": 514, **SHAPE, **ids, **extra, **overrides}
    return AutoConfig.for_model(name, **kwargs)


def build_family(name: str, dest: Path, form: str = "mlm", seed: int = 0, **overrides) -> Path:
    """A tiny random-init model of family ``name`` saved in ``dest`` (created) as ``form`` (``FORMS``),
    with its tokenizer; ``overrides`` change its config (e.g. ``tie_word_embeddings=False``)."""
    import transformers

    kind, _ = FAMILIES[name]
    dest.mkdir(parents=True, exist_ok=True)
    tok = _bpe(dest) if kind == "bpe" else _wordpiece(dest, name)
    config = family_config(name, tok, **overrides)
    torch.manual_seed(seed)
    model = getattr(transformers, FORMS[form]).from_config(config, attn_implementation="eager")
    model.save_pretrained(dest)
    return dest
