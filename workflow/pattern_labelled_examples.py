import pandas as pd

from analysis.kovaleva.patterns.labels import first_per_class, load_maps
from analysis.kovaleva.patterns.plots import plot_pattern_labelled_examples
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
p = snakemake.params
pick = first_per_class(pd.read_csv(snakemake.input.table), p.per_class)
fig = plot_pattern_labelled_examples(pick, load_maps(snakemake.input.maps), p.per_class, p.labelled_model)
save_figure(fig, snakemake.output.figure)
write_table(pick, snakemake.output.table)
