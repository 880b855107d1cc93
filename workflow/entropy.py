from analysis.clark.surface.metrics import ENTROPY
from analysis.clark.surface.plots import plot_entropy
from analysis.clark.surface.tables import SurfaceSums
from analysis.shared.rule_io import save_figure, start

snakemake, log = start(globals(), __file__)
# the replicate table (scorecard intervals): the Wikipedia articles resampled, each with all its segments
sums = SurfaceSums.read(snakemake.input, **snakemake.params.bootstrap)
t = sums.write_tables("entropy", snakemake.output, layers=ENTROPY)
h = sums.header
fig = plot_entropy(t, h["model"], sums.n_examples, h["cls_token"], local=snakemake.params.local_layers)
save_figure(fig, snakemake.output.figure)
