import time
from pathlib import Path

import pandas as pd

from analysis.beyond_papers.head_gates import pruning_table
from analysis.core.device import device_record, job_device, sync
from analysis.core.models import shape_of
from analysis.kovaleva.finetune import training as finetune
from analysis.shared.rule_io import start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
task, p = snakemake.wildcards.task, snakemake.params
device = job_device(snakemake)
dev = finetune.load_dev_set(
    Path(snakemake.input.raw).parent, task, snakemake.input.checkpoint, p.n_examples, p.seed, p.max_len, device=device
)
batches, order = dev.batches(p.batch_size)
gold = [dev.items[i]["label"] for i in order]
importance = pd.read_csv(snakemake.input.importance).sort_values(["layer", "head"])
n_layers, n_heads = shape_of(dev.model)
t0 = time.perf_counter()
curves = pruning_table(
    dev.model,
    batches,
    gold,
    task,
    importance.importance.to_numpy().reshape(n_layers, n_heads),
    p.step,
    p.random_orders,
    p.seed,
)
sync(device)  # the device's queued work, before the clock is read
curves["n_examples"] = len(dev.items)
curves["seconds"] = time.perf_counter() - t0
write_table(curves, snakemake.output[0])
write_json(device_record(device), snakemake.output.device)
log.info("%s: %.1f s\n%s", task, curves.seconds.iloc[0], curves[curves.main_metric & (curves.draw <= 1)].to_string())
