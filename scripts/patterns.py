import pandas as pd

from analysis.core.storage import Shards
from analysis.kovaleva.patterns import (
    CLASSES,
    COLORS,
    classify,
    load_classifier,
    shard_features,
    share_table,
    stacked_bars,
)
from analysis.shared.plots import close, new_figure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
p = snakemake.params
clf = load_classifier(snakemake.input.classifier)
variants = [("pretrained", snakemake.input.pretrained)]
if p.finetuned:
    variants.append(("finetuned", snakemake.input.finetuned))

preds, counts = [], []
for variant, paths in variants:
    if len(paths) != len(p.tasks):
        raise ValueError(f"{variant}: {len(paths)} shards for {len(p.tasks)} tasks")
    for task, path in zip(p.tasks, paths):
        shards = Shards([path])
        feats = shard_features(shards, p.max_inputs)
        n_inputs = feats["input_id"].nunique()
        pred = pd.concat([feats[["input_id", "layer", "head", "n_tokens"]], classify(clf, feats)], axis=1)
        pred.insert(0, "task", task)
        pred.insert(0, "variant", variant)
        preds.append(pred)
        counts.append(
            {
                "variant": variant,
                "task": task,
                "inputs_in_shard": len(shards),
                "inputs_classified": n_inputs,
                "inputs_not_used": len(shards) - n_inputs,
                **{f"shard_{k}": v for k, v in shards.counts().items()},
            }
        )
        log.info(
            "%s %s: %d inputs, %d maps; %s",
            variant,
            task,
            n_inputs,
            len(pred),
            pred["label"].value_counts(normalize=True).round(3).to_dict(),
        )
pred = pd.concat(preds, ignore_index=True)
write_table(pred, snakemake.output.predictions)

model_name = p.spec.split(":")[-1]
tab = share_table(pred, ["variant", "task"])
counts = pd.DataFrame(counts)
counts = counts.fillna({c: 0 for c in counts.columns if c.startswith("shard_")})  # a count absent = none
tab = tab.merge(counts, on=["variant", "task"], how="left")
tab.insert(0, "classifier", clf["kind"])
tab.insert(0, "model", p.spec)
write_table(tab, snakemake.output.table)
by_layer = share_table(pred, ["variant", "task", "layer"])
write_table(by_layer, snakemake.output.layers)

# Kovaleva Fig. 2: a stacked bar per task (and variant); right: per layer, pooled over tasks
wide = tab.pivot_table(index=["variant", "task"], columns="label", values="share", sort=False).reset_index()
names = {"pretrained": "pre-tr.", "finetuned": "fine-t."}
wide["group"] = [f"{t}\n{names[v]}" if p.finetuned else t for v, t in zip(wide["variant"], wide["task"])]
order = [(v, t) for t in p.tasks for v, _ in variants]
wide = wide.set_index(["variant", "task"]).loc[order].reset_index()
lay = share_table(pred[pred["variant"] == "pretrained"], ["layer"])
lay = lay.pivot_table(index="layer", columns="label", values="share").reset_index()
lay["group"] = lay["layer"].astype(str)
fig, axes = new_figure(7.0, 2.8, ncols=2, gridspec_kw={"width_ratios": [max(len(wide), 3), max(len(lay), 3)]})
stacked_bars(axes[0], wide)
axes[0].set_title("per task" + (" (pre-trained / fine-tuned)" if p.finetuned else " (pre-trained)"))
stacked_bars(axes[1], lay)
axes[1].set_xlabel("layer")
axes[1].set_ylabel("")
axes[1].set_title("pre-trained, per layer (all tasks)")
for ax in axes:
    ax.grid(axis="x", visible=False)
handles = [plt_patch for plt_patch in axes[0].containers]
fig.legend([h[0] for h in handles][::-1], CLASSES[::-1], loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
n_in = int(tab["inputs_classified"].max())
fig.suptitle(
    f"{model_name}: attention pattern types ({clf['kind']} classifier on {clf['n_labels']} hand labels), "
    f"{n_in} dev inputs per task",
    y=1.02,
)
save_figure(fig, snakemake.output.figure)
close(fig)
assert set(COLORS) == set(CLASSES)
