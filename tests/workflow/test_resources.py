"""What jobs ask a cluster for (analysis/core/resources.py): shapes read from config.json without
weights, requests that grow with the model, the inputs and the batch, the tiny smoke run asking for
little, every job rule declaring its sizing under its own name, and the docs table tool."""

import copy
import re
import subprocess
import sys

import pytest
import yaml

from analysis.core import resources as R
from analysis.core.config_defaults import apply_defaults, load_schema
from analysis.scheduling.heavy_rules import CPU_BOUND, GPU_RULES, HEAVY
from conftest import ROOT

MINILM = R.Shape(layers=6, heads=12, hidden=384, ffn=1536)
BASE = R.Shape(layers=12, heads=12, hidden=768, ffn=3072)
LARGE = R.BERT_LARGE


def config(*overlays) -> dict:
    cfg = yaml.safe_load((ROOT / "config" / "config.default.yaml").read_text())
    for name in overlays:
        cfg = merge(cfg, yaml.safe_load((ROOT / name).read_text()))
    apply_defaults(cfg, load_schema())
    return cfg


def merge(a, b):
    out = copy.deepcopy(a)
    for k, v in b.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


@pytest.mark.parametrize("shape, millions", [(MINILM, 22.7), (BASE, 109.5), (LARGE, 335.1)])
def test_parameter_counts_match_the_published_models(shape, millions):
    assert shape.params / 1e6 == pytest.approx(millions, abs=0.1)


def test_shapes_come_from_config_json_without_weights(tmp_path):
    assert R.model_shape("embedded:all-MiniLM-L6-v2") == MINILM
    tiny = R.model_shape("tiny-random-bert")
    assert (tiny.layers, tiny.heads, tiny.hidden, tiny.ffn) == (2, 4, 32, 64)
    (tmp_path / "config.json").write_text('{"n_layers": 6, "n_heads": 12, "dim": 768, "hidden_dim": 3072}')
    distil = R.model_shape(str(tmp_path))  # DistilBERT's keys; a directory with no weights at all
    assert (distil.layers, distil.heads, distil.hidden, distil.ffn) == (6, 12, 768, 3072)


def test_an_unreadable_model_is_sized_as_bert_large(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert R.model_shape(str(tmp_path / "no-such-model-here")) == LARGE


def test_forward_flops_are_the_benchmarks_formula():
    # README, Performance: MiniLM, 110 pieces on average -> 2.45 GFLOP per segment (model_flops)
    assert R.forward_gflop(MINILM, 110) == pytest.approx(2.45, abs=0.01)


def test_requests_round_up_and_grow_with_retries():
    w = R.Work(gflop=0, mb=100)
    assert R.request_mb(w) == 1500 and R.request_mb(w) % R.STEP_MB == 0
    assert R.request_mb(w, attempt=2) > R.request_mb(w)
    assert R.request_minutes(w, 1.0) == R.MIN_RUNTIME
    assert R.request_minutes(R.Work(gflop=1e6), 100.0, attempt=2) == 2 * R.request_minutes(R.Work(gflop=1e6), 100.0)


def test_gpu_memory_is_the_context_and_the_working_set():
    # 600 MB of CUDA context + 1.5 x 1,000 MB = 2,100 MB, rounded up to 2,500; nothing but the context: 1,000
    assert R.request_gpu_mb(R.Work(mb=1000)) == 2500
    assert R.request_gpu_mb(R.Work()) == 1000
    # fine-tuning MiniLM (batch 32 x 128 tokens) holds more on the card than a forward pass of 8
    assert R.request_gpu_mb(R.Work(mb=R.training_mb(MINILM, 32, 128))) > R.request_gpu_mb(
        R.Work(mb=R.inference_mb(MINILM, 8, 128))
    )


def test_memory_grows_with_batch_length_and_model():
    assert R.inference_mb(MINILM, 16, 128) > R.inference_mb(MINILM, 8, 128) > R.inference_mb(MINILM, 8, 64)
    assert R.training_mb(LARGE, 32, 128) > R.training_mb(BASE, 32, 128) > R.training_mb(MINILM, 32, 128)
    # training holds weights, gradients and Adam's moments: at least 16 bytes a parameter
    assert R.training_mb(LARGE, 1, 8) > 16 * LARGE.params / 2**20


@pytest.mark.parametrize(
    "rule, wc", [("extract_attention", {"corpus": "wiki", "shard": "0"}), ("finetune", {"task": "RTE"})]
)
def test_measured_peaks_fit_under_the_requests(rule, wc):
    """Peak RSS measured on the default run (MiniLM, benchmarks/*.tsv): extraction of a wiki shard
    770 MB, fine-tuning RTE 2,650 MB; each request leaves room above it."""
    measured = {"extract_attention": 770, "finetune": 2650}[rule]
    mem, _ = R.job_request(HEAVY[rule], MINILM, config(), wc, threads=1)
    assert measured * 1.3 <= mem <= measured * 4


def test_smoke_asks_for_little_and_bert_large_for_more():
    smoke, default = config("config/smoke.yaml"), config()
    tiny = R.model_shape("tiny-random-bert")
    for rule, estimate in HEAVY.items():
        wc, gpu = {"corpus": "wiki", "shard": "0", "task": "RTE"}, rule in GPU_RULES
        mem, minutes = R.job_request(estimate, tiny, smoke, wc, threads=1, gpu=gpu)  # CPU rules: at 1 thread
        assert mem <= 2000 and minutes == R.MIN_RUNTIME, rule
        small = R.job_request(estimate, MINILM, default, wc, threads=2, gpu=gpu)
        large = R.job_request(estimate, LARGE, default, wc, threads=2, gpu=gpu)
        assert large[0] >= small[0] and large[1] >= small[1], rule
    # fine-tuning bert-large: weights, gradients and Adam (5.4 GB) plus 32 x 128 tokens' activations
    assert R.job_request(HEAVY["finetune"], LARGE, default, {"task": "SST-2"})[0] >= 16000


def test_inputs_follow_the_config_and_the_prepared_records():
    cfg = config()
    count = R.counter(cfg)
    assert count("wiki") == cfg["corpora"]["wiki"]["n_segments"]
    assert count("ewt_dev") == R.FULL_CORPUS  # no cap in the config: all of it
    assert R.counter(cfg, {"ewt_dev": 2001})("ewt_dev") == 2001
    assert R.shard_inputs(cfg, "wiki", count) == 250  # 1000 segments in 4 shards
    few = R.work(HEAVY["extract_attention"], MINILM, cfg, {"corpus": "ewt_dev", "shard": "0"}, {"ewt_dev": 100})
    many = R.work(HEAVY["extract_attention"], MINILM, cfg, {"corpus": "ewt_dev", "shard": "0"})
    assert few.gflop < many.gflop and few.mb == many.mb  # extraction streams: memory is one batch's


def test_gpu_rate_and_threads_set_the_time():
    cfg = config()
    assert R.rate(cfg, gpu=True, threads=2) == cfg["resources"]["gpu_gflops"]
    assert R.rate(cfg, gpu=False, threads=2) == 2 * cfg["resources"]["cpu_gflops"]
    slow = merge(cfg, {"resources": {"gpu_gflops": 50}})
    wc = {"task": "SST-2"}
    assert (
        R.job_request(HEAVY["disable_heads_scores"], LARGE, slow, wc)[1]
        > R.job_request(HEAVY["disable_heads_scores"], LARGE, cfg, wc)[1]
    )


def job_rules() -> dict[str, str]:
    """rule name -> its block, for every rule of rules/*.smk that runs a job (script, shell or run)."""
    found = {}
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        for m in re.finditer(r"^(\s*)rule (\w+):\n(.*?)(?=^\s*rule \w+:|\Z)", smk.read_text(), re.M | re.S):
            if re.search(r"^\s+(script|shell|run):", m.group(3), re.M):
                found[m.group(2)] = m.group(3)
    return found


def test_every_job_rule_declares_its_sizing_under_its_own_name():
    rules = job_rules()
    assert len(rules) > 50
    for name, body in rules.items():
        assert f'mem_mb=job_mem_mb("{name}"' in body, name
        assert f'runtime=job_runtime("{name}"' in body, name


def test_the_rules_that_ask_for_a_gpu_are_the_heavy_ones_that_use_it():
    gpu = {name for name, body in job_rules().items() if re.search(r"^\s+gpu=1,", body, re.M)}
    assert gpu == set(GPU_RULES) == set(HEAVY) - CPU_BOUND
    # the heavy rules whose work runs on the CPU ask for none (issue 30): the probes' training and the
    # attention classifiers' tests
    assert CPU_BOUND == {"probes_train", "erasure", "permutation", "adversarial"} and CPU_BOUND < set(HEAVY)


def test_a_heavy_rule_on_the_cpu_is_sized_at_the_cpu_rate():
    cfg = merge(config(), {"resources": {"gpu_gflops": 5000, "cpu_gflops": 20}})
    gpu = R.job_request(HEAVY["probes_train"], LARGE, cfg, {}, threads=2, gpu=True)
    cpu = R.job_request(HEAVY["probes_train"], LARGE, cfg, {}, threads=2, gpu=False)
    assert gpu[0] == cpu[0] and cpu[1] > gpu[1]  # the same memory; more time at 2 x 20 GFLOP/s than at 5,000
    # by default (no gpu given) a heavy estimate is sized at the GPU's rate, as before
    assert R.job_request(HEAVY["probes_train"], LARGE, cfg, {}, threads=2) == gpu


def test_the_table_tool_prints_the_three_models():
    out = subprocess.run(
        [sys.executable, "-m", "tools.docs.resource_table"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    header, rule, *rows = [line for line in out.splitlines() if line.startswith("|")]
    assert "all-MiniLM-L6-v2" in header and "bert-base" in header and "bert-large" in header
    assert any(row.startswith("| `finetune.SST-2`") for row in rows)
    assert all(row.count(" GB, ") == 3 for row in rows)


def test_the_cluster_page_shows_the_current_table():
    """docs/cluster.md's requests table is the tool's output for the default config (regenerate with
    python -m tools.docs.resource_table --page docs/cluster.md)."""
    run = subprocess.run(
        [sys.executable, "-m", "tools.docs.resource_table", "--page", "docs/cluster.md", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_stale_or_missing_table_block_is_named(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# t\n<!-- resource-table:begin -->\nold\n<!-- resource-table:end -->\n")
    tool = [sys.executable, "-m", "tools.docs.resource_table", "--page", str(page)]
    stale = subprocess.run([*tool, "--check"], cwd=ROOT, capture_output=True, text=True)
    assert stale.returncode == 1 and "stale" in stale.stdout and str(page) in stale.stdout
    subprocess.run(tool, cwd=ROOT, check=True)
    assert "| `finetune.SST-2` |" in page.read_text() and "old" not in page.read_text()
    assert subprocess.run([*tool, "--check"], cwd=ROOT).returncode == 0
    page.write_text("# no block\n")
    missing = subprocess.run(tool, cwd=ROOT, capture_output=True, text=True)
    assert missing.returncode != 0 and "needs one block" in missing.stderr
