import time
from pathlib import Path

import torch

from analysis.beyond.head_gates import head_importance, importance_table
from analysis.core import glue
from analysis.core.models import load_model, load_tokenizer
from analysis.kovaleva import finetune
from analysis.shared.rule_io import setup_logging, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
task, p = snakemake.wildcards.task, snakemake.params
ckpt = snakemake.input.checkpoint
all_dev = glue.read_split(Path(snakemake.input.raw).parent, task, "dev")
records = glue.select_rows(all_dev, p.n_examples, p.seed)
tok = load_tokenizer(ckpt)
items, counts = finetune.encode(tok, records, p.max_len)
model = load_model(ckpt, head="classification")
device = next(model.parameters()).device
batches = [
    finetune.collate([items[i] for i in idx], tok.pad_token_id, device)
    for idx in finetune.eval_batches(items, p.batch_size)
]
t0 = time.perf_counter()
abs_mean, signed_mean = head_importance(model, batches)
table = importance_table(task, abs_mean, signed_mean, len(items)).assign(
    seconds=time.perf_counter() - t0, truncated=counts["truncated"], dev_rows_total=len(all_dev)
)
write_table(table, snakemake.output[0])
log.info(
    "%s: %d examples, %.1f s\n%s", task, len(items), table.seconds.iloc[0], table.nlargest(5, "importance").to_string()
)
