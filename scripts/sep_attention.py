from analysis.clark.surface import accumulate, by_layer, per_head_table, sep_attention_stats
from analysis.core.storage import Shards
from analysis.shared.plots import close, layer_scatter, new_figure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

setup_logging(snakemake)
shards = Shards(snakemake.input)
sums, n = accumulate(shards, sep_attention_stats)
t = per_head_table(sums)
write_table(t, snakemake.output.table)
write_table(by_layer(t, ["sep_from_sep", "sep_from_other"]), snakemake.output.layers)

sep = shards.header["sep_token"]
fig, ax = new_figure(3.4, 2.5)
layer_scatter(ax, t, "sep_from_sep", color="C1", label=f"from {sep} tokens", seed=0)
layer_scatter(ax, t, "sep_from_other", color="C0", label="from other tokens", seed=1, marker="^")
ax.set_ylim(-0.02, 1.02)
ax.set_ylabel(f"mean attention to {sep}")
ax.legend(loc="best", frameon=True)
ax.set_title(f"{shards.header['model']}: attention to {sep}\n(point = head, line = layer mean; {n} segments)")
save_figure(fig, snakemake.output.figure)
close(fig)
