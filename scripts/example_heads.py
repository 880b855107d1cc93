import pandas as pd

from analysis.clark.surface import example_maps, example_segment, pick_example_heads
from analysis.clark.surface_plots import plot_example_heads
from analysis.core.storage import Shards
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
shards = Shards(snakemake.input.shards)
tables = {k: pd.read_csv(snakemake.input[k]) for k in ["relative_position", "special_tokens", "entropy"]}
picked = pick_example_heads(tables)
write_table(picked, snakemake.output.table)

ex = example_segment(shards, snakemake.params.segment, snakemake.params.window)
w = min(snakemake.params.window, ex.n)
attn = ex.attn
h = shards.header
fig = plot_example_heads(picked, attn, ex.tokens, w, h["model"], ex.id, h["cls_token"], h["sep_token"])
save_figure(fig, snakemake.output.figure)
write_table(example_maps(picked, attn, ex.tokens, w, ex.id), snakemake.output.maps)
log.info("example heads: %s", picked.to_dict("records"))
