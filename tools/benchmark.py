"""Benchmark of attention extraction: speed and memory per batch size, written as a table.

    python tools/benchmark.py --model embedded:all-MiniLM-L6-v2 --segments 200 \
        --out results/benchmark/extraction.csv

Runs the real pipeline (Wikipedia segments from the mirror, extraction to a temporary shard)
and records wall time, examples/s, peak resident memory, bytes on disk and the expected
bytes (sum over segments of n^2 * layers * heads * 2).
"""

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import pandas as pd
import torch

from analysis.core.corpora import prepare
from analysis.core.extraction import extract_shard
from analysis.core.models import default_device, load_model, load_tokenizer, shape_of


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="embedded:all-MiniLM-L6-v2")
    ap.add_argument("--mirror", default=os.environ.get("ATTN_MIRROR", "../shared/data"))
    ap.add_argument("--segments", type=int, default=200)
    ap.add_argument("--batch-sizes", default="1,8,32")
    ap.add_argument("--threads", type=int, default=torch.get_num_threads())
    ap.add_argument("--out", default="results/benchmark/extraction.csv")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    tok = load_tokenizer(args.model)
    model = load_model(args.model)
    L, H = shape_of(model)
    records, _ = prepare(
        "wikipedia",
        Path(args.mirror) / "wikitext-2-raw",
        tok,
        file="wiki.test.raw",
        n_segments=args.segments,
        max_len=128,
        seed=0,
    )
    rows = []
    for bs in map(int, args.batch_sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            extract_shard(model, tok, records, Path(tmp) / "shard-0", max_len=128, batch_size=bs, progress=False)
            wall = time.perf_counter() - t0
            import json

            meta = json.loads((Path(tmp) / "shard-0.json").read_text())
            expected = sum(e["n"] ** 2 for e in meta["examples"]) * L * H * 2
            size = (Path(tmp) / "shard-0.npy").stat().st_size
        rows.append(
            {
                "model": args.model,
                "device": default_device(),
                "threads": args.threads,
                "segments": len(records),
                "batch_size": bs,
                "wall_s": round(wall, 3),
                "segments_per_s": round(len(records) / wall, 2),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                "bytes_on_disk": size,
                "bytes_expected": expected,
            }
        )
        print(rows[-1], flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
