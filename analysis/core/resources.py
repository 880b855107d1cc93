"""What a job asks a cluster for, from the run rather than the papers' worst case: memory (``mem_mb``)
and wall time (``runtime``, minutes) from the model's shape (its config.json; no weights are loaded),
the sequence length, the batch and the number of inputs. Plain functions of numbers and of the
config dict: ``rules/scheduling.smk`` binds them to each rule (``mem_mb=job_mem_mb("finetune")``),
``tools/docs/resource_table.py`` prints them for the docs. Guesses are named constants, calibrated on
measured runs (benchmarks/*.tsv of the default run).

- memory = BASE_MB + MEM_SAFETY x the working set (weights, one batch's activations, gradients and
  Adam's moments when training, what the job holds), in steps of 500 MB; a retry asks for 1.5x.
- run time = TIME_SAFETY x (STARTUP_S + matmul FLOPs / rate + writing), at least MIN_RUNTIME; the
  rate: config ``resources.gpu_gflops`` for the rules that ask for a GPU (analysis/scheduling/heavy_rules.py
  GPU_RULES), ``resources.cpu_gflops`` x threads otherwise; a retry asks for 2x.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from analysis.core.batch import sizing_batch
from analysis.core.model_families import model_config
from analysis.core.model_names import base_spec

log = logging.getLogger(__name__)

BASE_MB = 1000  # a job's interpreter and libraries (measured 450-650 MB before the model is loaded)
MEM_SAFETY = 1.5
STEP_MB = 500
CUDA_CONTEXT_MB = 600  # CUDA's context and torch's kernels on a card before any tensor
STARTUP_S = 60  # imports, loading the model and the inputs
TIME_SAFETY = 3
MIN_RUNTIME = 10  # minutes
WRITE_MB_S = 100  # disk bandwidth assumed for the maps written
LOO_PIECES = 32  # forward passes per input of a leave-one-out / erasure loop over its word pieces
FULL_CORPUS = 5000  # inputs assumed for a corpus with no cap in the config (n_segments, max_sentences ...)
# GLUE (train, dev) sizes, for train_examples / dev_examples / disable_examples of null (= all)
GLUE_SIZES = {
    "CoLA": (8551, 1043), "SST-2": (67349, 872), "MRPC": (3668, 408), "STS-B": (5749, 1500), "QQP": (363846, 40430),
    "MNLI": (392702, 9815), "QNLI": (104743, 5463), "RTE": (2490, 277), "WNLI": (635, 71),
}  # fmt: skip


@dataclass(frozen=True)
class Shape:
    """An encoder's size, as its config.json gives it."""

    layers: int
    heads: int
    hidden: int
    ffn: int
    vocab: int = 30522
    positions: int = 512

    @property
    def params(self) -> int:
        """BERT-like parameter count: embeddings, per layer attention + feed-forward + 2 norms, pooler."""
        h, f = self.hidden, self.ffn
        layer = 4 * (h * h + h) + 2 * h * f + f + h + 4 * h
        return (self.vocab + self.positions + 2) * h + 2 * h + self.layers * layer + h * h + h

    @property
    def n_heads(self) -> int:
        return self.layers * self.heads


def shape_from_config(cfg: dict) -> Shape:
    """A Shape from a Hugging Face config dict (BERT / RoBERTa / ELECTRA keys, or DistilBERT's)."""

    def first(*keys):
        if not any(cfg.get(k) for k in keys):
            raise ValueError(f"model config has none of {keys}")
        return int(next(cfg[k] for k in keys if cfg.get(k)))

    hidden = first("hidden_size", "dim", "d_model")
    return Shape(
        layers=first("num_hidden_layers", "n_layers", "num_layers"),
        heads=first("num_attention_heads", "n_heads"),
        hidden=hidden,
        ffn=int(cfg.get("intermediate_size") or cfg.get("hidden_dim") or 4 * hidden),
        vocab=int(cfg.get("vocab_size") or 30522),
        positions=int(cfg.get("max_position_embeddings") or 512),
    )


BERT_LARGE = Shape(layers=24, heads=16, hidden=1024, ffn=4096)
_SHAPES: dict[str, Shape] = {}


def model_shape(spec: str) -> Shape:
    """The shape of model ``spec`` from its config.json (embedded, tiny, a local directory, or a hub
    id: the Hugging Face cache, else config.json alone is downloaded). A model whose config cannot
    be read is sized as bert-large (logged); its job then fails with the model's own message."""
    if spec not in _SHAPES:
        try:
            _SHAPES[spec] = shape_from_config(_config_json(base_spec(spec)))  # a control: its model's
        except (OSError, ValueError, ImportError) as err:
            log.warning("model %s: config.json not readable (%s); sized as bert-large", spec, err)
            _SHAPES[spec] = BERT_LARGE
    return _SHAPES[spec]


def _config_json(spec: str) -> dict:
    cfg = model_config(spec, download=True)
    if cfg is None:
        raise OSError(f"{spec}: no config.json")
    return cfg


# -- FLOPs and bytes ----------------------------------------------------------------------------------
def forward_gflop(s: Shape, n: int) -> float:
    """Matmul GFLOPs of one forward pass on ``n`` tokens: per layer the Q, K, V, output projections
    (8 n d^2), the feed-forward (4 n d f) and the two attention products (4 n^2 d)."""
    return s.layers * (8 * n * s.hidden**2 + 4 * n * s.hidden * s.ffn + 4 * n * n * s.hidden) / 1e9


def weights_mb(s: Shape) -> float:
    return s.params * 4 / 2**20


def maps_mb(s: Shape, n_inputs: float, n: int, itemsize: int = 2) -> float:
    """Attention maps of ``n_inputs`` inputs of ``n`` tokens (every layer and head)."""
    return n_inputs * s.n_heads * n * n * itemsize / 2**20


def inference_mb(s: Shape, batch: int, n: int, maps: bool = True) -> float:
    """Weights + one forward pass of ``batch`` x ``n`` tokens (fp32, eager attention): one layer's
    projections, feed-forward, scores, masked scores and probabilities (measured: disabling heads on
    MiniLM, 128 x 128 tokens, peaked 1.36 GB over the libraries), and every layer's maps when ``maps``
    (output_attentions, float32 + their float16 copy)."""
    layer = batch * n * (12 * s.hidden + 3 * s.ffn) * 4 + 4 * batch * s.heads * n * n * 4
    return weights_mb(s) + (layer + (maps_mb(s, batch, n, 4 + 2) * 2**20 if maps else 0)) / 2**20


def training_mb(s: Shape, batch: int, n: int, optimizer: bool = True) -> float:
    """Weights, gradients (+ Adam's two moments) and the activations kept for the backward pass
    of ``batch`` x ``n`` tokens: per layer and token ~60 bytes per hidden unit, 12 per feed-forward
    unit and 16 per attention score (scores, probabilities, dropout mask and output; measured:
    fine-tuning MiniLM on RTE, 32 x 128 tokens, peaked 2.2 GB over the libraries)."""
    state = weights_mb(s) * (4 if optimizer else 2)
    per_layer = batch * n * (60 * s.hidden + 12 * s.ffn + 16 * s.heads * n)
    return state + s.layers * per_layer / 2**20


@dataclass(frozen=True)
class Work:
    """A job's arithmetic (GFLOP), its working set (MB) and other seconds (writing, Python loops)."""

    gflop: float = 0.0
    mb: float = 0.0
    seconds: float = 0.0


def request_mb(work: Work, attempt: int = 1) -> int:
    mb = (BASE_MB + MEM_SAFETY * work.mb) * (1 + 0.5 * (attempt - 1))
    return int(math.ceil(mb / STEP_MB) * STEP_MB)


def request_gpu_mb(work: Work) -> int:
    """GPU memory of one job of a rule that asks for a GPU: CUDA's context + MEM_SAFETY x its working
    set (weights, a batch's activations, training state: what lives on the card), in steps of
    STEP_MB; the cap ``--resources gpu_mem_mb=<card's MB>`` lets several such jobs share one card."""
    return int(math.ceil((CUDA_CONTEXT_MB + MEM_SAFETY * work.mb) / STEP_MB) * STEP_MB)


def request_minutes(work: Work, rate_gflops: float, attempt: int = 1) -> int:
    seconds = STARTUP_S + work.gflop / rate_gflops + work.seconds
    return max(MIN_RUNTIME, math.ceil(TIME_SAFETY * seconds / 60)) * 2 ** (attempt - 1)


def rate(config: dict, gpu: bool, threads: int) -> float:
    """GFLOP/s a job is assumed to sustain: a GPU's, or ``threads`` CPU threads'."""
    r = config["resources"]
    return float(r["gpu_gflops"]) if gpu else float(r["cpu_gflops"]) * max(1, threads)


# -- how many inputs a job reads ---------------------------------------------------------------------------
def corpus_inputs(corpus: dict) -> int:
    """Inputs of a configured corpus: its cap (n_segments, max_sentences, max_examples, max_docs),
    FULL_CORPUS where it has none (null = all)."""
    caps = [corpus.get(k) for k in ("n_segments", "max_sentences", "max_examples", "max_docs")]
    return int(next((c for c in caps if c), FULL_CORPUS))


def counter(config: dict, counted: dict | None = None):
    """corpus name -> its inputs: the prepared records where they were counted (``counted``, e.g.
    the lines of resources/inputs/<model>/<corpus>.jsonl once made), else from the config."""
    return lambda corpus: (counted or {}).get(corpus) or corpus_inputs(config["corpora"][corpus])


def shard_inputs(config: dict, corpus: str, count) -> int:
    return math.ceil(count(corpus) / int(config["corpora"][corpus].get("n_shards") or 1))


def glue_split(task: str, split: str, n: int | None) -> int:
    """``n`` inputs of a GLUE task's split, or the whole split (null)."""
    train, dev = GLUE_SIZES.get(task, (100_000, 10_000))
    return int(n) if n else (train if split == "train" else dev)


# -- the heavy rules' work, from the config and the job's wildcards ---------------------------------------
def extraction_work(s: Shape, n_inputs: float, n: int, batch: int, passes: float = 1.0) -> Work:
    """Forward passes that keep the maps (float16 on disk) over ``n_inputs`` inputs of ``n`` tokens."""
    written = maps_mb(s, n_inputs, n)
    return Work(passes * n_inputs * forward_gflop(s, n), inference_mb(s, batch, n), written / WRITE_MB_S)


def _extract_attention(s, c, wc, count):  # inputs split at max_len, precision auto's calibration: 1.5 passes
    return extraction_work(
        s, shard_inputs(c, wc["corpus"], count), c["max_len"], sizing_batch(c["batch_size"]), passes=1.5
    )


def _benchmark(s, c, wc, count):  # a naive batch-1 loop, a plain batched loop, extract_shard per precision
    b = c["benchmark"]
    return extraction_work(
        s, b["n_segments"], c["max_len"], sizing_batch(c["batch_size"]), passes=2 + 1.5 * len(b["precisions"])
    )


# the spine's heavy rules (they ask for a GPU: resources gpu=1) and their work; the papers' heavy rules
# keep theirs in their packages (analysis/<paper>/work.py), gathered in analysis/scheduling/heavy_rules.py
SPINE_WORK = {
    "measure_matmul": lambda s, c, wc, count: Work(),
    "extract_attention": _extract_attention,
    "benchmark": _benchmark,
}
LIGHT_MB, LIGHT_S = 500, 120  # tables, figures, maps streamed one input at a time, small CPU models


def work(estimate, shape: Shape | None, config: dict, wildcards: dict | None = None, counted=None) -> Work:
    """The work of one job: ``estimate(shape, config, wildcards, count)`` for a heavy rule (see
    SPINE_WORK), None for any other: LIGHT_MB + 16 inputs' maps. ``counted``: corpus -> prepared
    inputs, where known (see ``counter``)."""
    if estimate is not None:
        return estimate(shape, config, dict(wildcards or {}), counter(config, counted))
    return Work(mb=LIGHT_MB + (maps_mb(shape, 16, config["max_len"], 4) if shape else 0), seconds=LIGHT_S)


def job_requests(
    estimate, shape, config, wildcards=None, threads=1, attempt=1, counted=None, gpu: bool | None = None
) -> tuple[int, int, int]:
    """(mem_mb, runtime in minutes, gpu_mem_mb) of one job, from one estimate of its work: at the
    GPU's rate when ``gpu`` (the rule asks for one; None: whenever an ``estimate`` is given), else at
    ``threads`` CPU threads' rate; its card memory (:func:`request_gpu_mb`)."""
    w = work(estimate, shape, config, wildcards, counted)
    gpu = estimate is not None if gpu is None else gpu
    return request_mb(w, attempt), request_minutes(w, rate(config, gpu, threads), attempt), request_gpu_mb(w)


def job_request(
    estimate, shape, config, wildcards=None, threads=1, attempt=1, counted=None, gpu: bool | None = None
) -> tuple[int, int]:
    """(mem_mb, runtime in minutes) of one job (:func:`job_requests`)."""
    return job_requests(estimate, shape, config, wildcards, threads, attempt, counted, gpu)[:2]
