from analysis.core.device import device_record, job_device
from analysis.explanation.permutation import run_permutation
from analysis.explanation.plots import plot_permutation
from analysis.explanation.replicates import PERMUTATION, instance_weights, median_replicates
from analysis.explanation.setup import rule_classifiers
from analysis.shared.bootstrap import with_resampled
from analysis.shared.rule_io import save_figure, start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
device = job_device(snakemake)
classifiers = rule_classifiers(snakemake, device)
df = run_permutation(classifiers, snakemake.params.n_permutations, snakemake.params.seed)
write_table(df, snakemake.output.table)
units, weights = instance_weights(snakemake.params.bootstrap["resamples"], snakemake.params.bootstrap["seed"], df)
write_table(with_resampled(median_replicates(df, *PERMUTATION, units, weights), len(units)), snakemake.output.boot)
fig = plot_permutation(df, snakemake.wildcards.model)
save_figure(fig, snakemake.output.figure)
write_json(device_record(device), snakemake.output.device)
