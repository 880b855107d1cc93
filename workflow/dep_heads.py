import pandas as pd

from analysis.clark.syntax.plots import plot_dep_heads, plot_dep_heads_grid
from analysis.clark.syntax.replicates import table1_replicates
from analysis.clark.syntax.scorer import score_examples
from analysis.clark.syntax.tables import baselines, grid_table, paper_table, table1, tidy
from analysis.core.storage import Shards
from analysis.shared.bootstrap import unit_weights
from analysis.shared.rule_io import save_figure, setup_logging, write_json, write_table

if "snakemake" not in globals():  # run by hand, to debug: python workflow/<rule>.py key=value ...
    from analysis.shared.rule_io import mock_snakemake

    snakemake = mock_snakemake(__file__)


log = setup_logging(snakemake)
p = snakemake.params
shards = Shards(snakemake.input.shards)
model, corpus = shards.header["model"], snakemake.wildcards.corpus
sc = score_examples(
    shards,
    shards.n_layers,
    shards.n_heads,
    max_offset=p.max_offset,
    how=p.how,
    reverse=p.reverse_mode,
    poss_clitics=p.poss_clitics,
)
counts = sc.finish_counts()
counts["extraction"] = shards.counts()
counts.update(
    how=p.how,
    reverse=p.reverse_mode,
    max_offset=p.max_offset,
    poss_clitics=list(p.poss_clitics),
    min_count=p.min_count,
    corpus=corpus,
    model=model,
)
if not sc.n:
    raise ValueError(f"{corpus}: no arc could be scored ({counts})")

full = pd.DataFrame(tidy(sc))
main, rare = table1(sc, paper_table(snakemake.input.paper), min_count=p.min_count, counts=counts)
write_table(full, snakemake.output.full)
write_table(pd.DataFrame(baselines(sc)), snakemake.output.baselines)
write_table(main, snakemake.output.table)
# the scorecard's intervals: Table 1's relations on resamples of the scored sentences
weights = unit_weights(len(sc.by_sentence), p.bootstrap["resamples"], p.bootstrap["seed"])
write_table(table1_replicates(sc, list(dict.fromkeys(main["relation"])), weights), snakemake.output.boot)
write_table(rare, snakemake.output.rare)
write_json(counts, snakemake.output.counts)

fig = plot_dep_heads(main, model, corpus)
save_figure(fig, snakemake.output.figure)
cells = grid_table(full, main, p.relations)
write_table(cells, snakemake.output.grid_table)
fig = plot_dep_heads_grid(cells, model, corpus, shards.n_layers, shards.n_heads)
save_figure(fig, snakemake.output.grid)
log.info("%s: %s", corpus, {k: v for k, v in counts.items() if k != "arcs_lost_by_relation"})
log.info("arcs lost by relation: %s", counts["arcs_lost_by_relation"])
log.info("best heads:\n%s", main[main["best_direction"]].to_string())
