from analysis.core.device import device_record, job_device
from analysis.explanation.erasure import run_erasure
from analysis.explanation.plots import plot_erasure_set, plot_erasure_single
from analysis.explanation.replicates import erasure_replicates, instance_weights
from analysis.explanation.setup import rule_classifiers
from analysis.shared.bootstrap import with_resampled
from analysis.shared.rule_io import save_figure, start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
device = job_device(snakemake)
classifiers = rule_classifiers(snakemake, device)
p = snakemake.params
single, sets, summary = run_erasure(classifiers, p.seed, p.random_orders, p.erase_all)
write_table(single, snakemake.output.single)
write_table(sets, snakemake.output.sets)
write_table(summary, snakemake.output.summary)
units, weights = instance_weights(p.bootstrap["resamples"], p.bootstrap["seed"], single, sets)
write_table(with_resampled(erasure_replicates(single, sets, units, weights), len(units)), snakemake.output.boot)
model = snakemake.wildcards.model
fig = plot_erasure_single(single, model)
save_figure(fig, snakemake.output.fig_single)
fig = plot_erasure_set(sets, model)
save_figure(fig, snakemake.output.fig_set)
write_json(device_record(device), snakemake.output.device)
