"""Heads and masked-LM heads reached the same way in every encoder family (tests/helpers/families.py):
the head sites found by what they compute are the modules each family names, gating a head to 0
equals zeroing its value vectors by hand, disabling with cached lower layers equals re-running
them, and the masked-LM head applied to the encoder's states gives the model's own logits."""

import copy

import numpy as np
import pytest
import torch

from analysis.beyond_papers.head_gates import gated_logits
from analysis.clark.surface.mlm_head import head_module, load_fitted_head, load_mlm
from analysis.clark.surface.mlm_head_fit import HeadFit, evaluate_head, masked_hidden, score_or_fit_head
from analysis.core.extraction import encode_records
from analysis.core.models import load_model, load_tokenizer, shape_of
from analysis.kovaleva.finetune.disable_heads import disabled_logits
from analysis.shared.attention_modules import head_sites
from helpers.families import CHECKPOINTS, FAMILIES, build_family

# each family's own names for layer l's value projection (block: its slice of a fused projection);
# written out here only, to check what the workflow finds without names
VALUE_NAMES = {
    "bert": ("bert.encoder.layer.{l}.attention.self.value", 0),
    "roberta": ("roberta.encoder.layer.{l}.attention.self.value", 0),
    "xlm-roberta": ("roberta.encoder.layer.{l}.attention.self.value", 0),
    "albert": ("albert.encoder.albert_layer_groups.0.albert_layers.0.attention.value", 0),
    "distilbert": ("distilbert.transformer.layer.{l}.attention.v_lin", 0),
    "electra": ("electra.encoder.layer.{l}.attention.self.value", 0),
    "deberta-v2": ("deberta.encoder.layer.{l}.attention.self.value_proj", 0),
    "mpnet": ("mpnet.encoder.layer.{l}.attention.attn.v", 0),
    "modernbert": ("model.layers.{l}.attn.Wqkv", 2),
}


@pytest.fixture(scope="module")
def family_dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("families")
    return {name: build_family(name, root / name) for name in FAMILIES}


@pytest.fixture(scope="module")
def checkpoint_dirs(tmp_path_factory):
    """Every family saved with its masked-LM head and without it (and ELECTRA's discriminator)."""
    root = tmp_path_factory.mktemp("checkpoints")
    return {(name, form): build_family(name, root / d, form) for d, name, form in CHECKPOINTS}


def classifier(path):
    return load_model(str(path), head="classification", device="cpu", num_labels=2)


def inputs(path):
    tok = load_tokenizer(str(path))
    enc = dict(
        tok(["the cat sat on the mat .", "a dog"], ["it was happy", "barked"], padding=True, return_tensors="pt")
    )
    return enc


def test_every_family_of_the_list_is_checked():
    assert set(VALUE_NAMES) == set(FAMILIES)


@pytest.mark.parametrize("name", FAMILIES)
def test_sites_are_the_modules_each_family_names(family_dirs, name):
    model = classifier(family_dirs[name])
    pattern, block = VALUE_NAMES[name]
    names = {id(m): n for n, m in model.named_modules()}
    sites = head_sites(model)
    assert len(sites) == shape_of(model)[0] == 3
    for layer, site in enumerate(sites):
        assert names[id(site.value)] == pattern.format(l=layer) and site.value_block == block
        # ALBERT: one module for every layer, told apart by its call number
        assert site.value_call == (layer if name == "albert" else 0)


@torch.inference_mode()
@pytest.mark.parametrize("name", FAMILIES)
def test_gate_zero_equals_zeroed_value_vectors_by_hand(family_dirs, name):
    model = classifier(family_dirs[name])
    enc = inputs(family_dirs[name])
    n_layers, n_heads = shape_of(model)
    layer, head = 1, 2
    keep = np.ones((n_layers, n_heads), dtype=bool)
    keep[layer, head] = False
    if name == "albert":  # the shared value projection: zeroing it removes the head in every layer
        keep[:, head] = False
    got = gated_logits(model, [enc], keep)
    # by hand: head 2's rows of layer 1's value projection (weight and bias) set to 0 in a copy
    by_hand = copy.deepcopy(model)
    pattern, block = VALUE_NAMES[name]
    value = by_hand.get_submodule(pattern.format(l=layer))
    width = value.out_features // (block + 1) if block else value.out_features
    d = width // n_heads
    rows = slice(block * width + head * d, block * width + (head + 1) * d)
    value.weight[rows] = 0
    if value.bias is not None:
        value.bias[rows] = 0
    expected = by_hand(**enc).logits.double().numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert not np.allclose(got, model(**enc).logits.double().numpy(), atol=1e-6)  # the head did count


@pytest.mark.parametrize("name", FAMILIES)
def test_disabling_with_cached_layers_equals_rerunning_them(family_dirs, name):
    model = classifier(family_dirs[name])
    enc = inputs(family_dirs[name])
    batches = [enc, {k: v[:1] for k, v in enc.items()}]  # the check on the first batch holds for the next
    base, cached, cost = disabled_logits(model, batches, max_batch=64, cache=True, progress=False)
    base2, rerun, _ = disabled_logits(model, batches, max_batch=64, cache=False, progress=False)
    np.testing.assert_allclose(cached, rerun, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(base, base2)
    assert cost["cached"] == (name != "albert")  # ALBERT's one shared layer cannot be started at
    assert np.abs(cached - base[None]).max() > 1e-6  # disabling changed something


@torch.inference_mode()
@pytest.mark.parametrize("name,form", [(name, form) for _, name, form in CHECKPOINTS])
def test_masked_lm_head_of_any_family(checkpoint_dirs, name, form):
    model, info = load_mlm(str(checkpoint_dirs[name, form]), device="cpu")
    assert info["pretrained_head"] == (form == "mlm"), info
    enc = inputs(checkpoint_dirs[name, form])
    hidden = model.base_model(**enc).last_hidden_state
    np.testing.assert_allclose(head_module(model)(hidden[1]).numpy(), model(**enc).logits[1].numpy(), atol=1e-5)
    assert getattr(model, model.base_model_prefix) is model.base_model  # the encoder is back in place


def test_the_families_built_are_the_supported_list_and_the_docs_table():
    import subprocess
    import sys

    from analysis.core.model_families import FAMILIES as SUPPORTED
    from conftest import ROOT

    assert list(FAMILIES) == list(SUPPORTED)
    run = subprocess.run(
        [sys.executable, "-m", "tools.docs.families_table", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout


@torch.inference_mode()
@pytest.mark.parametrize("name", FAMILIES)
def test_row_patch_of_any_family(family_dirs, name):
    """The [CLS] row patched at the head sites: the unpatched row gives the model's states back; a
    uniform row changes the [CLS] position of the layers from the patched one up."""
    from analysis.explanation.attention_patch import RowPatch

    model = load_model(str(family_dirs[name]), device="cpu")
    enc = inputs(family_dirs[name])
    out = model(**enc, output_attentions=True)
    with RowPatch(model, 1, 0, out.attentions[1][:, :, 0]) as patch:
        patch.fn = lambda row: row
        same = model(**enc).last_hidden_state
        patch.fn = lambda row: torch.full_like(row, 1.0 / row.shape[-1])
        uniform = model(**enc).last_hidden_state
    torch.testing.assert_close(same, out.last_hidden_state, rtol=1e-4, atol=1e-5)
    assert not torch.allclose(uniform[:, 0], out.last_hidden_state[:, 0], atol=1e-4)


@pytest.mark.parametrize("name", FAMILIES)
def test_a_head_is_fitted_on_any_bare_encoder(checkpoint_dirs, tmp_path, name):
    """Rule mlm_head's path for an encoder saved without its head: a head of the family's own
    modules (whatever their names, with or without biases) fitted on the frozen encoder, its held-out
    accuracy reported, and saved and loaded back into a fresh model with the same held-out loss."""
    path = str(checkpoint_dirs[name, "bare"])
    model, info = load_mlm(path, device="cpu")
    tok = load_tokenizer(path)
    words = [["the", "cat", "sat", "on", "the", "mat", "."], ["it", "was", "happy", ",", "too", "."]]
    items, _ = encode_records(tok, [{"id": str(i), "words": words} for i in range(6)], max_len=64)
    encoder = {k: v.clone() for k, v in model.base_model.state_dict().items()}
    fit = HeadFit(seed=0, mask_prob=0.3, epochs=2, lr=1e-2, batch_size=8)
    rows, curve, state = score_or_fit_head(model, info, tok, items, items[:2], fit)
    held = [r for r in rows if r["split"] == "held-out"]
    assert [r["head"] for r in held] == ["initial (unigram bias)", "fitted on frozen encoder"]
    assert all(0.0 <= r["accuracy"] <= 1.0 and np.isfinite(r["loss"]) and r["n_tokens"] > 0 for r in held)
    assert len(curve) == 2 and state
    assert all(torch.equal(v, encoder[k]) for k, v in model.base_model.state_dict().items())  # frozen
    torch.save(state, tmp_path / "head.pt")
    fresh, fresh_info = load_mlm(path, device="cpu")
    load_fitted_head(fresh, fresh_info, {"pretrained_head": False}, tmp_path / "head.pt")
    h, t, _ = masked_hidden(fresh, items[:2], tok, seed=1, prob=0.3)
    assert evaluate_head(fresh, h, t)["loss"] == pytest.approx(held[-1]["loss"], rel=1e-5)
