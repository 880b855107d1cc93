import pandas as pd

from analysis.clark.surface.examples import example_maps, pick_example_heads
from analysis.clark.surface.plots import plot_example_heads
from analysis.clark.surface.sums import pick_candidate, read_sums
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
p = snakemake.params
parts, metas = read_sums(snakemake.input.sums)
tables = {k: pd.read_csv(snakemake.input[k]) for k in ["relative_position", "special_tokens", "entropy"]}
picked = pick_example_heads(tables)
write_table(picked, snakemake.output.table)

# the segment to draw: chosen among the shards' candidates (surface_sums), as over every segment
k = pick_candidate([m["candidate"] for m in metas], p.segment, p.window)
ex, attn = metas[k]["candidate"], parts[k]["candidate_attn"]
w = min(p.window, ex["n"])
h = metas[0]["header"]
fig = plot_example_heads(picked, attn, ex["tokens"], w, h["model"], ex["id"], h["cls_token"], h["sep_token"])
save_figure(fig, snakemake.output.figure)
write_table(example_maps(picked, attn, ex["tokens"], w, ex["id"]), snakemake.output.maps)
log.info("example heads: %s", picked.to_dict("records"))
