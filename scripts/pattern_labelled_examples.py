import pandas as pd

from analysis.kovaleva.patterns import CLASSES, draw_map, load_maps
from analysis.shared.plots import close, new_figure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
p = snakemake.params
labels = pd.read_csv(snakemake.input.table)
maps = load_maps(snakemake.input.maps)
# the first k maps of each class in labelling order (no choosing)
pick = labels.sort_values("map").groupby("label", sort=False).head(p.per_class)
present = [c for c in CLASSES if c in set(pick["label"])]
fig, axes = new_figure(1.45 * p.per_class, 1.6 * len(present), ncols=p.per_class, nrows=len(present), squeeze=False)
for r, c in enumerate(present):
    rows = pick[pick["label"] == c]
    for k, ax in enumerate(axes[r]):
        if k >= len(rows):
            ax.axis("off")
            continue
        row = rows.iloc[k]
        m, kinds, seq = maps[int(row["map"])]
        draw_map(
            ax, m, kinds, seq, title=f"#{row['map']} {row['input_id']}\nL{row['layer']}-H{row['head']}", fontsize=7
        )
        if k == 0:
            ax.set_ylabel(c, fontsize=8)
fig.suptitle(f"Hand-labelled maps of {p.labelled_model.split(':')[-1]}, first {p.per_class} of each class", y=1.0)
fig.tight_layout()
save_figure(fig, snakemake.output.figure)
close(fig)
write_table(
    pick[["label", "map", "batch", "source", "input_id", "layer", "head", "n_tokens"]], snakemake.output.examples
)
