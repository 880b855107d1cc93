from analysis.core.device import job_device
from analysis.explanation.plots import plot_rank_agreement
from analysis.explanation.rank_agreement import run_rank_agreement
from analysis.explanation.replicates import RANK_AGREEMENT
from analysis.explanation.setup import rule_classifiers, write_median_test
from analysis.shared.rule_io import save_figure, start

snakemake, log = start(globals(), __file__, threads=True)
device = job_device(snakemake)
df = run_rank_agreement(rule_classifiers(snakemake, device))
write_median_test(snakemake, df, RANK_AGREEMENT, device)
save_figure(plot_rank_agreement(df, snakemake.wildcards.model), snakemake.output.figure)
