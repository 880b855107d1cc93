from dataclasses import replace

from analysis.scorecard.calibrated_tails import read_calibrated_tails
from analysis.scorecard.claims import read_claims, scorecard_and_values
from analysis.scorecard.control_reference import read_control_reference
from analysis.scorecard.counts import headline
from analysis.scorecard.evaluate import load_table
from analysis.scorecard.pages import plot_scorecard, scorecard_html, scorecard_markdown, value_notes
from analysis.scorecard.run import Run
from analysis.scorecard.seed_reference import read_seed_reference
from analysis.scorecard.trainings import pool_trainings
from analysis.shared.rule_io import save_figure, start, write_table, write_text

snakemake, log = start(globals(), __file__)
model = snakemake.wildcards.model
claims = read_claims(snakemake.input.claims, snakemake.params.registry)
not_selected = frozenset(snakemake.params.rules_left_out)


def read_run(run: dict) -> Run:
    """The tables and replicate tables by stem of one run (stem -> {table, boot} paths, params runs):
    only the declared inputs are read, so a table lying around from another run never enters a verdict."""
    tables = {stem: load_table(paths["table"]) for stem, paths in run.items()}
    boots = {stem: load_table(paths["boot"]) for stem, paths in run.items() if paths["boot"]}
    return Run(tables, boots, not_selected=not_selected)


def read_reference(kind: str, read, path, absent: str):
    """A reference file read (None where absent), and what was read logged."""
    ref = read(path)
    log.info("%s reference: %s", kind, f"{ref.path} ({ref.source})" if ref else f"{path} absent: {absent}")
    return ref


runs = snakemake.params.runs
# the model's own run, then its training runs (config trainings): each seed judged alone, combined
own = pool_trainings(
    [read_run(runs["model"])] + [read_run(r) for name, r in runs.items() if name.startswith("training-")]
)
# the seed reference a one-seed claim is widened by (overview.seed_reference; no file: none)
reference = read_reference("seed", read_seed_reference, snakemake.params.seed_reference, "no verdict widened")
# the control reference a one-draw control is read with (overview.control_reference; no file: none)
control_reference = read_reference(
    "control", read_control_reference, snakemake.params.control_reference, "no spread test on one draw"
)
# the calibrated tails the model's claims are read at (overview.calibrated_tails; no file: 2.5% a side)
tails = read_reference("calibrated tails", read_calibrated_tails, snakemake.params.calibrated_tails, "nominal levels")
own = replace(own, reference=reference, control_reference=control_reference, calibrated_tails=tails)
# the random-init control's runs (overview.random_init_control), for the claims that read maps: its
# first draw, then its further draws (random_init.draws: control-2, ...)
controls = [read_run(runs["control"])] if "control" in runs else []
controls += [read_run(r) for name, r in runs.items() if name.startswith("control-")]
card, values, terms = scorecard_and_values(claims, own, controls)
log.info("verdicts: %s", headline(card))
write_table(card, snakemake.output.table)
# the numbers of our_value as numbers, and every claim's named numbers, for tools/docs/scorecard_readme.py
# (no number is parsed out of text)
write_table(values, snakemake.output.values, float_format=None)  # every digit
write_table(terms, snakemake.output.terms, float_format=None)
# the paper claims' counts, then the extensions' on a line of their own
title = f"Do the papers' claims hold for {model}?\n" + headline(card, zeros=True, sep="\n")
columns = {"verdict": model, **({"control_verdict": "random-init control"} if controls else {})}
fig = plot_scorecard(
    card.set_index("id")[list(columns)].rename(columns=columns), title, value_notes(card), card["id"][card["extension"]]
)
save_figure(fig, snakemake.output.figure)
for path, text in (
    (snakemake.output.page, scorecard_html(card, model)),
    (snakemake.output.markdown, scorecard_markdown(card, model)),
):
    write_text(text, path)
