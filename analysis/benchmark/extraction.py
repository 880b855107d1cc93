"""How close extraction comes to the machine's matmul limit (rule ``benchmark``).

On the same segments, in one process: a naive loop (one input per forward pass), a plain
length-sorted batched loop (forward passes only, maps left in the model's output) and the
project's ``extract_shard`` (maps written to a shard), each in segments/s, against the
roofline: the measured fp32 matmul rate divided by the model's matmul FLOPs per segment
(``model_flops``, the segments' real lengths, no padding). Also the reduced-precision matmul
rates, peak resident memory and the shard's bytes against the float16 minimum.
"""

from __future__ import annotations

import platform
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.core.device import sync
from analysis.core.extraction import (
    as_float16,
    batch_inputs,
    encode_records,
    extract_shard,
    forward_attentions,
    length_batches,
)
from analysis.core.extraction_settings import ShardSettings
from analysis.core.models import shape_of
from analysis.core.precision import matmul_rates, supported


def model_flops(config, n: int) -> float:
    """Matmul FLOPs of one forward pass of an encoder on ``n`` tokens: per layer the Q, K, V
    and output projections (8 n d^2), the feed-forward (4 n d f) and the two attention
    products (4 n^2 d); embeddings, norms and softmax are not matmuls and left out."""
    d = getattr(config, "hidden_size", None) or getattr(config, "dim", None)
    f = getattr(config, "intermediate_size", None) or getattr(config, "hidden_dim", None)
    layers = getattr(config, "num_hidden_layers", None) or getattr(config, "n_layers", None)
    if not (d and f and layers):
        raise ValueError(f"model config {type(config).__name__}: no hidden/intermediate size or layer count")
    return float(layers * (8 * n * d * d + 4 * n * d * f + 4 * n * n * d))


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MB: since the last ``reset_peak_rss`` where
    Linux allows it (VmHWM), else since the start (ru_maxrss, KiB on Linux)."""
    try:
        status = Path("/proc/self/status").read_text()
        return int(status.split("VmHWM:")[1].split()[0]) / 1024
    except (OSError, IndexError):  # pragma: no cover - not Linux
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak_rss() -> None:
    """Start a new peak-memory window (Linux: 5 > /proc/self/clear_refs resets VmHWM)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:  # pragma: no cover - not Linux, or not allowed
        pass


def naive_loop(model, tokenizer, items: list[dict]) -> float:
    """Seconds for one input per forward pass, each input's maps copied out as float16."""
    device = next(model.parameters()).device
    t0 = time.perf_counter()
    for i in range(len(items)):
        as_float16(forward_attentions(model, batch_inputs(model, tokenizer, items, [i], device)))
    return time.perf_counter() - t0


def batched_loop(model, tokenizer, items: list[dict], batch_size: int) -> float:
    """Seconds for length-sorted batches of forward passes, maps left in the output."""
    device = next(model.parameters()).device
    batches = [batch_inputs(model, tokenizer, items, idx, device) for idx in length_batches(items, batch_size)]
    sync(device)  # the batches' copies to the device are done before the clock starts
    t0 = time.perf_counter()
    for batch in batches:
        forward_attentions(model, batch)
    sync(device)  # on CUDA the passes are only queued until now: the clock stops when they are done
    return time.perf_counter() - t0


def project_extraction(model, tokenizer, records, max_len: int, batch_size: int, precision: str, segments: str):
    """(seconds, header, bytes on disk) of ``extract_shard`` on ``records`` (encoding,
    precision choice and writing included), into a temporary directory."""
    with tempfile.TemporaryDirectory() as tmp:
        stem = Path(tmp) / "shard-0"
        t0 = time.perf_counter()
        settings = ShardSettings(max_len, batch_size=batch_size, segments=segments, precision=precision, progress=False)
        header = extract_shard(model, tokenizer, records, stem, settings)
        seconds = time.perf_counter() - t0
        size = stem.with_suffix(".npy").stat().st_size
    return seconds, header, size


def run_benchmark(
    model, tokenizer, records, max_len: int, batch_size: int, precisions, segments="zeros"
) -> pd.DataFrame:
    """One row per method (naive, batched, project in each of ``precisions``) with the
    machine's matmul rates and the roofline repeated on every row."""
    device = next(model.parameters()).device
    items, _ = encode_records(tokenizer, records, max_len, "split", segments)
    lengths = np.array([it["n"] for it in items])
    L, H = shape_of(model)
    rates = matmul_rates([p for p in ("bf16", "fp16") if supported(p, device)], device, reps=20)
    roofline = len(items) / (sum(model_flops(model.config, int(n)) for n in lengths) / rates["fp32"])
    float16_min = int((lengths**2).sum()) * L * H * 2
    rows = [
        {"method": "naive batch-1 loop", "precision": "fp32", "batch_size": 1}
        | _measured(naive_loop, model, tokenizer, items),
        {"method": "plain batched loop", "precision": "fp32", "batch_size": batch_size}
        | _measured(batched_loop, model, tokenizer, items, batch_size),
    ]
    for precision in precisions:
        got = _measured(project_extraction, model, tokenizer, records, max_len, batch_size, precision, segments)
        seconds, header, size = got.pop("wall_s")
        chosen = header["precision"]
        rows.append(
            {
                "method": "project extract_shard",
                "precision": f"{precision} -> {chosen['used']}",
                "batch_size": batch_size,
                "wall_s": seconds,
                **got,
                "argmax_agreement": chosen.get("agreement", {}).get(chosen["used"]),
                "bytes_on_disk": size,
                "bytes_float16_min": float16_min,
            }
        )
    table = pd.DataFrame(rows)
    table["segments"] = len(items)
    table["mean_pieces"] = float(lengths.mean())
    table["segments_per_s"] = len(items) / table["wall_s"]
    table["roofline_segments_per_s"] = roofline
    table["ratio_to_roofline"] = table["segments_per_s"] / roofline
    table["speedup_vs_naive"] = table["segments_per_s"] / table["segments_per_s"].iloc[0]
    for p, r in rates.items():
        table[f"matmul_gflops_{p}"] = r / 1e9
    table["device"] = str(device)
    table["processor"] = processor_name()
    return table


def _measured(method, *args) -> dict:
    """``method(*args)`` (its result as ``wall_s``) and the peak memory while it ran."""
    reset_peak_rss()
    return {"wall_s": method(*args), "peak_rss_mb": peak_rss_mb()}


def processor_name() -> str:
    """The CPU model (from /proc/cpuinfo where there is one) or the platform's name."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:  # pragma: no cover - not Linux
        pass
    return platform.processor() or platform.machine()
