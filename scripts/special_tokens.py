from analysis.clark.surface import accumulate, by_layer, per_head_table, special_tokens_stats
from analysis.core.storage import Shards
from analysis.shared.plots import close, layer_scatter, new_figure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

setup_logging(snakemake)
shards = Shards(snakemake.input)
sums, n = accumulate(shards, special_tokens_stats)
t = per_head_table(sums)
write_table(t, snakemake.output.table)
write_table(by_layer(t, ["cls", "sep", "punct"]), snakemake.output.layers)

h = shards.header
fig, axes = new_figure(7.0, 2.3, ncols=3, sharey=True)
for i, (ax, col, name) in enumerate(zip(axes, ["cls", "sep", "punct"], [h["cls_token"], h["sep_token"], "'.' or ','"])):
    layer_scatter(ax, t, col, color=f"C{i}", seed=i)
    ax.set_title(f"attention to {name}")
    ax.set_ylim(-0.02, 1.02)
axes[0].set_ylabel("mean attention (point = head,\nline = layer mean)")
fig.suptitle(f"{h['model']}: attention to special tokens, {n} segments", y=1.03)
save_figure(fig, snakemake.output.figure)
close(fig)
