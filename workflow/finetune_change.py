import numpy as np
import pandas as pd

from analysis.core.storage import Shards
from analysis.kovaleva.finetune.change import mean_cosines
from analysis.kovaleva.finetune.plots import plot_finetune_change
from analysis.kovaleva.replicates import cosine_replicates, task_weights
from analysis.shared.bootstrap import RESAMPLED, with_resampled
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
tasks, model, p = snakemake.params.tasks, snakemake.wildcards.model, snakemake.params
parts, boots = [], []
for task, pre, fine in zip(tasks, snakemake.input.pretrained, snakemake.input.finetuned):
    cosines = []  # each example's (layers, heads) cosines: the units of the resamples
    t, n = mean_cosines(Shards([pre]), Shards([fine]), keep=cosines)
    t.insert(0, "task", task)
    parts.append(t)
    weights = task_weights(n, p.bootstrap["resamples"], p.bootstrap["seed"], task)
    boots.append(with_resampled(cosine_replicates(np.stack(cosines), weights).assign(task=task), n))
    layer_means = t.groupby("layer").cosine.mean()
    log.info("%s: %d examples; mean cosine per layer %s", task, n, np.round(layer_means.to_numpy(), 3).tolist())
table = pd.concat(parts, ignore_index=True)
write_table(table, snakemake.output.table)
boot = pd.concat(boots, ignore_index=True)
write_table(boot[["task", "layer", "cosine", "replicate", RESAMPLED]], snakemake.output.boot)

fig = plot_finetune_change(table, tasks, model)
save_figure(fig, snakemake.output.figure)
