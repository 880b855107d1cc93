import json
from pathlib import Path

from analysis.core.storage import Shard
from analysis.overview.explorer import example_payload, pick_from_shard, shard_share
from analysis.shared.rule_io import start, write_text

snakemake, log = start(globals(), __file__)
p = snakemake.params
shard = Shard(snakemake.input.shard)
k = int(snakemake.wildcards.shard)
chosen = pick_from_shard(shard, shard_share(p.n_examples, p.n_shards, k))
out = {
    "n_layers": shard.n_layers,
    "n_heads": shard.n_heads,
    "corpus": Path(snakemake.input.shard).parent.name,
    "shard_examples": len(shard),
    "examples": [example_payload(e) for e in chosen],
}
log.info("shard %d: %d of %d examples", k, len(chosen), len(shard))
write_text(json.dumps(out, separators=(",", ":")), snakemake.output.maps)
