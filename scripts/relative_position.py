from analysis.clark.surface import accumulate, per_head_table, relative_position_stats
from analysis.core.storage import Shards
from analysis.shared.plots import close, head_heatmap, new_figure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
shards = Shards(snakemake.input)
sums, n = accumulate(shards, relative_position_stats)
t = per_head_table(sums)
write_table(t, snakemake.output.table)

fig, axes = new_figure(7.2, 0.45 * shards.n_layers + 1.0, ncols=3, sharey=True)
for ax, col, name in zip(axes, ["prev", "current", "next"], ["previous token", "current token", "next token"]):
    head_heatmap(ax, t, col, vmin=0, vmax=1, annotate_above=0.3, cbar=False)
    ax.set_title(f"to {name}")
    if col != "prev":
        ax.set_ylabel("")
# one colour bar beside all three panels, so that they keep the same width (12 head labels fit)
fig.colorbar(axes[-1].collections[0], ax=list(axes), shrink=0.8, pad=0.02, label="mean attention")
fig.suptitle(f"{shards.header['model']}: relative position, {n} segments (values shown where >= 0.3)", y=1.02)
save_figure(fig, snakemake.output.figure)
close(fig)
for col in ["prev", "next"]:
    strong = t[t[col] > 0.5]
    log.info(
        "%d heads put > 50%% on %s: %s", len(strong), col, [f"{a}-{b}" for a, b in zip(strong.layer, strong["head"])]
    )
