import json

import numpy as np
import pandas as pd

from analysis.shared.plots import close, new_figure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
rows = []
for path in snakemake.input:
    info = json.load(open(path))
    for metric in info["metrics"]:
        rows.append(
            {
                "task": info["task"],
                "metric": metric,
                "finetuned": info["finetuned"][metric],
                "pretrained_random_head": info["pretrained"][metric],
                "majority": info["majority"][metric],
                "train_examples": info["train"]["examples"],
                "train_rows_total": info["train_rows_total"],
                "train_truncated": info["train"]["truncated"],
                "dev_examples": info["dev"]["examples"],
                "dev_rows_total": info["dev_rows_total"],
                "dev_truncated": info["dev"]["truncated"],
                "epochs": info["settings"]["epochs"],
                "steps": info["steps"],
                "train_seconds": info["train_seconds"],
            }
        )
t = pd.DataFrame(rows)
write_table(t, snakemake.output.table)
log.info("\n%s", t.to_string())

fig, ax = new_figure(max(3.5, 0.9 * len(t) + 1), 2.6)
x = np.arange(len(t))
for i, (col, name) in enumerate(
    [
        ("majority", "majority class"),
        ("pretrained_random_head", "pre-trained, untrained head"),
        ("finetuned", "fine-tuned"),
    ]
):
    bars = ax.bar(x + (i - 1) * 0.27, t[col], width=0.27, label=name, color=f"C{[7, 1, 0][i]}")
    ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=1)
ax.set_xticks(x, [f"{a}\n{b}" for a, b in zip(t.task, t.metric)])
ax.axhline(0, color="k", lw=0.5)
ax.set_ylabel("dev score")
ax.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=3, frameon=False)
ax.set_title(f"{snakemake.wildcards.model}: GLUE dev after fine-tuning", pad=22)
save_figure(fig, snakemake.output.figure)
close(fig)
