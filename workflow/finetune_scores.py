import json

import pandas as pd

from analysis.kovaleva.finetune.plots import plot_finetune_scores
from analysis.kovaleva.finetune.tables import score_intervals, scores_table
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
infos = [json.load(open(path)) for path in snakemake.input.metrics]
intervals = []
for info, path in zip(infos, snakemake.input.predictions):
    rows = pd.read_csv(path)
    intervals.append(
        score_intervals(
            info["task"], rows.finetuned, rows.majority, rows.gold, snakemake.params.resamples, snakemake.params.seed
        )
    )
t = scores_table(infos, intervals)
write_table(t, snakemake.output.table)
log.info("\n%s", t.to_string())

fig = plot_finetune_scores(t, snakemake.wildcards.model)
save_figure(fig, snakemake.output.figure)
