import torch

from analysis.extraction import extract_shard
from analysis.inputs import read_jsonl
from analysis.models import load_model, load_tokenizer
from analysis.rule_io import setup_logging

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
)
log.info("shard %d/%d of %s: %s", k, n_shards, snakemake.wildcards.corpus, counts)
