from pathlib import Path

import pandas as pd
import torch

from analysis.clark import mlm_head as mh
from analysis.core.corpora.wikipedia import read_articles, segments
from analysis.core.extraction import encode_records
from analysis.core.inputs import read_jsonl
from analysis.core.models import load_tokenizer
from analysis.shared.rule_io import setup_logging, write_json, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
cfg, wiki, spec = snakemake.params.cfg, snakemake.params.wiki, snakemake.params.spec
seed, prob = int(cfg.get("seed", 0)), float(cfg.get("mask_prob", 0.15))
tok = load_tokenizer(spec)
model, info = mh.load_mlm(spec)
log.info(
    "%s: pre-trained masked-LM head: %s (missing head keys: %s)",
    spec,
    info["pretrained_head"],
    info["missing_head_keys"],
)

# every segment of the Wikipedia file, built exactly as the evaluation corpus; drop those sampled for evaluation
max_len = wiki.get("max_len", snakemake.params.max_len)
segs, seg_counts = segments(
    read_articles(Path(snakemake.input.raw).parent / wiki["file"]), tok, max_len=max_len, seed=wiki.get("seed", 0)
)
evaluation = read_jsonl(snakemake.input.evaluation)
by_id = {s["id"]: s for s in segs}
for rec in evaluation:
    if rec["id"] not in by_id or by_id[rec["id"]]["words"] != rec["words"]:
        raise ValueError(
            f"{snakemake.input.evaluation}: segment {rec['id']} does not match the re-segmented "
            f"{wiki['file']} (corpus options changed?)"
        )
train, heldout, n_pool = mh.training_segments(
    segs, {r["id"] for r in evaluation}, int(cfg["n_train"]), int(cfg["n_heldout"]), seed
)
counts = {
    "segments_total": len(segs),
    "segments_in_evaluation": len(evaluation),
    "segments_outside_evaluation": n_pool,
    "train_segments": len(train),
    "heldout_segments": len(heldout),
    **info,
}
train_items, c1 = encode_records(tok, train, snakemake.params.max_len, "truncate")
held_items, c2 = encode_records(tok, heldout, snakemake.params.max_len, "truncate")
counts.update(train_encoding=c1, heldout_encoding=c2)

held = mh.masked_hidden(model, held_items, tok, seed + 1, prob)[:2]
rows = []
if info["pretrained_head"]:
    ev = mh.evaluate_head(model, *held)
    rows.append({"head": "pre-trained", "split": "held-out", **ev})
    state = {}
else:
    tr = mh.masked_hidden(model, train_items, tok, seed, prob)[:2]
    log.info("cached %d masked training tokens, %d held-out", len(tr[1]), len(held[1]))
    mh.init_head(model, seed, tr[1])
    rows.append({"head": "initial (unigram bias)", "split": "held-out", **mh.evaluate_head(model, *held)})
    curve = mh.fit_head(
        model,
        *tr,
        epochs=int(cfg["epochs"]),
        lr=float(cfg["lr"]),
        batch=int(cfg["batch_size"]),
        seed=seed,
        heldout=held,
        log=log,
    )
    counts["curve"] = curve
    rows.append({"head": "fitted on frozen encoder", "split": "train", **mh.evaluate_head(model, *tr)})
    rows.append({"head": "fitted on frozen encoder", "split": "held-out", **mh.evaluate_head(model, *held)})
    state = mh.head_state(model)
table = pd.DataFrame(rows)
table.insert(0, "model", spec)
log.info("\n%s", table.to_string(index=False))
write_table(table, snakemake.output.table)
counts["head_source"] = (
    "pre-trained checkpoint head" if info["pretrained_head"] else "head fitted on the frozen encoder (rule mlm_head)"
)
write_json(counts, snakemake.output.info)
Path(snakemake.output.head).parent.mkdir(parents=True, exist_ok=True)
torch.save(state, snakemake.output.head)
