from pathlib import Path

import pandas as pd
import torch

from analysis.core.models import load_model, load_tokenizer
from analysis.explanation.attn_classifiers import FrozenTransformer, TrainConfig, read_sst2, train_all
from analysis.shared.rule_io import setup_logging, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
cfg = snakemake.params.cfg
raw_dir = Path(snakemake.input[0]).parent
train, train_counts = read_sst2(raw_dir, "train", cfg["n_train"], cfg["seed"], task=cfg["task"])
dev, dev_counts = read_sst2(raw_dir, "dev", cfg.get("n_dev"), cfg["seed"], task=cfg["task"])
log.info("train %s; dev %s", train_counts, dev_counts)
spec = snakemake.params.spec
tf = FrozenTransformer(load_model(spec), load_tokenizer(spec), snakemake.params.max_len)
tc = TrainConfig(
    epochs=cfg["epochs"],
    batch_size=cfg["batch_size"],
    lr=cfg["lr"],
    seed=cfg["seed"],
    hidden=cfg["hidden"],
    d_att=cfg["attention_dim"],
)
bundle, rows = train_all(train, dev, cfg["encoders"], tc, tf)
bundle.update(spec=spec, max_len=snakemake.params.max_len)
Path(snakemake.output.model).parent.mkdir(parents=True, exist_ok=True)
torch.save(bundle, snakemake.output.model)
df = pd.DataFrame(rows)
df["model"] = spec
df["train_rows_not_used"] = train_counts["not_used"]
df["dev_rows_not_used"] = dev_counts["not_used"]
write_table(df, snakemake.output.table)
