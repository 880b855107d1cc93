from pathlib import Path

import pandas as pd

from analysis.core.storage import Shards
from analysis.scorecard.explorer import example_payload, explorer_html, head_numbers, pick_examples
from analysis.shared.rule_io import setup_logging

log = setup_logging(snakemake)
shards = Shards(snakemake.input.shards)
examples = pick_examples(list(shards), snakemake.params.n_examples)
dep_full = pd.read_csv(snakemake.input.dep_full[0]) if snakemake.input.dep_full else None
heads = head_numbers(
    pd.read_csv(snakemake.input.relative_position),
    pd.read_csv(snakemake.input.special_tokens),
    pd.read_csv(snakemake.input.entropy),
    dep_full,
    snakemake.params.min_count,
)
h = shards.header
note = f"{len(examples)} of {len(shards)} examples of corpus {Path(snakemake.input.shards[0]).parent.name}"
page = explorer_html(
    snakemake.wildcards.model, h["n_layers"], h["n_heads"], [example_payload(e) for e in examples], heads, note
)
size_mb = len(page.encode()) / 1e6
log.info("%s; page %.2f MB", note, size_mb)
if size_mb > snakemake.params.max_mb:
    raise ValueError(
        f"explorer page {size_mb:.1f} MB > overview.explorer.max_mb = {snakemake.params.max_mb}: "
        "lower overview.explorer.n_examples (config/config.yaml)"
    )
tmp = Path(snakemake.output.page).with_name(Path(snakemake.output.page).name + ".part")
tmp.write_text(page)
tmp.replace(snakemake.output.page)
