import time
from pathlib import Path

from analysis.beyond_papers.head_gates import head_importance, importance_table
from analysis.core.device import device_record, job_device, sync
from analysis.kovaleva.finetune import training as finetune
from analysis.shared.rule_io import start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
task, p = snakemake.wildcards.task, snakemake.params
device = job_device(snakemake)
# the authors estimate importance on training data, never on the rows the pruning curve is scored on
rows = finetune.load_dev_set(
    Path(snakemake.input.raw).parent,
    task,
    snakemake.input.checkpoint,
    p.n_examples,
    p.seed,
    p.max_len,
    p.split,
    device=device,
)
batches, _ = rows.batches(p.batch_size)
t0 = time.perf_counter()
abs_mean, signed_mean = head_importance(rows.model, batches, p.abs_per)
sync(device)  # the device's queued work, before the clock is read
table = importance_table(task, abs_mean, signed_mean, len(rows.items), p.normalize_by_layer).assign(
    split=p.split,
    abs_per=p.abs_per,
    seconds=time.perf_counter() - t0,
    truncated=rows.counts["truncated"],
    split_rows_total=rows.rows_total,
)
write_table(table, snakemake.output[0])
write_json(device_record(device), snakemake.output.device)
log.info(
    "%s: %d examples, %.1f s\n%s",
    task,
    len(rows.items),
    table.seconds.iloc[0],
    table.nlargest(5, "importance").to_string(),
)
