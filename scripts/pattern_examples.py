import pandas as pd

from analysis.core.storage import Shards
from analysis.kovaleva.patterns import CLASSES, draw_map
from analysis.shared.plots import close, new_figure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
p = snakemake.params
pred = pd.read_csv(snakemake.input.predictions)
pred = pred[pred["variant"] == "pretrained"]
# very short inputs give degenerate maps: prefer inputs with at least min_tokens word pieces
long_enough = pred[pred["n_tokens"] >= p.min_tokens]
if long_enough["label"].nunique() == pred["label"].nunique():
    pred = long_enough
else:
    log.warning("not every predicted type has a map of >= %d tokens; drawing from all inputs", p.min_tokens)
rows = []
for c in CLASSES:
    cand = pred[pred["label"] == c]
    if len(cand) == 0:
        log.warning("no map classified as %s", c)
        continue
    # the most confident map of the class; ties broken by task, input, layer, head order
    best = cand.sort_values(f"p_{c}", ascending=False, kind="stable").iloc[0]
    rows.append(best)
pick = pd.DataFrame(rows)
paths = dict(zip(p.tasks, snakemake.input.pretrained))
fig, axes = new_figure(1.6 * len(CLASSES), 2.0, ncols=len(CLASSES), squeeze=False)
axes = axes[0]
for ax in axes[len(pick) :]:
    ax.axis("off")
for ax, (_, row) in zip(axes, pick.iterrows()):
    ex = next(e for e in Shards([paths[row["task"]]]) if e.id == row["input_id"])
    m = ex.attn[int(row["layer"]) - 1, int(row["head"]) - 1]
    draw_map(
        ax,
        m,
        ex.kinds,
        ex.seq_ids,
        fontsize=8,
        title=f"{row['label']}\n{row['task']} L{row['layer']}-H{row['head']}, p={row['p_' + row['label']]:.2f}",
    )
fig.suptitle(f"{p.spec.split(':')[-1]} (pre-trained): most confident map of each predicted type", y=1.12)
save_figure(fig, snakemake.output.figure)
close(fig)
keep = ["label", "task", "input_id", "layer", "head", "n_tokens"] + [f"p_{c}" for c in CLASSES]
write_table(pick[keep], snakemake.output.table)
