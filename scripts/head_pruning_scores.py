import time
from pathlib import Path

import pandas as pd
import torch

from analysis.beyond.head_gates import pruning_table
from analysis.core import glue
from analysis.core.models import load_model, load_tokenizer, shape_of
from analysis.kovaleva import finetune
from analysis.shared.rule_io import setup_logging, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
task, p = snakemake.wildcards.task, snakemake.params
ckpt = snakemake.input.checkpoint
all_dev = glue.read_split(Path(snakemake.input.raw).parent, task, "dev")
records = glue.select_rows(all_dev, p.n_examples, p.seed)
tok = load_tokenizer(ckpt)
items, _ = finetune.encode(tok, records, p.max_len)
model = load_model(ckpt, head="classification")
device = next(model.parameters()).device
order = finetune.eval_batches(items, p.batch_size)
batches = [finetune.collate([items[i] for i in idx], tok.pad_token_id, device) for idx in order]
gold = [items[i]["label"] for idx in order for i in idx]
importance = pd.read_csv(snakemake.input.importance).sort_values(["layer", "head"])
n_layers, n_heads = shape_of(model)
t0 = time.perf_counter()
curves = pruning_table(
    model,
    batches,
    gold,
    task,
    importance.importance.to_numpy().reshape(n_layers, n_heads),
    p.step,
    p.random_orders,
    p.seed,
)
curves["n_examples"] = len(items)
curves["seconds"] = time.perf_counter() - t0
write_table(curves, snakemake.output[0])
log.info("%s: %.1f s\n%s", task, curves.seconds.iloc[0], curves[curves.main_metric & (curves.draw <= 1)].to_string())
