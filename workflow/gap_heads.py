import json

from analysis.clark.coref.gap_heads import score
from analysis.clark.coref.plots import plot_gap_heads
from analysis.core.storage import Shards
from analysis.shared.rule_io import save_figure, start, write_json, write_table

snakemake, log = start(globals(), __file__)
shards = Shards(snakemake.input.shards)
tally, counts = score(shards, shards.n_layers, shards.n_heads, how=snakemake.params.how)
per_head = tally.per_head_table()
summary = tally.summary_table()
write_table(per_head, snakemake.output.per_head)
write_table(summary, snakemake.output.table)
reader_counts = json.loads(open(snakemake.input.counts).read())
write_json(
    {"corpus": snakemake.params.corpus, "reader": reader_counts, "scoring": counts, "extraction": shards.counts()},
    snakemake.output.counts,
)
log.info("reader counts: %s; scoring counts: %s", reader_counts, counts)
log.info("summary:\n%s", summary.to_string())
fig = plot_gap_heads(per_head, summary, shards.header["model"], counts["examples"])
save_figure(fig, snakemake.output.figure)
