from analysis.clark.surface.sums import shard_sums, write_sums
from analysis.core.storage import Shard
from analysis.shared.rule_io import start

snakemake, log = start(globals(), __file__, threads=True)
p = snakemake.params
shard = Shard(snakemake.input.shard)
first = sum(len(Shard(j)) for j in snakemake.input.earlier)  # global index of the shard's first segment
js_segments = None if p.js_segments is None else int(p.js_segments)
arrays, meta = shard_sums(shard, first, js_segments, float(p.smoothing_eps), p.segment, int(p.window))
meta.update(
    first_index=first,
    smoothing_eps=float(p.smoothing_eps),
    header={k: shard.header.get(k) for k in ("model", "cls_token", "sep_token", "n_layers", "n_heads")},
    counts=shard.header.get("counts", {}),
    # each segment's own statistics, for the replicate tables (the scorecard's intervals; the segments'
    # articles, meta "articles", are the clusters resampled whole)
    unit_stats=sorted(k for k in arrays if k.startswith("unit.")),
)
write_sums(arrays, meta, snakemake.output.sums, snakemake.output.meta)
log.info(
    "shard %s: %d segments from index %d; %d in the head distances",
    snakemake.wildcards.shard,
    meta["examples"],
    first,
    meta["js_segments"],
)
