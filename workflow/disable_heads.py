import json

import pandas as pd

from analysis.kovaleva.finetune.plots import plot_disable_heads
from analysis.kovaleva.finetune.tables import (
    disable_heads_cost,
    disable_heads_summary,
    disable_heads_table,
    main_metric_rows,
)
from analysis.kovaleva.replicates import layer_change_replicates, load_layer_predictions, resample_rows
from analysis.shared.bootstrap import RESAMPLED, with_resampled
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
tasks, model = snakemake.params.tasks, snakemake.wildcards.model
table = disable_heads_table([pd.read_csv(p) for p in snakemake.input.scores])
write_table(table, snakemake.output.table)
# replicate table: each whole layer's change on resampled dev examples (paired: both models on the same rows)
p, boots = snakemake.params, []
for task, path in zip(tasks, snakemake.input.layer_predictions):
    preds = load_layer_predictions(path)
    if preds["task"] != task:
        raise ValueError(f"{path} holds the predictions of {preds['task']}, not {task}")
    idx = resample_rows(len(preds["gold"]), p.bootstrap["resamples"], p.bootstrap["seed"], task)
    metric_names = list(table.loc[table.task == task, "metric"].unique())
    change = layer_change_replicates(metric_names, preds["gold"], preds["unmodified"], preds["layers"], idx)
    boots.append(with_resampled(change.assign(task=task), len(preds["gold"])))
boot = pd.concat(boots, ignore_index=True)
write_table(boot[["task", "metric", "scope", "layer", "change", "replicate", RESAMPLED]], snakemake.output.boot)
write_table(pd.concat([pd.read_csv(p) for p in snakemake.input.max_test], ignore_index=True), snakemake.output.max_test)
write_table(pd.concat([pd.read_csv(p) for p in snakemake.input.confirm], ignore_index=True), snakemake.output.confirm)
cost = disable_heads_cost([json.load(open(p)) for p in snakemake.input.cost])
write_table(cost, snakemake.output.cost)
log.info("cost:\n%s", cost.to_string())

main = main_metric_rows(table)
for task in tasks:
    log.info("%s", disable_heads_summary(main[main.task == task]))
fig = plot_disable_heads(main, tasks, model)
save_figure(fig, snakemake.output.figure)
