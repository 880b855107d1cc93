import json

import pandas as pd

from analysis.clark.surface.gradient_importance import accumulate, plot_gradient_importance
from analysis.clark.surface.mlm_head import head_description, load_fitted_head, load_mlm
from analysis.core.device import device_record, job_device
from analysis.core.extraction import encode_records
from analysis.core.inputs import read_jsonl, seeded_subset
from analysis.core.models import load_tokenizer
from analysis.shared.rule_io import save_figure, start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
p = snakemake.params
tok = load_tokenizer(p.spec)
device = job_device(snakemake)
model, info = load_mlm(p.spec, device=device)
head_info = json.loads(open(snakemake.input.head_info).read())
load_fitted_head(model, info, head_info, snakemake.input.head)
head_used = head_description(head_info, pd.read_csv(snakemake.input.head_table))
log.info("masked-LM head: %s", head_used)

records = read_jsonl(snakemake.input.records)
items, enc_counts = encode_records(tok, records, p.max_len, p.policy, segments=p.segment_ids)
# a seeded sample over the whole corpus (the inputs are in article order), kept in order
used = seeded_subset(items, p.n_segments, int(p.seed))
per_layer, per_head, counts = accumulate(
    model, tok, used, seed=int(p.seed), prob=float(p.mask_prob), batch_size=int(p.batch_size), log=log
)
counts.update(
    head=head_used,
    segments_available=len(items),
    segments_not_used=len(items) - len(used),
    encoding=enc_counts,
    **device_record(device),
)
log.info("%s", counts)
# the rows of the attention sink ([SEP] or [CLS], chosen by rule sep_attention): the sink-agnostic claim reads them
sink = pd.read_csv(snakemake.input.sink)["sink"].iloc[0]
per_layer["sink"] = per_layer["attended"] == sink
write_table(per_layer, snakemake.output.table)
write_table(per_head, snakemake.output.heads)
write_json(counts, snakemake.output.info)

labels = {"cls": tok.cls_token or "[CLS]", "sep": tok.sep_token or "[SEP]", "punct": ". or ,", "other": "other"}
title = (
    f"{p.spec}: gradient of the masked-LM loss w.r.t. attention ({counts['segments']} segments)\nMLM head: {head_used}"
)
fig = plot_gradient_importance(per_layer, title, labels)
save_figure(fig, snakemake.output.figure)
