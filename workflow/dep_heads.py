import pandas as pd

from analysis.clark.syntax.heldout import heldout_table, sentence_clusters, two_folds, with_heldout
from analysis.clark.syntax.plots import plot_dep_heads, plot_dep_heads_grid
from analysis.clark.syntax.replicates import table1_replicates
from analysis.clark.syntax.scorer import score_examples
from analysis.clark.syntax.selected import (
    check_choice,
    selected_replicates,
    selected_table,
    selection,
    selection_counts,
    with_selected,
)
from analysis.clark.syntax.tables import baselines, grid_table, paper_table, table1, tidy
from analysis.clark.syntax.units import save_tallies
from analysis.core.storage import Shards
from analysis.shared.bootstrap import cluster_weights, n_clusters, with_resampled
from analysis.shared.rule_io import save_figure, start, write_json, write_table

snakemake, log = start(globals(), __file__)
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

# the independent unit (documents; sentences where the corpus is one document) and its two halves
clusters, unit = sentence_clusters(sc)
folds = two_folds(clusters, p.bootstrap["seed"])
counts.update(
    bootstrap_unit=unit,
    bootstrap_clusters=len(set(clusters)),
    heldout_halves=[len({c for c, f in zip(clusters, folds) if f == h}) for h in (0, 1)],
)
full = pd.DataFrame(tidy(sc))
main, rare = table1(sc, paper_table(snakemake.input.paper), min_count=p.min_count, counts=counts)
# beside the in-sample best head and offset: both chosen on one half of the documents, scored on the other
heldout = heldout_table(sc, folds)
main, rare = with_heldout(main, heldout), with_heldout(rare, heldout)
# beside both: head, offset and directions chosen on another corpus (clark_syntax.select_on), scored here
choice = None
if p.select_on:
    where = (snakemake.input.select_full, snakemake.input.select_baselines)
    choice = selection(pd.read_csv(where[0]), pd.read_csv(where[1]), p.select_on, where)
    check_choice(choice, sc, where[0])
    counts["selection"] = selection_counts(sc, choice, p.select_on)
    chosen = selected_table(sc, choice)
    main, rare = with_selected(main, chosen), with_selected(rare, chosen)
write_table(full, snakemake.output.full)
write_table(pd.DataFrame(baselines(sc)), snakemake.output.baselines)
write_table(main, snakemake.output.table)
# the scorecard's intervals: Table 1's relations on resamples of the scored documents (drawn whole)
weights = cluster_weights(clusters, p.bootstrap["resamples"], p.bootstrap["seed"])
boot = table1_replicates(sc, list(dict.fromkeys(main["relation"])), weights, folds)
if choice is not None:  # the same choice on every resample of the scored documents (never chosen again)
    boot = with_selected(boot, selected_replicates(sc, choice, weights), on=("replicate", "relation"))
write_table(with_resampled(boot, n_clusters(clusters)), snakemake.output.boot)
# what the replicates are sums of: for the calibration on the run's own documents (tools/measure/own_calibration.py)
save_tallies(sc, clusters, snakemake.output.units)
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
if choice is not None:
    log.info("chosen on %s: %s", p.select_on, {k: v for k, v in counts["selection"].items() if k != "corpus"})
log.info("best heads:\n%s", main[main["best_direction"]].to_string())
