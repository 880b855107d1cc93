from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from analysis.kovaleva.patterns import draw_map, load_maps
from analysis.shared.rule_io import save_figure, setup_logging

log = setup_logging(snakemake)
labels = pd.read_csv(snakemake.input.table).sort_values("map")
maps = load_maps(snakemake.input.maps)
out = Path(snakemake.output[0])
out.mkdir(parents=True, exist_ok=True)
per = 16
for s in range(0, len(labels), per):
    part = labels.iloc[s : s + per]
    fig, axes = plt.subplots(4, 4, figsize=(10, 10.8))
    for ax, row in zip(axes.flat, part.itertuples()):
        m, kinds, seq = maps[int(row.map)]
        draw_map(ax, m, kinds, seq, title=f"#{row.map} n={row.n_tokens}: {row.label}", fontsize=10)
    for ax in axes.flat[len(part) :]:
        ax.axis("off")
    fig.tight_layout()
    save_figure(fig, out / f"sheet{s // per:02d}.png", dpi=80)
    plt.close(fig)
log.info("%d contact sheets of %d labelled maps", -(-len(labels) // per), len(labels))
