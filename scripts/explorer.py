from pathlib import Path

import pandas as pd

from analysis.core.storage import Shards
from analysis.scorecard.explorer import example_payload, explorer_html, fit_examples, head_numbers, pick_examples
from analysis.shared.rule_io import setup_logging

log = setup_logging(snakemake)
shards = Shards(snakemake.input.shards)
chosen = pick_examples(list(shards), snakemake.params.n_examples)
dep_full = pd.read_csv(snakemake.input.dep_full[0]) if snakemake.input.dep_full else None
heads = head_numbers(
    pd.read_csv(snakemake.input.relative_position),
    pd.read_csv(snakemake.input.special_tokens),
    pd.read_csv(snakemake.input.entropy),
    dep_full,
    snakemake.params.min_count,
)
payloads = fit_examples([example_payload(e) for e in chosen], snakemake.params.max_mb * 1e6)
h = shards.header
corpus = Path(snakemake.input.shards[0]).parent.name
note = f"{len(payloads)} of {len(shards)} examples of corpus {corpus}"
if len(payloads) < len(chosen):
    note += f" ({len(chosen) - len(payloads)} more of overview.explorer.n_examples left out: max_mb)"
page = explorer_html(snakemake.wildcards.model, h["n_layers"], h["n_heads"], payloads, heads, note)
log.info("%s; page %.2f MB", note, len(page.encode()) / 1e6)
tmp = Path(snakemake.output.page).with_name(Path(snakemake.output.page).name + ".part")
tmp.write_text(page)
tmp.replace(snakemake.output.page)
