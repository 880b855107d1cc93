import json

import matplotlib.pyplot as plt
import pandas as pd
import torch

from analysis.clark import gradient_importance as gi
from analysis.clark import mlm_head as mh
from analysis.core.extraction import encode_records
from analysis.core.inputs import read_jsonl, seeded_subset
from analysis.core.models import load_tokenizer
from analysis.shared.rule_io import save_figure, setup_logging, write_json, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
cfg, spec = snakemake.params.cfg, snakemake.params.spec
tok = load_tokenizer(spec)
model, info = mh.load_mlm(spec)
head_info = json.loads(open(snakemake.input.head_info).read())
if info["pretrained_head"] != head_info["pretrained_head"]:
    raise RuntimeError(
        f"{snakemake.input.head_info} disagrees with the checkpoint about its masked-LM head; rerun mlm_head"
    )
if not info["pretrained_head"]:
    state = torch.load(snakemake.input.head, map_location="cpu")
    missing, unexpected = mh.head_module(model).load_state_dict(state, strict=False)
    shared = {p.data_ptr() for p in model.base_model.parameters()}
    missing = [k for k in missing if mh.head_module(model).get_parameter(k).data_ptr() not in shared]
    if missing or unexpected:
        raise RuntimeError(
            f"{snakemake.input.head}: head state does not fit (missing {missing}, unexpected {unexpected})"
        )
held = pd.read_csv(snakemake.input.head_table)
held = held[(held.split == "held-out") & (held["head"] != "initial (unigram bias)")].iloc[-1]
head_used = f"{head_info['head_source']}; held-out MLM loss {held.loss:.2f}, accuracy {100 * held.accuracy:.1f}%"
log.info("masked-LM head: %s", head_used)

records = read_jsonl(snakemake.input.records)
items, enc_counts = encode_records(tok, records, snakemake.params.max_len, snakemake.params.policy)
# a seeded sample over the whole corpus (the inputs are in article order), kept in order
used = seeded_subset(items, cfg.get("n_segments"), int(cfg.get("seed", 0)))
per_layer, per_head, counts = gi.accumulate(
    model,
    tok,
    used,
    seed=int(cfg.get("seed", 0)),
    prob=float(cfg.get("mask_prob", 0.15)),
    batch_size=int(cfg.get("batch_size", 16)),
    log=log,
)
counts.update(
    head=head_used, segments_available=len(items), segments_not_used=len(items) - len(used), encoding=enc_counts
)
log.info("%s", counts)
write_table(per_layer, snakemake.output.table)
write_table(per_head, snakemake.output.heads)
write_json(counts, snakemake.output.info)

labels = {"cls": tok.cls_token or "[CLS]", "sep": tok.sep_token or "[SEP]", "punct": ". or ,", "other": "other"}
title = (
    f"{spec}: gradient of the masked-LM loss w.r.t. attention ({counts['segments']} segments)\nMLM head: {head_used}"
)
fig = gi.plot(per_layer, title, labels)
save_figure(fig, snakemake.output.figure)
plt.close(fig)
