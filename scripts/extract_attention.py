import torch

from analysis.core.extraction import extract_shard
from analysis.core.inputs import read_jsonl
from analysis.core.models import load_model, load_tokenizer
from analysis.shared.rule_io import setup_logging

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
k, n_shards = int(snakemake.wildcards.shard), snakemake.params.n_shards
records = read_jsonl(snakemake.input[0])[k::n_shards]
counts = extract_shard(
    load_model(snakemake.params.spec),
    load_tokenizer(snakemake.params.spec),
    records,
    snakemake.output[0][: -len(".npy")],
    max_len=snakemake.params.max_len,
    policy=snakemake.params.policy,
    batch_size=snakemake.params.batch_size,
    model_name=snakemake.params.spec,
    segments=snakemake.params.segment_ids,
)
log.info("shard %d/%d of %s: %s", k, n_shards, snakemake.wildcards.corpus, counts)
