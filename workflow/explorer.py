import json
from pathlib import Path

import pandas as pd

from analysis.overview.explorer import explorer_html, fit_examples, head_numbers
from analysis.shared.rule_io import start, write_text

snakemake, log = start(globals(), __file__)
# every shard's share of the example maps (explorer_maps), in shard order, within max_mb
parts = [json.loads(Path(f).read_text()) for f in snakemake.input.maps]
chosen = [e for part in parts for e in part["examples"]]
examples = fit_examples(chosen, snakemake.params.max_mb * 1e6)
total = sum(part["shard_examples"] for part in parts)
note = f"{len(examples)} of {total} examples of corpus {parts[0]['corpus']}"
if len(examples) < len(chosen):
    note += f" ({len(chosen) - len(examples)} more of overview.explorer.n_examples left out: max_mb)"
maps = {"n_layers": parts[0]["n_layers"], "n_heads": parts[0]["n_heads"], "note": note, "examples": examples}
dep_full = pd.read_csv(snakemake.input.dep_full[0]) if snakemake.input.dep_full else None
heads = head_numbers(
    pd.read_csv(snakemake.input.relative_position),
    pd.read_csv(snakemake.input.special_tokens),
    pd.read_csv(snakemake.input.entropy),
    dep_full,
    snakemake.params.min_count,
)
page = explorer_html(
    snakemake.wildcards.model, maps["n_layers"], maps["n_heads"], maps["examples"], heads, maps["note"]
)
log.info("%s; page %.2f MB", maps["note"], len(page.encode()) / 1e6)
write_text(page, snakemake.output.page)
