from pathlib import Path

from analysis.scorecard.claims import read_claims, scorecard
from analysis.scorecard.evaluate import load_tables, tables_read
from analysis.scorecard.pages import plot_scorecard, scorecard_html, scorecard_markdown, value_notes, verdict_counts
from analysis.scorecard.trainings import pool_trainings
from analysis.shared.rule_io import save_figure, setup_logging, write_table, write_text

if "snakemake" not in globals():  # run by hand, to debug: python workflow/<rule>.py key=value ...
    from analysis.shared.rule_io import mock_snakemake

    snakemake = mock_snakemake(__file__)


log = setup_logging(snakemake)
model = snakemake.wildcards.model
claims = read_claims(snakemake.input.claims)
# only the declared inputs are read: a table lying around from another run never enters a verdict
stems = {t for c in claims for t in tables_read(c)}


def declared_tables(paths, suffix="") -> dict:
    """The tables (``suffix=".boot"``: their replicate tables) among ``paths``, by stem."""
    declared = {Path(p).name[: -len(f"{suffix}.csv")]: Path(p).parent for p in paths if p.endswith(f"{suffix}.csv")}
    tables = {}
    for stem in stems & set(declared):
        tables.update(load_tables([stem], declared[stem], suffix))
    return tables


def by_directory(paths) -> list[list[str]]:
    """``paths`` grouped by their directory (one training replicate each), in order."""
    groups = {}
    for p in paths:
        groups.setdefault(Path(p).parent, []).append(p)
    return list(groups.values())


# the model's own run, then its training replicates (config replicates): pooled into the intervals
runs = [
    (declared_tables(paths), declared_tables(paths, ".boot"))
    for paths in [snakemake.input.tables, *by_directory(snakemake.input.replicate_tables)]
]
boots, seeds = pool_trainings(runs)
# the random-init control's tables (overview.random_init_control), for the claims that read maps
control = declared_tables(snakemake.input.control_tables) if snakemake.input.control_tables else None
control_boots = declared_tables(snakemake.input.control_tables, ".boot") if control is not None else None
card = scorecard(
    claims,
    runs[0][0],
    set(snakemake.params.rules_left_out),
    control,
    boots,
    control_boots,
    seeds,
)
log.info("verdicts: %s", verdict_counts(card))
write_table(card, snakemake.output.table)
title = f"Do the papers' claims hold for {model}? ({', '.join(f'{n} {v}' for v, n in verdict_counts(card).items())})"
columns = {"verdict": model, **({"control_verdict": "random-init control"} if control is not None else {})}
fig = plot_scorecard(card.set_index("id")[list(columns)].rename(columns=columns), title, value_notes(card))
save_figure(fig, snakemake.output.figure)
for path, text in (
    (snakemake.output.page, scorecard_html(card, model)),
    (snakemake.output.markdown, scorecard_markdown(card, model)),
):
    write_text(text, path)
