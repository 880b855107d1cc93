import pandas as pd

from analysis.clark.syntax.examples import best_head_row, example_arcs, example_map, example_table, pick_example
from analysis.clark.syntax.plots import plot_dobj_head_example
from analysis.core.storage import Shards
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
p = snakemake.params
shards = Shards(snakemake.input.shards)
row = best_head_row(pd.read_csv(snakemake.input.table), p.relation, p.direction, source=snakemake.input.table)
layer, head, direction = int(row["layer"]), int(row["head"]), row["direction"]
ex = pick_example(
    shards, p.relation, p.sentence, max_words=p.max_words, head=(layer, head), direction=direction, how=p.how
)
wm, labels, unit_word = example_map(ex, layer, head, p.how)
arcs = example_arcs(unit_word, ex.meta["heads"], ex.meta["rels"], direction)
model = shards.header["model"]
fig = plot_dobj_head_example(wm, labels, arcs, row, model, ex.id)
save_figure(fig, snakemake.output.figure)
write_table(example_table(ex.id, layer, head, wm, labels, arcs), snakemake.output.table)
log.info("drew head %d-%d (%s) on %s: %s", layer, head, direction, ex.id, " ".join(labels))
