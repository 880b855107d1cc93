import json
from pathlib import Path

import pandas as pd
import torch

from analysis.core.device import device_record, job_device
from analysis.core.glue import metrics
from analysis.core.glue.batches import encode
from analysis.core.glue.reader import read_split, select_rows
from analysis.core.glue.tasks import get_task
from analysis.core.model_names import model_slug
from analysis.core.models import load_model, load_tokenizer
from analysis.kovaleva.finetune import training as finetune
from analysis.shared.rule_io import start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
task, spec, s, seed = snakemake.wildcards.task, snakemake.params.spec, snakemake.params.settings, snakemake.params.seed
precision = snakemake.params.precision  # fp32, or bf16 autocast (docs/performance.md)
t = get_task(task)
raw = Path(snakemake.input[0]).parent
tok = load_tokenizer(spec)

train_all, dev_all = read_split(raw, task, "train"), read_split(raw, task, "dev")
train_recs = select_rows(train_all, s["train_examples"], seed)
dev_recs = select_rows(dev_all, s["dev_examples"], seed)
train_items, train_counts = encode(tok, train_recs, s["max_len"])
dev_items, dev_counts = encode(tok, dev_recs, s["max_len"])
log.info("%s: train %s, dev %s (max_len %d)", task, train_counts, dev_counts, s["max_len"])

torch.manual_seed(seed)  # the new head's initialisation
device = job_device(snakemake)
model = load_model(spec, head="classification", num_labels=t.num_labels, device=device)
before = finetune.score(model, task, dev_items, tok.pad_token_id, precision=precision)
log.info("pre-trained model with its untrained head: %s", before)
recipe = finetune.Recipe(
    epochs=s["epochs"],
    lr=s["lr"],
    batch_size=s["batch_size"],
    warmup=s["warmup"],
    weight_decay=s["weight_decay"],
    seed=seed,
    max_steps=s["max_steps"],
    precision=precision,
)
history = finetune.train(model, train_items, tok.pad_token_id, recipe)
gold = [it["label"] for it in dev_items]
pred = metrics.predictions(task, finetune.predict(model, dev_items, tok.pad_token_id, precision=precision))
after = metrics.evaluate(task, pred, gold)
majority = finetune.majority_predictions(task, train_items, len(gold))
log.info("fine-tuned: %s (%d steps, %.0f s)", after, len(history), history[-1]["seconds"])

out = Path(snakemake.output.checkpoint)
model.config.id2label = {i: name for i, name in enumerate(t.labels or ["score"])}
model.config.label2id = {name: i for i, name in model.config.id2label.items()}
model.save_pretrained(out)
tok.save_pretrained(out)
info = {
    "task": task,
    "base_model": spec,
    "model": model_slug(spec),
    "settings": s,
    "seed": seed,
    "precision": precision,
    "train": train_counts,
    "dev": dev_counts,
    "train_rows_total": len(train_all),
    "dev_rows_total": len(dev_all),
    "metrics": t.metrics,
    "finetuned": after,
    "pretrained": before,
    "majority": metrics.evaluate(task, majority, gold),
    "steps": len(history),
    "train_seconds": history[-1]["seconds"],
    **device_record(device),
}
(out / "finetune.json").write_text(json.dumps(info, indent=2) + "\n")
write_json(info, snakemake.output.metrics)
write_table(pd.DataFrame(history), snakemake.output.history)
# per dev row, so that rule finetune_scores can resample the rows (did the model learn its task?)
write_table(pd.DataFrame({"gold": gold, "finetuned": pred, "majority": majority}), snakemake.output.predictions)
