import pandas as pd

from analysis.clark.dep_heads import example_map, pick_example, plot_example
from analysis.core.storage import Shards
from analysis.shared.plots import close, paper_style
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
p = snakemake.params
shards = Shards(snakemake.input.shards)
t = pd.read_csv(snakemake.input.table)
rows = t[(t["relation"] == p.relation) & (t["direction"] == p.direction)]
if rows.empty:
    raise ValueError(
        f"{snakemake.input.table}: no row for relation {p.relation!r} (below min_count, or unlabeled corpus?)"
    )
row = rows.iloc[0]
layer, head, direction = int(row["layer"]), int(row["head"]), row["direction"]
ex = pick_example(
    shards, p.relation, p.sentence, max_words=p.max_words, head=(layer, head), direction=direction, how=p.how
)
wm, labels, unit_word = example_map(ex, layer, head, p.how)
paper_style()
model = shards.header["model"]
title = (
    f"{model}: head {layer}-{head}\nbest {p.relation} head ({direction}, accuracy {row['accuracy']:.2f})\n"
    f"sentence {ex.id}; boxes: gold arcs, {p.relation} in red"
)
fig, arcs = plot_example(wm, labels, unit_word, ex.meta["heads"], ex.meta["rels"], p.relation, direction, title)
save_figure(fig, snakemake.output.figure)
close(fig)
gold = {(r, c): rel for r, c, rel in arcs}
out = pd.DataFrame(
    [
        {
            "sentence": ex.id,
            "layer": layer,
            "head": head,
            "from_index": i,
            "to_index": j,
            "from_word": labels[i],
            "to_word": labels[j],
            "attention": float(wm[i, j]),
            "gold_arc": gold.get((i, j), ""),
        }
        for i in range(len(labels))
        for j in range(len(labels))
    ]
)
write_table(out, snakemake.output.maps)
log.info("drew head %d-%d (%s) on %s: %s", layer, head, direction, ex.id, " ".join(labels))
