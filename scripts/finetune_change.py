import numpy as np
import pandas as pd

from analysis.core.storage import Shards
from analysis.kovaleva.finetune_change import mean_cosines
from analysis.shared.plots import close, head_heatmap, new_figure
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

n_layers, n_heads = table.layer.max(), table["head"].max()
ncols = min(2, len(tasks))
nrows = -(-len(tasks) // ncols)
fig, axes = new_figure(3.6 * ncols, (0.28 * n_layers + 1.0) * nrows, ncols=ncols, nrows=nrows, squeeze=False)
vmin = float(table.cosine.min())
for ax, task in zip(axes.flat, tasks):
    t = table[table.task == task]
    head_heatmap(ax, t, "cosine", vmin=vmin, vmax=1.0, cmap="viridis", cbar_label="cosine similarity")
    ax.set_title(f"{task} ({int(t.n_examples.iloc[0])} dev inputs)")
for ax in list(axes.flat)[len(tasks) :]:
    ax.axis("off")
fig.suptitle(f"{model}: pre-trained vs fine-tuned maps, per head (lower = more change)", y=1.02)
fig.tight_layout()
save_figure(fig, snakemake.output.figure)
close(fig)
