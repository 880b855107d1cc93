"""The job's device (analysis/core/device.py): CUDA only for a job that asked for a GPU and has one,
a fallback said once in the job's log, the device recorded, clocks synchronised on CUDA only, and
bundles loaded onto the CPU whatever device they were saved from. CPU only: CUDA is stood in for."""

import logging
from types import SimpleNamespace

import torch

import analysis.core.device as D


def job(rule: str, gpu: int | None):
    """A stand-in for a job's ``snakemake`` object: its rule and resources."""
    resources = SimpleNamespace(gpu=gpu) if gpu is not None else SimpleNamespace()
    return SimpleNamespace(rule=rule, resources=resources)


def test_a_gpu_job_runs_on_cuda_where_there_is_one():
    assert D.job_device(job("extract_attention", 1), cuda=True) == "cuda"


def test_a_job_that_asked_for_no_gpu_stays_on_the_cpu_even_beside_cuda():
    assert D.job_device(job("probes_train", None), cuda=True) == "cpu"
    assert D.job_device(job("probes_train", 0), cuda=True) == "cpu"


def test_a_gpu_job_without_cuda_falls_back_and_says_so_once(caplog, monkeypatch):
    monkeypatch.setattr(D, "_WARNED", set())
    with caplog.at_level(logging.WARNING):
        assert D.job_device(job("finetune", 1), cuda=False) == "cpu"
        assert D.job_device(job("finetune", 1), cuda=False) == "cpu"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].name == "rule.finetune"  # the job's own logger (rule_io.setup_logging's)
    assert "rule finetune asked for a GPU" in warnings[0].getMessage()
    assert "CUDA is unavailable" in warnings[0].getMessage()
    caplog.clear()
    with caplog.at_level(logging.WARNING):  # a job that asked for none has nothing to say
        D.job_device(job("surface_sums", None), cuda=False)
    assert not caplog.records


def test_this_machine_without_cuda_gives_the_cpu():
    if not torch.cuda.is_available():
        assert D.job_device(job("extract_attention", 1)) == "cpu"


def test_the_device_record():
    assert D.device_record("cpu") == {"device": "cpu"}
    assert D.device_record(torch.device("cpu")) == {"device": "cpu"}


def test_sync_waits_on_cuda_only(monkeypatch):
    calls = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: calls.append(device))
    D.sync("cpu")
    D.sync(torch.device("cpu"))
    assert calls == []  # nothing queued on a CPU: no call at all
    D.sync("cuda:0")  # a device object needs no GPU; the (stood-in) synchronize is called for it
    assert calls == [torch.device("cuda:0")]


def test_a_bundle_is_loaded_onto_the_cpu_whatever_it_was_saved_from(tmp_path, monkeypatch):
    path = tmp_path / "bundle.pt"
    torch.save({"encoders": {"lstm": {"state": torch.nn.Linear(2, 1).state_dict()}}, "max_len": 8}, path)
    seen = {}
    real_load = torch.load

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real_load(*args, **kwargs)

    monkeypatch.setattr(torch, "load", spy)
    bundle = D.load_bundle(path)
    assert seen["map_location"] == "cpu" and seen["weights_only"] is False
    assert bundle["max_len"] == 8 and bundle["encoders"]["lstm"]["state"]["weight"].device.type == "cpu"


def test_a_bundle_is_moved_to_the_jobs_device(tmp_path):
    path = tmp_path / "bundle.pt"
    state = torch.nn.Linear(2, 1).state_dict()
    torch.save({"state": state, "shape": (2, 1), "name": "probe", "list": [torch.ones(1)]}, path)
    # "meta" stands in for a GPU: a device other than the CPU that every torch build has
    bundle = D.load_bundle(path, "meta")
    assert bundle["state"]["weight"].device.type == "meta" and bundle["list"][0].device.type == "meta"
    assert bundle["shape"] == (2, 1) and bundle["name"] == "probe"
    assert bundle["state"]._metadata == state._metadata  # what load_state_dict reads is kept


def test_the_timing_loops_stop_the_clock_after_a_sync(monkeypatch, tiny_model, tokenizer):
    import analysis.benchmark.extraction as bench
    import analysis.core.precision as precision
    from analysis.core.extraction import encode_records

    calls = []
    monkeypatch.setattr(bench, "sync", lambda device: calls.append(("benchmark", torch.device(device).type)))
    monkeypatch.setattr(precision, "sync", lambda device: calls.append(("precision", torch.device(device).type)))
    items, _ = encode_records(tokenizer, [{"id": "a", "words": [["A", "cat", "."]]}], 16)
    assert bench.batched_loop(tiny_model, tokenizer, items, 2) >= 0
    assert calls == [("benchmark", "cpu"), ("benchmark", "cpu")]  # before the clock starts, and before it stops
    calls.clear()
    precision._timed(lambda p: [torch.zeros(1)], "fp32")
    precision.matmul_rates([], "cpu", size=8, reps=2)
    # the forward timing once; the matmul rates: fp32's probe (warm-up + 3 reps), then warm-up + 2 reps
    assert calls == [("precision", "cpu")] * (1 + 4 + 3)
