"""precision: auto | fp32 | bf16 | fp16 — the choice, the agreement check, the header record;
and the benchmark's FLOP count and table (behaviour only, never timings)."""

import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch

import analysis.core.precision as precision
from analysis.benchmark.extraction import model_flops, run_benchmark
from analysis.core.extraction import encode_records, extract_shard, iter_maps
from analysis.core.extraction_settings import ShardSettings

RECORDS = [
    {"id": "p", "words": [["The", "cat", "sat", "on", "the", "mat", "."], ["It", "purred", ","]]},
    {"id": "q", "words": [["Unbelievably", "short"]]},
    {"id": "r", "words": [["A", "third", ",", "longer", "input", "with", "more", "words", "."]]},
]


def test_argmax_agreement_counts_real_rows_only():
    ref = torch.zeros(1, 1, 3, 3)
    ref[0, 0, :, 0] = 1  # every row's argmax is 0
    other = ref.clone()
    other[0, 0, 1] = torch.tensor([0.0, 1.0, 0.0])  # row 1 disagrees
    other[0, 0, 2] = torch.tensor([0.0, 0.0, 1.0])  # row 2 disagrees but is padding
    assert precision.argmax_agreement([ref], [other], lengths=[2]) == 0.5
    assert precision.argmax_agreement([ref, ref], [ref, other], lengths=[3]) == 4 / 6


def fake_run(agree: bool):
    """A run_batch whose reduced precision agrees with fp32 on every row, or on none."""

    def run(p):
        a = torch.zeros(1, 1, 4, 4)
        a[..., 0 if (p == "fp32" or agree) else 3] = 1
        return [a]

    return run


@pytest.fixture
def machine(monkeypatch):
    """A machine with set matmul rates and forward times per precision."""

    def set_machine(rates, forward_s):
        monkeypatch.setattr(precision, "matmul_rates", lambda ps, device, **kw: rates)
        monkeypatch.setattr(precision, "_timed", lambda run, p: (run(p), forward_s[p]))

    return set_machine


def test_auto_takes_a_reduced_precision_only_when_faster_and_agreeing(machine):
    machine({"fp32": 1.0, "bf16": 4.0, "fp16": 3.5}, {"fp32": 1.0, "bf16": 0.3, "fp16": 0.5})
    got = precision.choose_precision("auto", fake_run(True), [4], "cpu")
    assert got["used"] == "bf16" and got["agreement"]["bf16"] == 1.0
    got = precision.choose_precision("auto", fake_run(False), [4], "cpu")
    assert got["used"] == "fp32" and got["agreement"] == {"bf16": 0.0, "fp16": 0.0}


def test_auto_never_runs_the_model_in_a_precision_whose_matmul_is_slow(machine):
    # an AVX2-only machine: bf16 matmul hundreds of times slower than fp32
    machine({"fp32": 1.0, "bf16": 1 / 600, "fp16": 1 / 600}, {"fp32": 1.0})
    got = precision.choose_precision("auto", fake_run(True), [4], "cpu")
    assert got["used"] == "fp32" and got["agreement"] == {} and "matmul" in got["reason"]


def test_auto_wants_a_clear_margin_and_decides_on_matmul_rates_not_one_noisy_forward(machine):
    machine({"fp32": 1.0, "bf16": 1.2, "fp16": 1.1}, {"fp32": 1.0, "bf16": 0.1, "fp16": 0.1})
    got = precision.choose_precision("auto", fake_run(True), [4], "cpu")
    # too little faster: fp32, but the agreement is measured all the same (the header is the same
    # on every run, whichever side of the margin a noisy rate falls)
    assert got["used"] == "fp32" and got["agreement"] == {"bf16": 1.0, "fp16": 1.0}
    machine(
        {"fp32": 1.0, "bf16": 9.0, "fp16": 1.1}, {"fp32": 1.0, "bf16": 2.0, "fp16": 1.0}
    )  # one slow forward: recorded only
    assert precision.choose_precision("auto", fake_run(True), [4], "cpu")["used"] == "bf16"


def test_the_header_keeps_only_what_a_rerun_reproduces(machine):
    machine({"fp32": 1.0, "bf16": 4.0, "fp16": 3.5}, {"fp32": 1.0, "bf16": 0.3, "fp16": 0.5})
    got = precision.header_record(
        {**precision.choose_precision("auto", fake_run(True), [4], "cpu"), "calibration_inputs": 1}
    )
    assert got == {
        "requested": "auto",
        "used": "bf16",
        "agreement": {"bf16": 1.0, "fp16": 1.0},
        "calibration_inputs": 1,
    }
    assert precision.header_record({**got, "calibrated_on": "m", "reason": "..."}) == {**got, "calibrated_on": "m"}


def test_matmul_rates_are_measured_for_each_precision():
    rates = precision.matmul_rates(["bf16"], "cpu", size=64, reps=2)
    assert set(rates) == {"fp32", "bf16"} and all(r > 0 for r in rates.values())


def test_an_explicit_precision_is_honoured_and_its_agreement_recorded(machine):
    machine({"fp32": 1.0, "bf16": 0.01}, {"fp32": 1.0, "bf16": 9.0})
    got = precision.choose_precision("bf16", fake_run(False), [4], "cpu")
    assert got["used"] == "bf16" and got["agreement"] == {"bf16": 0.0}
    with pytest.raises(ValueError, match="unknown precision"):
        precision.choose_precision("int8", fake_run(True), [4], "cpu")


def test_rates_measured_once_per_machine_decide_every_later_choice(monkeypatch, tmp_path):
    """A record from measure_machine is what choose_precision decides on (nothing measured again),
    and a record from another machine is refused with what to do."""
    record = precision.measure_machine("cpu")
    assert record["fingerprint"] == precision.machine_fingerprint("cpu")
    assert {"fp32", "bf16", "fp16"} <= set(record["matmul_rate"])
    record["matmul_rate"] = {"fp32": 1.0, "bf16": 4.0, "fp16": 1.0}
    path = tmp_path / "matmul_rates.json"
    path.write_text(json.dumps(record))

    def no_measuring(*args, **kwargs):
        raise AssertionError("rates measured again")

    monkeypatch.setattr(precision, "matmul_rates", no_measuring)
    rates = precision.machine_rates(path, "cpu")
    got = precision.choose_precision("auto", fake_run(True), [4], "cpu", rates=rates)
    assert got["used"] == "bf16" and got["matmul_rate"] == rates
    # e.g. resources/ copied from an AMX machine to an AVX2-only one
    path.write_text(json.dumps({**record, "fingerprint": {**record["fingerprint"], "features": ["avx2"]}}))
    with pytest.raises(RuntimeError, match=rf"{path}: matmul rates measured on .*delete {path}"):
        precision.machine_rates(path, "cpu")
    # a pinned precision: the rule gives no record (an empty input), and nothing is read
    assert precision.machine_rates([], "cpu") is None and precision.machine_rates("", "cpu") is None


# issue 39's H200 record (1024^3 products, FLOP/s): bf16 2.32x fp32, under the CPU's 3x bar
H200_1024 = {"fp32": 24.3e12, "bf16": 56.3e12}
# this project's 2-core AMD EPYC (AVX512-BF16) record of the baseline run: bf16 2.19x, fp16 ~1/100x
EPYC = {"fp32": 98.18e9, "bf16": 214.93e9, "fp16": 1.014e9}


def test_a_gpu_takes_a_reduced_precision_at_its_recorded_rates_where_it_agrees():
    assert precision.speed_bar("cuda") == 2.0 and precision.speed_bar(torch.device("cuda", 0)) == 2.0
    assert precision.pick(H200_1024, {"bf16": 0.9994}, "cuda") == "bf16"
    # the agreement rule is the same on every device: below 99.5% of the rows, fp32
    assert precision.pick(H200_1024, {"bf16": 0.994}, "cuda") == "fp32"
    # the same rates on a CPU are under its bar
    assert precision.pick(H200_1024, {"bf16": 0.9994}, "cpu") == "fp32"


def test_the_cpu_decision_is_unchanged():
    assert precision.speed_bar("cpu") == precision.MIN_SPEEDUP["cpu"] == 3.0
    # the calibration's bf16 agreement on the tiny model here, and a perfect one: fp32 either way
    assert precision.pick(EPYC, {"bf16": 0.99092}, "cpu") == "fp32"
    assert precision.pick(EPYC, {"bf16": 1.0}, "cpu") == "fp32"
    # an AMX-like CPU: the fastest agreeing precision, the first tried on a tie
    amx = {"fp32": 1.0, "bf16": 9.0, "fp16": 9.0}
    assert precision.pick(amx, {"bf16": 1.0, "fp16": 1.0}, "cpu") == "bf16"
    assert precision.pick({**amx, "fp16": 10.0}, {"bf16": 1.0, "fp16": 1.0}, "cpu") == "fp16"
    assert precision.pick(amx, {"bf16": 0.99, "fp16": 1.0}, "cpu") == "fp16"


def test_choose_precision_decides_with_the_devices_bar(machine, monkeypatch):
    monkeypatch.setattr(precision, "supported", lambda p, device: True)
    h200 = {**H200_1024, "fp16": 56.3e12}  # same-rate fp16 (not recorded): the first tried wins the tie
    machine(h200, {"fp32": 1.0, "bf16": 0.5, "fp16": 0.5})
    assert precision.choose_precision("auto", fake_run(True), [4], "cuda")["used"] == "bf16"
    assert precision.choose_precision("auto", fake_run(True), [4], "cpu")["used"] == "fp32"
    assert precision.choose_precision("auto", fake_run(False), [4], "cuda")["used"] == "fp32"


def test_matmul_rates_measure_a_cpu_at_1024(monkeypatch):
    sizes = []
    randn = torch.randn
    monkeypatch.setattr(torch, "randn", lambda *shape, **kw: (sizes.append(shape), randn(*shape, **kw))[1])
    precision.matmul_rates([], "cpu", reps=1)
    assert sizes == [(128, 128), (1024, 1024)]  # the probe, then the full size


def reference_maps(model, tokenizer, items, batch_size):
    """The maps as the extraction before this one computed them: float32 stack, one cast."""
    out = {}
    order = sorted(range(len(items)), key=lambda i: items[i]["n"])
    for s in range(0, len(order), batch_size):
        idx = order[s : s + batch_size]
        batch = tokenizer.pad(
            {
                "input_ids": [items[i]["input_ids"] for i in idx],
                "token_type_ids": [items[i]["token_type_ids"] for i in idx],
            },
            return_tensors="pt",
        )
        with torch.inference_mode():
            att = torch.stack(model(**batch, output_attentions=True).attentions, 1).to(torch.float16).numpy()
        for b, i in enumerate(idx):
            out[i] = att[b, :, :, : items[i]["n"], : items[i]["n"]]
    return out


def test_fp32_maps_are_bit_identical_to_the_plain_float32_stack(tiny_model, tokenizer, tmp_path):
    items, _ = encode_records(tokenizer, RECORDS, 32)
    ref = reference_maps(tiny_model, tokenizer, items, 2)
    got = dict((i, m.copy()) for i, m in iter_maps(tiny_model, tokenizer, items, 2, progress=False))
    assert all(got[i].tobytes() == ref[i].tobytes() for i in ref)
    extract_shard(tiny_model, tokenizer, RECORDS, tmp_path / "shard-0", ShardSettings(32, batch_size=2, progress=False))
    flat = np.load(tmp_path / "shard-0.npy")
    assert flat.tobytes() == b"".join(ref[i].tobytes() for i in range(len(items)))
    header = json.loads((tmp_path / "shard-0.json").read_text())
    assert header["precision"]["used"] == "fp32" and [e["id"] for e in header["examples"]] == ["p", "q", "r"]


def test_reduced_precision_maps_are_recorded_with_their_agreement(tiny_model, tokenizer, tmp_path):
    header = extract_shard(
        tiny_model, tokenizer, RECORDS, tmp_path / "shard-0", ShardSettings(32, precision="bf16", progress=False)
    )
    chosen = json.loads((tmp_path / "shard-0.json").read_text().splitlines()[0] + "]}")["precision"]
    assert chosen == precision.header_record(header["precision"]) and chosen["used"] == "bf16"
    assert "matmul_rate" in header["precision"] and "matmul_rate" not in chosen  # timings: sidecar only
    # calibrated on the fixed calibration inputs, on the model itself (no reference given)
    assert 0 <= chosen["agreement"]["bf16"] <= 1 and chosen["calibration_inputs"] == len(precision.CALIBRATION)
    assert chosen["calibrated_on"] == ""  # the model's name (none given here)


def test_model_flops_by_hand():
    cfg = SimpleNamespace(hidden_size=4, intermediate_size=8, num_hidden_layers=2)
    # per layer: 8*n*d^2 + 4*n*d*f + 4*n^2*d with n=3: 384 + 384 + 144
    assert model_flops(cfg, 3) == 2 * (384 + 384 + 144)
    with pytest.raises(ValueError, match="hidden"):
        model_flops(SimpleNamespace(), 3)


def test_benchmark_table(tiny_model, tokenizer):
    t = run_benchmark(tiny_model, tokenizer, RECORDS, 32, 2, ["fp32"])
    assert list(t.method) == ["naive batch-1 loop", "plain batched loop", "project extract_shard"]
    row = t.iloc[2]
    assert row.precision == "fp32 -> fp32" and row.segments == 3
    n = np.array([len(it["input_ids"]) for it in encode_records(tokenizer, RECORDS, 32)[0]])
    assert row.bytes_float16_min == (n**2).sum() * 2 * 4 * 2
    assert row.bytes_on_disk == row.bytes_float16_min + 128  # the .npy header, nothing else
    assert np.allclose(t.ratio_to_roofline, t.segments_per_s / t.roofline_segments_per_s)
    assert t.speedup_vs_naive.iloc[0] == 1.0 and (t.matmul_gflops_fp32 > 0).all()
