import time
from pathlib import Path

from analysis.beyond_papers.plots import plot_rollout_example, plot_rollout_spearman
from analysis.beyond_papers.rollout_compare import token_table
from analysis.beyond_papers.rollout_tables import (
    authors_log,
    paired_table,
    pick_example,
    spearman_table,
    summary_table,
    with_authors_log,
)
from analysis.core.device import device_record, job_device, sync
from analysis.core.glue.batches import encode
from analysis.core.glue.reader import read_split, select_rows
from analysis.core.glue.tasks import get_task
from analysis.core.inputs import seeded_subset
from analysis.core.models import load_model, load_tokenizer
from analysis.shared.rule_io import save_figure, start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
p, out = snakemake.params, snakemake.output
if get_task(p.task).is_regression:
    raise ValueError(f"config beyond_papers.rollout.task: {p.task} is a regression task; the targets need a class")
ckpt = snakemake.input.checkpoint
all_dev = read_split(Path(snakemake.input.raw).parent, p.task, "dev")
records = select_rows(all_dev, p.n_examples, p.seed)
tok = load_tokenizer(ckpt)
items, counts = encode(tok, records, p.max_len)
device = job_device(snakemake)
model = load_model(ckpt, head="classification", device=device)
ids = [it["id"] for it in items]
flow_ids = set(seeded_subset(ids, p.flow_examples, p.seed)) if p.flow_examples != 0 else set()

t0 = time.perf_counter()
targets = tuple(p.targets)
tokens = token_table(model, tok, items, flow_ids, p.residual, p.batch_size, targets, p.protocol)
sync(device)  # the device's queued work, before the clock is read
seconds = time.perf_counter() - t0
per_input = spearman_table(tokens)
boot = p.bootstrap["resamples"], p.bootstrap["seed"]
summary, paired = with_authors_log(
    summary_table(per_input, *boot),
    paired_table(per_input, *boot),
    authors_log(snakemake.input.paper),
    p.task,
    p.protocol,
)
write_table(tokens, out.tokens)
write_table(per_input, out.spearman)
write_table(summary.assign(protocol=p.protocol), out.summary)
write_table(paired.assign(protocol=p.protocol), out.paired)
log.info("Spearman with the importance targets (%s):\n%s", p.protocol, summary.to_string())

example_id = pick_example(tokens, p.example_max_tokens)
example = tokens[(tokens.id == example_id) & (tokens.layer == tokens.layer.max())]
write_table(example, out.example)
model_task = f"{snakemake.wildcards.model} fine-tuned on {p.task}"
title = f"{model_task}: {example_id} (predicted {example.predicted.iloc[0]}, gold {example.label.iloc[0]})"
save_figure(plot_rollout_example(example, list(targets), title), out.fig_example)
rows = "from the [CLS]-like position" if p.protocol == "cls_row" else "max over every row, special tokens in"
# the figure draws the three methods on the inputs they share: flow's subsample when it has one
flow_note = f"the {len(flow_ids)} with flow of {len(items)}" if 0 < len(flow_ids) < len(items) else f"{len(items)}"
title = f"{model_task}: attention ({rows}) vs importance, per layer ({flow_note} dev inputs)"
save_figure(plot_rollout_spearman(summary, title), out.fig_spearman)
info = {
    "task": p.task,
    "dev_rows_total": len(all_dev),
    "inputs": len(items),
    "inputs_with_flow": len(flow_ids),
    "inputs_scored": int(per_input.id.nunique()) if len(per_input) else 0,
    "encoding": counts,
    "residual": p.residual,
    "targets": list(targets),
    "protocol": p.protocol,
    "layers": int(tokens.layer.max()),
    "example": example_id,
    "seconds": round(seconds, 2),
    "threads": snakemake.threads,
    **device_record(device),
}
write_json(info, out.info)
log.info("%s", info)
