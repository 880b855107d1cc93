from analysis.clark.surface.metrics import RELATIVE_POSITION
from analysis.clark.surface.plots import plot_relative_position
from analysis.clark.surface.tables import SurfaceSums
from analysis.shared.rule_io import save_figure, start

snakemake, log = start(globals(), __file__)
# the replicate table (scorecard intervals): the Wikipedia articles resampled, each with all its segments
sums = SurfaceSums.read(snakemake.input, **snakemake.params.bootstrap)
t = sums.write_tables("relative_position", snakemake.output, per_head=RELATIVE_POSITION)
fig = plot_relative_position(t, sums.header["model"], sums.n_examples, local=snakemake.params.local_layers)
save_figure(fig, snakemake.output.figure)
for col in ["prev", "next"]:
    strong = t[t[col] > 0.5]
    log.info(
        "%d heads put > 50%% on %s: %s", len(strong), col, [f"{a}-{b}" for a, b in zip(strong.layer, strong["head"])]
    )
