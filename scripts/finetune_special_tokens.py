import pandas as pd

from analysis.core.storage import Shards
from analysis.kovaleva.finetune_change import special_attention_by_layer
from analysis.shared.plots import close, new_figure
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

kinds = [("cls", cls_tok), ("sep", sep_tok), ("punct", "'.' or ','")]
fig, axes = new_figure(2.0 * len(tasks) + 0.6, 2.3, ncols=len(tasks), sharey=True, squeeze=False)
for ax, task in zip(axes[0], tasks):
    for i, (col, name) in enumerate(kinds):
        for variant, style in [("finetuned", "-"), ("pretrained", ":")]:
            t = table[(table.task == task) & (table.variant == variant)]
            ax.plot(
                t.layer,
                t[col],
                style,
                color=f"C{i}",
                marker="o" if variant == "finetuned" else None,
                ms=3,
                label=f"{name}, {'fine-tuned' if variant == 'finetuned' else 'pre-trained'}",
            )
    ax.set_title(task)
    ax.set_xlabel("layer")
    ax.set_xticks(sorted(table.layer.unique()))
    ax.set_ylim(-0.02, 1.02)
axes[0, 0].set_ylabel("mean attention to token")
axes[0, -1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
fig.suptitle(f"{model}: attention to special tokens after fine-tuning (dotted: pre-trained)", y=1.03)
save_figure(fig, snakemake.output.figure)
close(fig)
