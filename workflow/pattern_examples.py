import pandas as pd

from analysis.core.storage import Shards
from analysis.kovaleva.patterns.features import CLASSES
from analysis.kovaleva.patterns.labels import with_provenance
from analysis.kovaleva.patterns.plots import plot_pattern_examples
from analysis.kovaleva.patterns.shares import most_confident
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
p = snakemake.params
pred = pd.read_csv(snakemake.input.predictions)
pick = with_provenance(most_confident(pred[pred["variant"] == "pretrained"], p.min_tokens), p.labelled_model, p.spec)
paths = dict(zip(p.tasks, snakemake.input.pretrained))
maps = []
for _, row in pick.iterrows():
    ex = next(e for e in Shards([paths[row["task"]]]) if e.id == row["input_id"])
    maps.append((ex.head_map(int(row["layer"]), int(row["head"])), ex.kinds, ex.seq_ids))
fig = plot_pattern_examples(pick, maps, p.spec.split(":")[-1])
save_figure(fig, snakemake.output.figure)
keep = ["labels_from", "extrapolated", "label", "task", "input_id", "layer", "head", "n_tokens"] + [
    f"p_{c}" for c in CLASSES
]
write_table(pick[keep], snakemake.output.table)
