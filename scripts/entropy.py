from analysis.clark.surface import accumulate, by_layer, entropy_stats, per_head_table
from analysis.core.storage import Shards
from analysis.shared.plots import close, layer_scatter, new_figure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

setup_logging(snakemake)
shards = Shards(snakemake.input)
sums, n = accumulate(shards, entropy_stats)
t = per_head_table(sums)
write_table(t, snakemake.output.table)
cols = ["entropy", "uniform_entropy", "entropy_cls", "uniform_entropy_cls"]
write_table(by_layer(t, cols), snakemake.output.layers)

cls = shards.header["cls_token"]
fig, axes = new_figure(6.4, 2.4, ncols=2, sharey=True)
for ax, col, base, title in [
    (axes[0], "entropy", "uniform_entropy", "from all tokens"),
    (axes[1], "entropy_cls", "uniform_entropy_cls", f"from {cls} only"),
]:
    layer_scatter(ax, t, col, color="C0", label="heads (layer mean)")
    ax.axhline(t[base].mean(), color="k", ls="--", lw=1, label="uniform attention")
    ax.set_title(f"attention entropy {title}")
axes[0].set_ylabel("mean entropy (nats)")
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="upper center", ncol=2, bbox_to_anchor=(0.5, -0.05), frameon=False)
fig.suptitle(f"{shards.header['model']}: attention entropy, {n} segments", y=1.03)
save_figure(fig, snakemake.output.figure)
close(fig)
