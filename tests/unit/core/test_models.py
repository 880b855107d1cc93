import pytest
import torch

from analysis.core.model_names import (
    base_spec,
    check_model_spec,
    control_draws,
    control_seed,
    control_slug,
    control_spec,
    model_slug,
)
from analysis.core.models import (
    EMBEDDED,
    TINY,
    AttentionUnavailable,
    checked_attentions,
    load_model,
    load_tokenizer,
    shape_of,
    token_kinds,
)


def test_slugs():
    assert model_slug(EMBEDDED) == "all-MiniLM-L6-v2"
    assert model_slug("bert-base-uncased") == "bert-base-uncased"
    assert model_slug("google/bert_uncased_L-2_H-128") == "google--bert_uncased_L-2_H-128"


def test_tiny_model_is_seeded_and_eager(tiny_model):
    assert shape_of(tiny_model) == (2, 4)
    assert tiny_model.config._attn_implementation == "eager"
    again = load_model(TINY, device="cpu")
    for a, b in zip(tiny_model.parameters(), again.parameters()):
        assert torch.equal(a, b)


def test_guard_catches_missing_attentions(tiny_model, tokenizer):
    enc = tokenizer("a short test", return_tensors="pt")
    with torch.inference_mode():
        out = tiny_model(**enc, output_attentions=True)
        assert len(checked_attentions(tiny_model, out)) == 2
        without = tiny_model(**enc)  # output_attentions not requested -> no maps
    with pytest.raises(AttentionUnavailable):
        checked_attentions(tiny_model, without)


def test_guard_catches_sdpa(tokenizer):
    """transformers 5 with SDPA returns an empty attentions tuple without an error."""
    from transformers import AutoConfig, AutoModel

    cfg = AutoConfig.for_model(
        "bert",
        vocab_size=len(tokenizer),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=16,
    )
    model = AutoModel.from_config(cfg, attn_implementation="sdpa").eval()
    enc = tokenizer("a test", return_tensors="pt")
    with torch.inference_mode():
        out = model(**enc, output_attentions=True)
    if out.attentions and all(a is not None for a in out.attentions) and len(out.attentions) == 2:
        pytest.skip("this transformers version falls back to eager when attentions are requested")
    with pytest.raises(AttentionUnavailable):
        checked_attentions(model, out)


def test_random_init_control_spec():
    control = control_spec(EMBEDDED)
    assert control == "random-init:embedded:all-MiniLM-L6-v2" and base_spec(control) == EMBEDDED
    assert model_slug(control) == "all-MiniLM-L6-v2--random-init"
    assert base_spec("bert-base-uncased") == "bert-base-uncased"
    with pytest.raises(ValueError, match="no such directory"):
        check_model_spec(control_spec("./no-such-model"))


def test_control_seed_is_written_in_the_spec_and_keeps_the_slug():
    # seed 0 keeps the spec of every earlier run (same params, same tables)
    assert control_spec(EMBEDDED, 0) == control_spec(EMBEDDED) and control_seed(control_spec(EMBEDDED)) == 0
    seeded = control_spec("bert-base-uncased", 7)
    assert seeded == "random-init:seed=7:bert-base-uncased"
    assert control_seed(seeded) == 7 and base_spec(seeded) == "bert-base-uncased"
    assert model_slug(seeded) == model_slug(control_spec("bert-base-uncased")) == "bert-base-uncased--random-init"
    assert control_spec(seeded, 3) == seeded  # a control is its own control
    assert control_seed("bert-base-uncased") == 0


def test_a_random_init_models_control_is_another_draw():
    assert control_draws(EMBEDDED) == [control_spec(EMBEDDED)]
    assert control_draws(EMBEDDED, 2, draws=3) == [control_spec(EMBEDDED, s) for s in (2, 3, 4)]
    # a model that learnt nothing is compared with other such models, never with itself
    assert control_draws(control_spec(EMBEDDED)) == [control_spec(EMBEDDED, 1)]
    assert control_draws(control_spec(EMBEDDED, 1)) == [control_spec(EMBEDDED, 0)]
    assert control_draws(control_spec(EMBEDDED, 1), 0, draws=3) == [control_spec(EMBEDDED, s) for s in (0, 2, 3)]
    assert [control_slug("m", d) for d in (1, 2)] == ["m--random-init", "m--random-init-2"]


def test_control_seed_draws_other_weights():
    weight = "encoder.layer.0.attention.self.query.weight"
    zero = load_model(control_spec(EMBEDDED), device="cpu").state_dict()[weight]
    one = load_model(control_spec(EMBEDDED, 1), device="cpu").state_dict()[weight]
    assert not torch.equal(zero, one)
    # the same draw by the keyword the control probe's path uses
    assert torch.equal(one, load_model(EMBEDDED, device="cpu", random_init=True, init_seed=1).state_dict()[weight])


def test_random_init_control_has_its_models_shape_and_tokenizer_not_its_weights():
    model = load_model(EMBEDDED, device="cpu")
    control = load_model(control_spec(EMBEDDED), device="cpu")
    assert shape_of(control) == shape_of(model) and control.config._attn_implementation == "eager"
    assert load_tokenizer(control_spec(EMBEDDED)).get_vocab() == load_tokenizer(EMBEDDED).get_vocab()
    weight = "encoder.layer.0.attention.self.query.weight"
    assert not torch.equal(model.state_dict()[weight], control.state_dict()[weight])
    # seeded: the same control twice
    assert torch.equal(
        control.state_dict()[weight], load_model(control_spec(EMBEDDED), device="cpu").state_dict()[weight]
    )
    # the tiny random BERT's control is another draw of the same shape
    tiny, tiny_control = load_model(TINY, device="cpu"), load_model(control_spec(TINY), device="cpu")
    assert shape_of(tiny_control) == shape_of(tiny)
    assert not torch.equal(tiny.state_dict()[weight], tiny_control.state_dict()[weight])


def test_embedded_model_loads_with_its_own_shape():
    model = load_model(EMBEDDED, device="cpu")
    assert shape_of(model) == (model.config.num_hidden_layers, model.config.num_attention_heads) == (6, 12)
    tok = load_tokenizer(EMBEDDED)
    enc = tok("Attention is all you need.", return_tensors="pt")
    with torch.inference_mode():
        att = checked_attentions(model, model(**enc, output_attentions=True))
    assert att[0].shape == (1, 12, enc["input_ids"].shape[1], enc["input_ids"].shape[1])


def test_token_kinds_from_tokenizer(tokenizer):
    ids = tokenizer("Hi, there. [MASK]")["input_ids"]
    kinds = token_kinds(tokenizer, ids)
    toks = tokenizer.convert_ids_to_tokens(ids)
    assert kinds[0] == "C" and kinds[-1] == "S"
    assert kinds[toks.index(",")] == "P" and kinds[toks.index(".")] == "P"
    assert kinds[toks.index("[MASK]")] == "X"
    assert kinds[toks.index("hi")] == "O"


def test_unknown_head_and_embedded_name():
    with pytest.raises(ValueError):
        load_model("embedded:nope")
    with pytest.raises(ValueError):
        load_model(TINY, head="seq2seq")
