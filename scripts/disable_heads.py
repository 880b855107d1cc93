import json

import numpy as np
import pandas as pd

from analysis.core import glue
from analysis.shared.plots import close, new_figure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
tasks, model = snakemake.params.tasks, snakemake.wildcards.model
table = pd.concat([pd.read_csv(p) for p in snakemake.input.scores], ignore_index=True)
table["head"] = table["head"].astype("Int64")
write_table(table, snakemake.output.table)
cost = pd.DataFrame([json.load(open(p)) for p in snakemake.input.cost])
cost["seconds_per_example"] = cost.seconds / cost.examples
cost["layer_pass_saving"] = 1 - cost.layer_passes / cost.layer_passes_without_cache
write_table(cost, snakemake.output.cost)
log.info("cost:\n%s", cost.to_string())

main = table[table.metric == table.task.map(lambda t: glue.get_task(t).main_metric)]
n_layers, n_heads = int(main.layer.max()), int(main["head"].max())
ncols = min(2, len(tasks))
nrows = -(-len(tasks) // ncols)
fig, axes = new_figure(4.6 * ncols, (0.3 * n_layers + 1.1) * nrows, ncols=ncols, nrows=nrows, squeeze=False)
import seaborn as sns  # noqa: E402

for ax, task in zip(axes.flat, tasks):
    t = main[main.task == task]
    lim = max(1.0, float(np.nanmax(np.abs(t.change))) * 100)  # colour scale per task
    grid = np.full((n_layers, n_heads + 1), np.nan)
    heads = t[t.scope == "head"]
    grid[heads.layer - 1, heads["head"].astype(int) - 1] = heads.change * 100
    layers = t[t.scope == "layer"]
    grid[layers.layer - 1, n_heads] = layers.change * 100
    pval = np.full(grid.shape, np.nan)
    if "mcnemar_p" in t:
        pval[heads.layer - 1, heads["head"].astype(int) - 1] = heads.mcnemar_p
        pval[layers.layer - 1, n_heads] = layers.mcnemar_p
    annot = np.vectorize(lambda v, q: "" if np.isnan(v) else f"{v:.1f}" + ("*" if q < 0.05 else ""))(grid, pval)
    df = pd.DataFrame(grid, index=range(1, n_layers + 1), columns=[*map(str, range(1, n_heads + 1)), "all"])
    sns.heatmap(
        df,
        ax=ax,
        cmap="RdBu",
        vmin=-lim,
        vmax=lim,
        center=0,
        annot=annot if n_heads <= 16 else False,
        fmt="",
        annot_kws={"fontsize": 6},
        cbar_kws={"label": "change (points)", "shrink": 0.8},
        linewidths=0.2,
        linecolor="white",
    )
    ax.axvline(n_heads, color="k", lw=1)
    ax.set_xlabel("disabled head ('all' = whole layer)")
    ax.set_ylabel("layer")
    ax.tick_params(axis="y", rotation=0)
    m, base, n = t.metric.iloc[0], t.unmodified.iloc[0], int(t.n_examples.iloc[0])
    ax.set_title(f"{task}: {m} {base * 100:.1f} unmodified ({n} dev)")
    best = heads.loc[heads.change.idxmax()]
    log.info(
        "%s: unmodified %s %.4f; best head L%d-H%d %+0.4f; %d heads improve, %d hurt; layers %s",
        task,
        m,
        base,
        best.layer,
        best["head"],
        best.change,
        (heads.change > 0).sum(),
        (heads.change < 0).sum(),
        np.round(layers.change.to_numpy(), 4).tolist(),
    )
for ax in list(axes.flat)[len(tasks) :]:
    ax.axis("off")
fig.suptitle(f"{model}: dev score change when one head (or layer) attends uniformly", y=1.02)
fig.tight_layout()
save_figure(fig, snakemake.output.figure)
close(fig)
