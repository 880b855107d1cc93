import pandas as pd

from analysis.core.storage import Shards
from analysis.kovaleva.finetune_change import special_attention_by_layer
from analysis.kovaleva.finetune_plots import plot_finetune_special_tokens
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
tasks, model = snakemake.params.tasks, snakemake.wildcards.model
parts = []
for variant, paths in [("finetuned", snakemake.input.finetuned), ("pretrained", snakemake.input.pretrained)]:
    for task, path in zip(tasks, paths):
        shards = Shards([path])
        t, n = special_attention_by_layer(shards)
        t.insert(0, "variant", variant)
        t.insert(0, "task", task)
        parts.append(t)
        cls_tok, sep_tok = shards.header["cls_token"], shards.header["sep_token"]
table = pd.concat(parts, ignore_index=True)
write_table(table, snakemake.output.table)
log.info("\n%s", table.to_string())

fig = plot_finetune_special_tokens(table, tasks, model, cls_tok, sep_tok)
save_figure(fig, snakemake.output.figure)
