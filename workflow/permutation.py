from analysis.core.device import job_device
from analysis.explanation.permutation import run_permutation
from analysis.explanation.plots import plot_permutation
from analysis.explanation.replicates import PERMUTATION
from analysis.explanation.setup import rule_classifiers, write_median_test
from analysis.shared.rule_io import save_figure, start

snakemake, log = start(globals(), __file__, threads=True)
device = job_device(snakemake)
df = run_permutation(rule_classifiers(snakemake, device), snakemake.params.n_permutations, snakemake.params.seed)
write_median_test(snakemake, df, PERMUTATION, device)
save_figure(plot_permutation(df, snakemake.wildcards.model), snakemake.output.figure)
