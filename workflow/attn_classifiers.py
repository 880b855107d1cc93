from pathlib import Path

import pandas as pd
import torch

from analysis.core.device import device_record, job_device
from analysis.core.models import load_model, load_tokenizer
from analysis.explanation.attn_classifiers import train_all
from analysis.explanation.classifiers import TrainConfig
from analysis.explanation.finetuned_transformer import FinetuneConfig
from analysis.explanation.frozen_transformer import FrozenTransformer
from analysis.explanation.sst2 import read_sst2
from analysis.shared.rule_io import start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
raw_dir = Path(snakemake.input[0]).parent
train, train_counts = read_sst2(
    raw_dir, "train", snakemake.params.n_train, snakemake.params.seed, task=snakemake.params.task
)
dev, dev_counts = read_sst2(raw_dir, "dev", snakemake.params.n_dev, snakemake.params.seed, task=snakemake.params.task)
log.info("train %s; dev %s", train_counts, dev_counts)
device = job_device(snakemake)  # the encoder's; the attention classifiers train on the CPU
tf = FrozenTransformer(
    load_model(snakemake.params.spec, device=device), load_tokenizer(snakemake.params.spec), snakemake.params.max_len
)
tc = TrainConfig(
    epochs=snakemake.params.epochs,
    batch_size=snakemake.params.batch_size,
    lr=snakemake.params.lr,
    seed=snakemake.params.seed,
    hidden=snakemake.params.hidden,
    d_att=snakemake.params.attention_dim,
)
ft_params = snakemake.params.finetuned_transformer  # None unless transformer_finetuned is listed
ft = FinetuneConfig(**ft_params) if ft_params else None
bundle, rows = train_all(train, dev, snakemake.params.encoders, tc, tf, finetune_cfg=ft)
bundle.update(spec=snakemake.params.spec, max_len=snakemake.params.max_len)
Path(snakemake.output.model).parent.mkdir(parents=True, exist_ok=True)
torch.save(bundle, snakemake.output.model)
df = pd.DataFrame(rows)
df["model"] = snakemake.params.spec
df["train_rows_not_used"] = train_counts["not_used"]
df["dev_rows_not_used"] = dev_counts["not_used"]
write_table(df, snakemake.output.table)
write_json(device_record(device), snakemake.output.device)
