from pathlib import Path

import torch

from analysis.core import glue
from analysis.core.models import load_model, load_tokenizer, shape_of
from analysis.kovaleva import finetune
from analysis.kovaleva.disable_heads import disabled_logits, score_table
from analysis.shared.rule_io import setup_logging, write_json, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
task, p = snakemake.wildcards.task, snakemake.params
ckpt = snakemake.input.checkpoint
all_dev = glue.read_split(Path(snakemake.input.raw).parent, task, "dev")
records = glue.select_rows(all_dev, p.n_examples, p.seed)
tok = load_tokenizer(ckpt)
items, counts = finetune.encode(tok, records, p.max_len)
model = load_model(ckpt, head="classification")
n_layers, n_heads = shape_of(model)
device = next(model.parameters()).device
batch_size = max(1, min(p.max_batch // (n_heads + 1), 64))
batches, order = [], []
for idx in finetune.eval_batches(items, batch_size):
    b = finetune.collate([items[i] for i in idx], tok.pad_token_id, device)
    b.pop("labels")
    batches.append(b)
    order.extend(idx)
base, per_variant, cost = disabled_logits(model, batches, max_batch=p.max_batch)
gold = [items[i]["label"] for i in order]
table = score_table(task, base, per_variant, gold, n_layers, n_heads)
write_table(table, snakemake.output.scores)
cost.update(
    task=task,
    dev_rows_total=len(all_dev),
    truncated=counts["truncated"],
    batch_size=batch_size,
    max_batch=p.max_batch,
    device=str(device),
    threads=snakemake.threads,
)
write_json(cost, snakemake.output.cost)
best = table[table.metric == glue.get_task(task).main_metric].sort_values("change").iloc[[0, -1]]
log.info("%s: %s\nworst/best variants:\n%s", task, cost, best.to_string())
