import pandas as pd

from analysis.clark.probes.plots import plot_probes
from analysis.clark.probes.replicates import uas_replicates
from analysis.clark.probes.tables import selectivity_table, with_paper_uas
from analysis.clark.syntax.heldout import document_clusters
from analysis.shared.bootstrap import cluster_weights, n_clusters, with_resampled
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
p = snakemake.params
# round_trip: the scores are written back exactly as rule probes_train wrote them
scores = pd.read_csv(snakemake.input.scores, float_precision="round_trip", keep_default_na=False, na_values=[""])
curves = pd.read_csv(snakemake.input.curves, float_precision="round_trip")
table = with_paper_uas(scores, p.paper_uas)
write_table(table, snakemake.output.table)
# the scorecard's intervals: every probe's UAS on the same resamples of the dev documents (drawn whole,
# with all their sentences; uas_replicates orders the sentences by id)
sentences = pd.read_csv(snakemake.input.sentences, keep_default_na=False, dtype={"sentence": str})
clusters, unit = document_clusters(sorted(set(sentences["sentence"])))
weights = cluster_weights(clusters, p.bootstrap["resamples"], p.bootstrap["seed"])
log.info("bootstrap: %d %ss of %d dev sentences resampled", len(set(clusters)), unit, len(clusters))
boot = with_resampled(uas_replicates(sentences, weights), n_clusters(clusters))
write_table(boot, snakemake.output.boot)
# beyond the paper: each probe trained on the control task too (clark_probes.control_task), its selectivity
write_table(selectivity_table(table), snakemake.output.selectivity)
write_table(
    with_resampled(selectivity_table(boot, by=("replicate",)), n_clusters(clusters)), snakemake.output.selectivity_boot
)
n_train, n_dev = int(table.train_sentences.iloc[0]), int(table.dev_sentences.iloc[0])
fig = plot_probes(table, curves, p.spec, p.dev_name, n_train, n_dev)
save_figure(fig, snakemake.output.figure)
