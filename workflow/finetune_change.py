import numpy as np
import pandas as pd

from analysis.core.storage import Shards
from analysis.kovaleva.finetune_change import mean_cosines
from analysis.kovaleva.finetune_plots import plot_finetune_change
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
tasks, model = snakemake.params.tasks, snakemake.wildcards.model
parts = []
for task, pre, fine in zip(tasks, snakemake.input.pretrained, snakemake.input.finetuned):
    t, n = mean_cosines(Shards([pre]), Shards([fine]))
    t.insert(0, "task", task)
    parts.append(t)
    layer_means = t.groupby("layer").cosine.mean()
    log.info("%s: %d examples; mean cosine per layer %s", task, n, np.round(layer_means.to_numpy(), 3).tolist())
table = pd.concat(parts, ignore_index=True)
write_table(table, snakemake.output.table)

fig = plot_finetune_change(table, tasks, model)
save_figure(fig, snakemake.output.figure)
