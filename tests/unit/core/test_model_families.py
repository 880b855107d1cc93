"""Which models the workflow refuses when the DAG is built, from their config.json alone."""

import json

import pytest

from analysis.core import model_families as mf


@pytest.mark.parametrize(
    "config,why",
    [
        ({"model_type": "gpt2"}, "a decoder (causal LM): model type 'gpt2'"),
        ({"model_type": "llama"}, "a decoder (causal LM): model type 'llama'"),
        ({"model_type": "t5", "is_encoder_decoder": True}, "an encoder-decoder (t5)"),
        ({"model_type": "bart", "is_encoder_decoder": True}, "an encoder-decoder (bart)"),  # BART has a masked-LM form
        ({"model_type": "bert", "is_decoder": True}, "configured as a decoder (bert, is_decoder: true)"),
        ({"model_type": "vit"}, "not an encoder: model type 'vit'"),
    ],
)
def test_refused_with_the_reason(config, why):
    assert mf.refusal(config).startswith(why)


@pytest.mark.parametrize("model_type", [*mf.FAMILIES, "camembert"])
def test_encoders_pass(model_type):
    assert mf.refusal({"model_type": model_type}) is None


def test_check_encoder_reads_a_directory_and_names_the_model(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "gpt2", "n_layer": 2}))
    with pytest.raises(mf.UnsupportedModel, match=r"model '.*' is a decoder .*tested: bert, roberta"):
        mf.check_encoder(str(tmp_path))
    with pytest.raises(mf.UnsupportedModel):
        mf.check_encoder(f"random-init:{tmp_path}")  # its control too
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "modernbert"}))
    assert mf.check_encoder(str(tmp_path)) == str(tmp_path)
    # not at hand offline (no directory, not cached): checked later, by the job that loads it
    assert mf.check_encoder("no-such-org/no-such-model") == "no-such-org/no-such-model"
    embedded = mf.model_config("embedded:all-MiniLM-L6-v2")  # the package's own config.json
    assert embedded["model_type"] == "bert" and embedded["num_hidden_layers"] == 6
    # a tested family configured as a decoder is refused too
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert", "is_decoder": True}))
    with pytest.raises(mf.UnsupportedModel, match="configured as a decoder"):
        mf.check_encoder(str(tmp_path))


def test_local_layers_from_layer_types_or_modernbert_period():
    types = ["full_attention", "sliding_attention", "sliding_attention", "full_attention"]
    assert mf.local_layers({"layer_types": types}) == [2, 3]
    # a ModernBERT config.json written before layer_types: every third layer (1, 4, ...) global
    old = {"model_type": "modernbert", "num_hidden_layers": 6, "global_attn_every_n_layers": 3}
    assert mf.local_layers(old) == [2, 3, 5, 6]
    assert mf.local_layers({"model_type": "bert"}) == [] and mf.local_layers(None) == []
