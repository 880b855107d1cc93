from pathlib import Path

from analysis.scorecard.claims import read_claims, scorecard
from analysis.scorecard.evaluate import load_tables, tables_read
from analysis.scorecard.pages import plot_scorecard, scorecard_html, scorecard_markdown, verdict_counts
from analysis.shared.rule_io import save_figure, setup_logging, write_table, write_text

log = setup_logging(snakemake)
model = snakemake.wildcards.model
claims = read_claims(snakemake.input.claims)
# only the declared inputs are read: a table lying around from another run never enters a verdict
declared = {Path(p).name[: -len(".csv")]: Path(p).parent for p in snakemake.input.tables}
tables = {}
for stem in {t for c in claims for t in tables_read(c)} & set(declared):
    tables.update(load_tables([stem], declared[stem]))
card = scorecard(claims, tables, set(snakemake.params.rules_left_out))
log.info("verdicts: %s", verdict_counts(card))
write_table(card, snakemake.output.table)
title = f"Do the papers' claims hold for {model}? ({', '.join(f'{n} {v}' for v, n in verdict_counts(card).items())})"
fig = plot_scorecard(card.set_index("id")[["verdict"]].rename(columns={"verdict": model}), title)
save_figure(fig, snakemake.output.figure)
for path, text in (
    (snakemake.output.page, scorecard_html(card, model)),
    (snakemake.output.markdown, scorecard_markdown(card, model)),
):
    write_text(text, path)
