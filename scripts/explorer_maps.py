import json
from pathlib import Path

from analysis.core.storage import Shards
from analysis.scorecard.explorer import example_payload, fit_examples, pick_examples
from analysis.shared.rule_io import setup_logging

log = setup_logging(snakemake)
shards = Shards(snakemake.input.shards)
chosen = pick_examples(list(shards), snakemake.params.n_examples)
payloads = fit_examples([example_payload(e) for e in chosen], snakemake.params.max_mb * 1e6)
h = shards.header
corpus = Path(snakemake.input.shards[0]).parent.name
note = f"{len(payloads)} of {len(shards)} examples of corpus {corpus}"
if len(payloads) < len(chosen):
    note += f" ({len(chosen) - len(payloads)} more of overview.explorer.n_examples left out: max_mb)"
log.info(note)
out = {"n_layers": h["n_layers"], "n_heads": h["n_heads"], "note": note, "examples": payloads}
tmp = Path(snakemake.output.maps).with_name(Path(snakemake.output.maps).name + ".part")
tmp.write_text(json.dumps(out, separators=(",", ":")))
tmp.replace(snakemake.output.maps)
