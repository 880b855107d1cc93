import pandas as pd
import torch

from analysis.explanation.attn_classifiers import load_explainers, load_for_tests
from analysis.explanation.faithfulness import erasure_tables, pooled_instances, set_summary, single_summary
from analysis.explanation.plots import plot_set_erasure, plot_single_erasure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
cfg = snakemake.params.cfg
bundle, dev, tf = load_for_tests(
    snakemake.input.model, snakemake.input.glue, snakemake.params.spec, cfg["task"], cfg["n_explain"]
)
single, sets = [], []
for enc, ex in load_explainers(bundle, tf).items():
    s, e, skipped = erasure_tables(pooled_instances(ex, dev, cfg["n_explain"]), ex, cfg["seed"])
    log.info("%s: %d instances, %d skipped (fewer than 2 items)", enc, len(s), skipped)
    single += [{"encoder": enc, **r} for r in s]
    sets += [{"encoder": enc, "skipped_lt2_items": skipped, **r} for r in e]
single, sets = pd.DataFrame(single), pd.DataFrame(sets)
write_table(single, snakemake.output.single)
write_table(sets, snakemake.output.sets)
summary = single_summary(single).merge(set_summary(sets), on="encoder", suffixes=("", "_set"))
write_table(summary, snakemake.output.summary)
model = snakemake.wildcards.model
save_figure(plot_single_erasure(single, model), snakemake.output.fig_single)
save_figure(plot_set_erasure(sets, model), snakemake.output.fig_set)
