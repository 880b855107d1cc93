from pathlib import Path

import pandas as pd

from analysis.kovaleva.patterns.labels import load_maps
from analysis.kovaleva.patterns.plots import plot_pattern_label_sheets
from analysis.shared.rule_io import save_figure, start

snakemake, log = start(globals(), __file__)
labels = pd.read_csv(snakemake.input.table).sort_values("map")
out = Path(snakemake.output[0])
out.mkdir(parents=True, exist_ok=True)
sheets = 0
for i, fig in enumerate(plot_pattern_label_sheets(labels, load_maps(snakemake.input.maps))):
    save_figure(fig, out / f"pattern_label_sheets.{i:02d}.png", dpi=80)
    sheets += 1
log.info("%d contact sheets of %d labelled maps", sheets, len(labels))
