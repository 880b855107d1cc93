from pathlib import Path

import pandas as pd
import torch

from analysis.explanation.sst2 import read_sst2
from analysis.explanation.staying_true.models import StayingTrueConfig, kept_replicates, kept_table, train_variants
from analysis.shared.rule_io import start, write_table

snakemake, log = start(globals(), __file__, threads=True)
p = snakemake.params
raw_dir = Path(snakemake.input[0]).parent
# the explanation rules' SST-2 subset (same task, size and seed as attn_classifiers)
train, train_counts = read_sst2(raw_dir, "train", p.n_train, p.seed, task=p.task)
dev, dev_counts = read_sst2(raw_dir, "dev", p.n_dev, p.seed, task=p.task)
log.info("train %s; dev %s", train_counts, dev_counts)
cfg = StayingTrueConfig(
    epochs=p.epochs,
    batch_size=p.batch_size,
    lr=p.lr,
    seed=p.seed,
    hidden=p.hidden,
    d_att=p.attention_dim,
    tying_weight=p.tying_weight,
    tying_detach_embeddings=p.tying_detach_embeddings,
    mlm_weight=p.mlm_weight,
    mlm_mask_prob=p.mlm_mask_prob,
)
bundle, rows = train_variants(p.models, train, dev, cfg)
out = Path(snakemake.output.model)
out.parent.mkdir(parents=True, exist_ok=True)
tmp = out.with_suffix(".tmp")
torch.save(bundle, tmp)
tmp.replace(out)
write_table(pd.DataFrame(rows), snakemake.output.table)
# accuracy kept: each regularised model minus the base model on the same (resampled) dev sentences
correct = {m: c.numpy() for m, c in bundle["dev_correct"].items()}
kept = kept_table(correct)
write_table(kept, snakemake.output.kept)
write_table(kept_replicates(correct, p.bootstrap["resamples"], p.bootstrap["seed"]), snakemake.output.kept_boot)
log.info("accuracy kept (minus the base model's):\n%s", kept.to_string())
