from pathlib import Path

import numpy as np
import pandas as pd

from analysis.core.device import device_record, job_device
from analysis.core.glue import metrics
from analysis.core.glue.tasks import get_task
from analysis.core.models import shape_of
from analysis.core.precision import autocast
from analysis.kovaleva.finetune import training as finetune
from analysis.kovaleva.finetune.disable_heads import disabled_logits, score_table, variants
from analysis.kovaleva.finetune.disable_heads_confirm import confirm, confirm_rows_table, rank, summary
from analysis.kovaleva.finetune.disable_heads_null import max_gain_table
from analysis.kovaleva.replicates import resample_rows, save_layer_predictions
from analysis.shared.rule_io import start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
task, p = snakemake.wildcards.task, snakemake.params
device = job_device(snakemake)
dev = finetune.load_dev_set(
    Path(snakemake.input.raw).parent, task, snakemake.input.checkpoint, p.n_examples, p.seed, p.max_len, device=device
)
model, items, counts = dev.model, dev.items, dev.counts
n_layers, n_heads = shape_of(model)
batch_size = max(1, min(p.max_batch // (n_heads + 1), 64))
batches, order = dev.batches(batch_size, labels=False)
with autocast(p.precision, device):  # fp32, or bf16 autocast (docs/performance.md)
    base, per_variant, cost = disabled_logits(model, batches, max_batch=p.max_batch)
gold = [items[i]["label"] for i in order]
table = score_table(task, base, per_variant, gold, n_layers, n_heads)
write_table(table, snakemake.output.scores)
# each dev example's prediction, unmodified and with each whole layer disabled (the resamples' units)
whole_layers = [k for k in range(len(per_variant)) if k % (n_heads + 1) == n_heads]
save_layer_predictions(
    snakemake.output.layer_predictions,
    task=task,
    gold=np.asarray(gold),
    unmodified=metrics.predictions(task, base),
    layers=np.stack([metrics.predictions(task, per_variant[k]) for k in whole_layers]),
)
# single heads only (each layer's variants: its heads one by one, then the whole layer)
single = [k for k in range(len(per_variant)) if k % (n_heads + 1) != n_heads]
heads = [(variants(n_layers, n_heads)[k][0], variants(n_layers, n_heads)[k][1][0]) for k in single]
# the upper bound of the best head's gain: the best head re-chosen on each seeded resample of the dev rows
idx = resample_rows(len(gold), p.bootstrap["resamples"], p.bootstrap["seed"], task)
max_test = max_gain_table(task, base, per_variant[single], heads, gold, p.n_permutations, p.seed, idx=idx)
# two stages: rank every head on these rows (studentised), confirm the top ones on the dev rows not drawn
t = get_task(task)
base_pred = metrics.predictions(task, base)
head_preds = np.stack([metrics.predictions(task, per_variant[k]) for k in single])
ranked = {m: rank(base_pred, head_preds, gold, m, p.n_permutations, p.seed, p.confirm_heads) for m in t.metrics}
carried = ranked[t.main_metric]["carried"]  # the main metric's top heads (the claims'), every metric confirmed on them
for r in ranked.values():
    r["carried"] = carried
held = finetune.unused_dev_set(dev, Path(snakemake.input.raw).parent, task, p.n_examples, p.seed, p.max_len)
n_rows = len(held.items)
held_gold, held_base, held_preds, idx_held, confirm_cost = [], np.array([]), {}, None, {"seconds": 0.0}
if n_rows >= p.confirm_min_rows:  # else nothing is run: every confirmation column NaN (docs/kovaleva-finetune.md)
    held_batches, held_order = held.batches(batch_size, labels=False)
    with autocast(p.precision, device):
        logits, per_carried, confirm_cost = disabled_logits(
            model, held_batches, max_batch=p.max_batch, which=[(heads[h][0], (heads[h][1],)) for h in carried]
        )
    held_gold = [held.items[i]["label"] for i in held_order]
    held_base = metrics.predictions(task, logits)
    held_preds = {h: metrics.predictions(task, lg) for h, lg in zip(carried, per_carried)}
    idx_held = resample_rows(n_rows, p.bootstrap["resamples"], p.bootstrap["seed"], task)
confirm_parts, summaries = [], []
for m in t.metrics:
    r = ranked[m]
    preds = np.stack([held_preds[h] for h in r["carried"]]) if held_preds else np.empty((len(r["carried"]), 0))
    done = confirm(held_base, preds, held_gold, m, p.n_permutations, p.seed, idx_held, p.confirm_min_rows)
    confirm_parts.append(confirm_rows_table(task, m, m == t.main_metric, heads, r, done, n_rows))
    summaries.append(summary(r, done, heads, n_rows, p.confirm_min_rows))
max_test = pd.concat([max_test, pd.DataFrame(summaries, index=max_test.index)], axis=1)
write_table(max_test, snakemake.output.max_test)
write_table(pd.concat(confirm_parts, ignore_index=True), snakemake.output.confirm)
log.info("best single head vs the permutation null of the best:\n%s", max_test.to_string())
log.info("the top heads confirmed on %d unused dev rows:\n%s", n_rows, pd.concat(confirm_parts).to_string())
cost.update(
    task=task,
    dev_rows_total=dev.rows_total,
    truncated=counts["truncated"],
    batch_size=batch_size,
    max_batch=p.max_batch,
    precision=p.precision,
    threads=snakemake.threads,
    confirm_rows=n_rows,
    confirm_truncated=held.counts["truncated"],
    confirm_variants=len(held_preds),
    confirm_seconds=confirm_cost["seconds"],
    confirm_layer_passes=confirm_cost.get("layer_passes", 0),
    **device_record(device),
)
write_json(cost, snakemake.output.cost)
best = table[table.metric == get_task(task).main_metric].sort_values("change").iloc[[0, -1]]
log.info("%s: %s\nworst/best variants:\n%s", task, cost, best.to_string())
