from pathlib import Path

import torch

from analysis.core import glue
from analysis.core.models import shape_of
from analysis.kovaleva import finetune
from analysis.kovaleva.disable_heads import disabled_logits, score_table
from analysis.shared.rule_io import setup_logging, write_json, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
task, p = snakemake.wildcards.task, snakemake.params
dev = finetune.load_dev_set(
    Path(snakemake.input.raw).parent, task, snakemake.input.checkpoint, p.n_examples, p.seed, p.max_len
)
model, items, counts = dev.model, dev.items, dev.counts
n_layers, n_heads = shape_of(model)
device = next(model.parameters()).device
batch_size = max(1, min(p.max_batch // (n_heads + 1), 64))
batches, order = dev.batches(batch_size, labels=False)
base, per_variant, cost = disabled_logits(model, batches, max_batch=p.max_batch)
gold = [items[i]["label"] for i in order]
table = score_table(task, base, per_variant, gold, n_layers, n_heads)
write_table(table, snakemake.output.scores)
cost.update(
    task=task,
    dev_rows_total=dev.rows_total,
    truncated=counts["truncated"],
    batch_size=batch_size,
    max_batch=p.max_batch,
    device=str(device),
    threads=snakemake.threads,
)
write_json(cost, snakemake.output.cost)
best = table[table.metric == glue.get_task(task).main_metric].sort_values("change").iloc[[0, -1]]
log.info("%s: %s\nworst/best variants:\n%s", task, cost, best.to_string())
