"""Checkpoint bundles written on a GPU node load on a CPU node: every loader of the explanation
rules reads them onto the CPU (``map_location``), and the fine-tuned encoder's state is saved as
CPU tensors. A bundle whose tensors claim a GPU cannot be made on a CPU, so the loaders' call to
torch.load is watched instead."""

import pytest
import torch

from analysis.core.device import load_bundle
from analysis.core.models import load_model, load_tokenizer
from analysis.explanation import setup
from analysis.explanation.classifiers import TrainConfig
from analysis.explanation.finetuned_transformer import FinetuneConfig, train_finetuned_classifier, tuned_transformer
from analysis.explanation.frozen_transformer import FrozenTransformer
from analysis.explanation.staying_true import attention_tests


class Loaded(Exception):
    """Stops a loader right after torch.load: what it was called with is all that is checked."""


@pytest.fixture
def watched_load(monkeypatch):
    seen = []

    def load(path, **kwargs):
        seen.append((str(path), kwargs))
        raise Loaded

    monkeypatch.setattr(torch, "load", load)
    return seen


@pytest.mark.parametrize(
    "loader",
    [
        lambda: setup.load_for_tests("b.pt", "glue/SHA256SUMS", "tiny-random-bert", "SST-2", 4),
        lambda: attention_tests.models_under_test("b.pt", "glue/SHA256SUMS", "SST-2", 4),
    ],
    ids=["explanation tests", "staying true tests"],
)
def test_every_bundle_loader_maps_onto_the_cpu(watched_load, loader):
    with pytest.raises(Loaded):
        loader()
    assert watched_load == [("b.pt", {"map_location": "cpu", "weights_only": False})]


def test_the_finetuned_encoder_is_saved_on_the_cpu_and_loads_back(tmp_path):
    tf = FrozenTransformer(load_model("tiny-random-bert", device="cpu"), load_tokenizer("tiny-random-bert"), 16)
    words = [["a", "good", "film"], ["a", "bad", "film"], ["fine"], ["awful", "plot"]]
    cfg = TrainConfig(epochs=1, batch_size=2, seed=0, hidden=4, d_att=4)
    ft = FinetuneConfig(n_train=4, epochs=1, batch_size=2)
    entry, _ = train_finetuned_classifier(tf, words, [1, 0, 1, 0], words[:2], [1, 0], cfg, ft, {})
    assert {t.device.type for t in entry["encoder_state"].values()} == {"cpu"}
    path = tmp_path / "bundle.pt"
    torch.save({"encoders": {"transformer_finetuned": entry}}, path)
    tuned = tuned_transformer(tf, load_bundle(path)["encoders"]["transformer_finetuned"])
    for name, value in tuned.model.state_dict().items():
        assert torch.equal(value, entry["encoder_state"][name]), name
