from pathlib import Path

import pandas as pd
import torch

from analysis.clark.surface.mlm_head import load_mlm
from analysis.clark.surface.mlm_head_fit import HeadFit, check_resegmented, score_or_fit_head, training_segments
from analysis.core.corpora.wikipedia import read_articles, segments
from analysis.core.device import device_record, job_device
from analysis.core.extraction import encode_records
from analysis.core.inputs import read_jsonl
from analysis.core.models import load_tokenizer
from analysis.shared.rule_io import start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
p = snakemake.params
seed = int(p.seed)
tok = load_tokenizer(p.spec)
device = job_device(snakemake)
model, info = load_mlm(p.spec, device=device)
log.info(
    "%s: pre-trained masked-LM head: %s (missing head keys: %s)",
    p.spec,
    info["pretrained_head"],
    info["missing_head_keys"],
)

# every segment of the Wikipedia file, built exactly as the evaluation corpus; drop those sampled for evaluation
segs, _ = segments(
    read_articles(Path(snakemake.input.raw).parent / p.wiki_file), tok, max_len=p.max_len, seed=p.wiki_seed
)
evaluation = read_jsonl(snakemake.input.evaluation)
check_resegmented(segs, evaluation, snakemake.input.evaluation, p.wiki_file)
train, heldout, n_pool = training_segments(segs, {r["id"] for r in evaluation}, int(p.n_train), int(p.n_heldout), seed)
counts = {
    "segments_total": len(segs),
    "segments_in_evaluation": len(evaluation),
    "segments_outside_evaluation": n_pool,
    "train_segments": len(train),
    "heldout_segments": len(heldout),
    **info,
    **device_record(device),
}
train_items, c1 = encode_records(tok, train, p.max_len, "truncate", segments=p.segment_ids)
held_items, c2 = encode_records(tok, heldout, p.max_len, "truncate", segments=p.segment_ids)
counts.update(train_encoding=c1, heldout_encoding=c2)

fit = HeadFit(
    seed=seed, mask_prob=float(p.mask_prob), epochs=int(p.epochs), lr=float(p.lr), batch_size=int(p.batch_size)
)
rows, curve, state = score_or_fit_head(model, info, tok, train_items, held_items, fit, log=log)
if curve is not None:
    counts["curve"] = curve
table = pd.DataFrame(rows)
table.insert(0, "model", p.spec)
log.info("\n%s", table.to_string(index=False))
write_table(table, snakemake.output.table)
counts["head_source"] = (
    "pre-trained checkpoint head" if info["pretrained_head"] else "head fitted on the frozen encoder (rule mlm_head)"
)
write_json(counts, snakemake.output.info)
Path(snakemake.output.head).parent.mkdir(parents=True, exist_ok=True)
torch.save(state, snakemake.output.head)
