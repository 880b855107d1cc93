from analysis.core.device import job_device
from analysis.explanation.adversarial import AdversarySearch, run_adversarial
from analysis.explanation.plots import plot_adversarial
from analysis.explanation.replicates import ADVERSARIAL
from analysis.explanation.setup import rule_classifiers, write_median_test
from analysis.shared.rule_io import save_figure, start

snakemake, log = start(globals(), __file__, threads=True)
device = job_device(snakemake)
search = snakemake.params.search
search = AdversarySearch(**{**search, "report_tolerances": tuple(search["report_tolerances"])})
df = run_adversarial(rule_classifiers(snakemake, device), search, snakemake.params.seed)
write_median_test(snakemake, df, ADVERSARIAL, device)
save_figure(plot_adversarial(df, snakemake.wildcards.model, search), snakemake.output.figure)
