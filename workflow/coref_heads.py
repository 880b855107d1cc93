import json

from analysis.clark.coref.heads import population_label, read_paper_numbers, score
from analysis.clark.coref.plots import plot_coref_heads
from analysis.core.storage import Shards
from analysis.shared.bootstrap import unit_weights, with_resampled
from analysis.shared.rule_io import save_figure, start, write_json, write_table

snakemake, log = start(globals(), __file__)
shards = Shards(snakemake.input.shards)
tally, counts = score(
    shards,
    shards.n_layers,
    shards.n_heads,
    how=snakemake.params.how,
    same_head_fallback=snakemake.params.same_head_fallback,
)
reader_counts = json.loads(open(snakemake.input.counts).read())
per_head = tally.per_head_table()
summary = tally.summary_table(read_paper_numbers(snakemake.input.paper))
write_table(per_head, snakemake.output.per_head)
write_table(summary, snakemake.output.table)
# the scorecard's intervals: the summary on resamples of the documents (few: the scorecard widens them)
boot = snakemake.params.bootstrap
n_docs = len(tally.by_unit)
write_table(
    with_resampled(tally.replicate_summary(unit_weights(n_docs, boot["resamples"], boot["seed"])), n_docs),
    snakemake.output.boot,
)
# what the replicates are sums of: for the calibration on the run's own documents (tools/measure/own_calibration.py)
tally.save_units(snakemake.output.units)
population = population_label(reader_counts)
write_json(
    {
        "corpus": snakemake.params.corpus,
        "population": population,
        "same_head_fallback": snakemake.params.same_head_fallback,
        "reader": reader_counts,
        "scoring": counts,
        "extraction": shards.counts(),
    },
    snakemake.output.counts,
)
log.info("population: %s", population)
log.info("reader counts: %s", reader_counts)
log.info("scoring counts: %s", counts)
log.info("summary:\n%s", summary.to_string())
fig = plot_coref_heads(per_head, summary, shards.header["model"], population)
save_figure(fig, snakemake.output.figure)
