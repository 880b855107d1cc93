import pandas as pd

from analysis.overview.compare import (
    best_per_relation,
    coref_systems,
    plot_compare_coref,
    plot_compare_dep_heads,
    plot_compare_entropy,
    plot_compare_probes,
    plot_compare_special_tokens,
    scorecard_matrix,
    stack,
)
from analysis.scorecard.pages import plot_scorecard
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
models = snakemake.params.models


def stacked(panel):
    return stack({m: pd.read_csv(p) for m, p in zip(models, snakemake.input[panel])})


for panel in snakemake.params.panels:
    t = stacked(panel)
    if panel == "special_tokens":
        fig = plot_compare_special_tokens(t)
    elif panel == "entropy":
        fig = plot_compare_entropy(t)
    elif panel == "dep_heads":
        t = best_per_relation(t)
        fig = plot_compare_dep_heads(t, snakemake.params.dep_corpus)
    elif panel == "coref":
        t = coref_systems(t)
        fig = plot_compare_coref(t)
    elif panel == "probes":
        t = t[["model", "probe", "uas", "n_words"]]
        fig = plot_compare_probes(t)
    else:
        t = t[["model", "id", "extension", "verdict", "our_value", "paper_value", "reason"]]
        fig = plot_scorecard(scorecard_matrix(t), "Claims x models (config/claims/)")
    write_table(t, snakemake.output[f"table_{panel}"])
    save_figure(fig, snakemake.output[f"figure_{panel}"])
