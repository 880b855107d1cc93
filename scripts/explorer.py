import json
from pathlib import Path

import pandas as pd

from analysis.scorecard.explorer import explorer_html, head_numbers
from analysis.shared.rule_io import setup_logging

log = setup_logging(snakemake)
maps = json.loads(Path(snakemake.input.maps).read_text())
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
tmp = Path(snakemake.output.page).with_name(Path(snakemake.output.page).name + ".part")
tmp.write_text(page)
tmp.replace(snakemake.output.page)
