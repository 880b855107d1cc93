import pandas as pd

from analysis.core.storage import Shards
from analysis.kovaleva.finetune.change import special_attention_by_layer
from analysis.kovaleva.finetune.plots import plot_finetune_special_tokens
from analysis.kovaleva.replicates import special_replicates, task_weights
from analysis.shared.bootstrap import RESAMPLED, with_resampled
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
tasks, model, p = snakemake.params.tasks, snakemake.wildcards.model, snakemake.params
parts, boots = [], []
for variant, paths in [("finetuned", snakemake.input.finetuned), ("pretrained", snakemake.input.pretrained)]:
    for task, path in zip(tasks, paths):
        shards = Shards([path])
        stats = [] if variant in p.boot_variants else None  # each example's sums: the units of the resamples
        t, n = special_attention_by_layer(shards, keep=stats)
        t.insert(0, "variant", variant)
        t.insert(0, "task", task)
        parts.append(t)
        if stats is not None:  # the same weights for both variants of a task: the same dev inputs
            weights = task_weights(n, p.bootstrap["resamples"], p.bootstrap["seed"], task)
            boots.append(with_resampled(special_replicates(stats, weights).assign(task=task, variant=variant), n))
        cls_tok, sep_tok = shards.header["cls_token"], shards.header["sep_token"]
table = pd.concat(parts, ignore_index=True)
write_table(table, snakemake.output.table)
boot = pd.concat(boots, ignore_index=True) if boots else pd.DataFrame(columns=["layer", "cls", "sep", "replicate"])
write_table(
    boot.reindex(columns=["task", "variant", "layer", "cls", "sep", "replicate", RESAMPLED]), snakemake.output.boot
)
log.info("\n%s", table.to_string())

fig = plot_finetune_special_tokens(table, tasks, model, cls_tok, sep_tok)
save_figure(fig, snakemake.output.figure)
