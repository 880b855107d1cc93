"""One precision per run (issue 30): every shard, and a model's random-init and fine-tuned variants,
decide on the same fixed calibration inputs run on the run's pre-trained model, so maps that are
compared are never in different precisions; and maps with a NaN or inf stop the extraction, naming
the shard."""

import copy
import json

import pytest
import torch

import analysis.core.precision as precision
from analysis.core.extraction import NonFiniteMaps, extract_shard
from analysis.core.extraction_settings import Calibration, ShardSettings
from analysis.core.models import TINY, load_model

SHORT = [{"id": "s", "words": [["A", "cat", "."]]}, {"id": "t", "words": [["Dogs", "bark"]]}]
LONG = [{"id": "l", "words": [("a long input with many more words than the others " * 3).split()]}]


@pytest.fixture
def bf16_is_fast(monkeypatch):
    """A machine whose bf16 matmul is 4x fp32 (so auto tries it), fp16 far too slow to try."""
    monkeypatch.setattr(precision, "matmul_rates", lambda ps, device, **kw: {"fp32": 1.0, "bf16": 4.0, "fp16": 1e-3})


@pytest.fixture
def agreement_seen(monkeypatch):
    """argmax_agreement stood in for: it records the input lengths it is given and says 'agrees'
    only for calibration batches with a long input (a choice that would depend on a shard's inputs
    if a shard's own inputs were used)."""
    seen = []

    def agreement(ref, other, lengths):
        seen.append(list(lengths))
        return 1.0 if max(lengths) > 20 else 0.99

    monkeypatch.setattr(precision, "argmax_agreement", agreement)
    return seen


def header(path):
    return json.loads(path.read_text().splitlines()[0] + "]}")


def test_every_shard_of_a_run_decides_on_the_same_inputs(tiny_model, tokenizer, tmp_path, bf16_is_fast, agreement_seen):
    for name, records in (("short", SHORT), ("long", LONG)):
        extract_shard(
            tiny_model, tokenizer, records, tmp_path / name, ShardSettings(32, precision="auto", progress=False)
        )
    short, long = header(tmp_path / "short.json")["precision"], header(tmp_path / "long.json")["precision"]
    assert short == long  # used, agreement, calibration inputs: one decision
    assert short["used"] == "bf16" and short["agreement"] == {"bf16": 1.0}
    # both calibrated on the fixed inputs (8, up to max_len 32), never on the shards' 3-5 pieces
    assert agreement_seen[0] == agreement_seen[1] and len(agreement_seen[0]) == len(precision.CALIBRATION)
    assert max(agreement_seen[0]) == 32


def test_a_variant_calibrates_on_the_pretrained_model(tiny_model, tokenizer, tmp_path, bf16_is_fast):
    control = load_model(TINY, device="cpu", random_init=True)
    loads = []

    def pretrained():
        loads.append(1)
        return tiny_model

    bf16 = ShardSettings(32, precision="bf16", progress=False)
    mine = extract_shard(tiny_model, tokenizer, SHORT, tmp_path / "m", bf16, model_name=TINY)
    ctrl = extract_shard(
        control, tokenizer, LONG, tmp_path / "c", bf16, calibration=Calibration(None, pretrained, TINY)
    )
    assert loads == [1]  # loaded once, when the calibration ran
    assert ctrl["precision"]["agreement"] == mine["precision"]["agreement"]  # the same model, inputs, arithmetic
    assert header(tmp_path / "c.json")["precision"]["calibrated_on"] == TINY
    # a pinned fp32 calibrates nothing: the pre-trained model is never loaded
    fp32 = ShardSettings(32, precision="fp32", progress=False)
    extract_shard(control, tokenizer, LONG, tmp_path / "f", fp32, calibration=Calibration(reference=pretrained))
    assert loads == [1] and "calibrated_on" not in header(tmp_path / "f.json")["precision"]


def test_auto_loads_no_reference_where_no_reduced_precision_is_worth_trying(
    tiny_model, tokenizer, tmp_path, monkeypatch
):
    # an AVX2-only machine: bf16 and fp16 hundreds of times slower, so auto runs no calibration pass
    monkeypatch.setattr(precision, "matmul_rates", lambda ps, device, **kw: {"fp32": 1.0, "bf16": 1e-3, "fp16": 1e-3})

    def never():
        raise AssertionError("the reference model was loaded")

    auto = ShardSettings(32, precision="auto", progress=False)
    got = extract_shard(tiny_model, tokenizer, SHORT, tmp_path / "a", auto, calibration=Calibration(reference=never))
    assert got["precision"]["used"] == "fp32" and got["precision"]["agreement"] == {}


def test_maps_with_nan_stop_the_extraction_naming_the_shard(tiny_model, tokenizer, tmp_path):
    broken = copy.deepcopy(tiny_model)
    with torch.no_grad():
        broken.encoder.layer[1].attention.self.query.weight.fill_(float("nan"))
    stem = tmp_path / "wiki" / "shard-3"
    stem.parent.mkdir()
    with pytest.raises(
        NonFiniteMaps, match=rf"shard {stem}: NaN or inf in the attention maps of 2 input\(s\) \(t, s\)"
    ):
        extract_shard(broken, tokenizer, SHORT, stem, ShardSettings(32, progress=False))
    assert not (tmp_path / "wiki" / "shard-3.npy").exists() and not (tmp_path / "wiki" / "shard-3.json").exists()
    # the same inputs through the intact model: written
    extract_shard(tiny_model, tokenizer, SHORT, stem, ShardSettings(32, progress=False))
    assert (tmp_path / "wiki" / "shard-3.npy").exists()
