import numpy as np
import pandas as pd
import torch

from analysis.kovaleva.patterns import (
    CLASSES,
    FEATURES,
    cnn_cross_validate,
    cross_validate,
    downsample_map,
    load_maps,
    make_classifier,
    save_classifier,
    share_table,
)
from analysis.shared.plots import close, new_figure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
p = snakemake.params
df = pd.read_csv(snakemake.input.table)
missing = [f for f in FEATURES if f not in df]
if missing:
    raise ValueError(f"{snakemake.input.table}: features {missing} missing; rerun rule pattern_features")
X, y = df[list(FEATURES)].to_numpy(), df["label"].to_numpy()
groups = df["input_id"].to_numpy()  # folds grouped by input: no input on both sides of a split

tables, confusions = [], {}
for kind in ("logistic", "boosting"):
    t, cm, _ = cross_validate(X, y, kind, folds=p.folds, seed=p.seed, groups=groups)
    tables.append(t)
    confusions[kind] = cm
    log.info("%s: %s", kind, t[["label", "f1"]].round(3).to_dict("records"))
if p.cnn_epochs:
    # the paper's approach, as a comparator (CV only; the feature model is the one applied)
    torch.set_num_threads(1)  # a tiny net: more threads only add overhead
    maps = load_maps(snakemake.input.maps)
    images = np.stack([downsample_map(maps[int(m)][0], maps[int(m)][1]) for m in df["map"]])
    t = cnn_cross_validate(images, y, folds=p.folds, seed=p.seed, epochs=p.cnn_epochs, groups=groups)
    tables.append(t)
    log.info("cnn: %s", t[["label", "f1"]].round(3).to_dict("records"))
cv = pd.concat(tables, ignore_index=True)
cv.insert(0, "n_labels", len(y))
cv.insert(0, "labelled_model", p.labelled_model)
write_table(cv, snakemake.output.table)

cm = confusions[p.classifier]
long = cm.stack().rename("count").reset_index().rename(columns={"level_0": "true_label", "level_1": "predicted_label"})
long["share_of_true"] = long["count"] / long.groupby("true_label")["count"].transform("sum")
long.insert(0, "classifier", p.classifier)
write_table(long, snakemake.output.confusion)

# hand-label shares per source in the uniform first batch: a check of the classifier's shares per task
uniform = df[df["batch"] == 1]
shares = pd.concat([share_table(uniform, ["source"]), share_table(uniform.assign(source="all"), ["source"])])
shares.insert(0, "batch", 1)
write_table(shares, snakemake.output.label_shares)

clf = make_classifier(p.classifier, p.seed).fit(X, y)
save_classifier(clf, p.classifier, len(y), p.labelled_model, snakemake.output.model)

labels = [c for c in CLASSES if c in cm.index]
short = {
    "Vertical": "Vert.",
    "Diagonal": "Diag.",
    "Vertical+Diagonal": "Vert.+Diag.",
    "Block": "Block",
    "Heterogeneous": "Heterog.",
}
share = cm.loc[labels, labels].to_numpy() / cm.loc[labels].to_numpy().sum(1, keepdims=True)
f1 = cv[cv["classifier"] == p.classifier].set_index("label")["f1"]
fig, ax = new_figure(3.6, 3.2)
ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
for i in range(len(labels)):
    for j in range(len(labels)):
        ax.text(
            j,
            i,
            int(cm.loc[labels[i], labels[j]]),
            ha="center",
            va="center",
            fontsize=8,
            color="white" if share[i, j] > 0.6 else "black",
        )
ax.set_xticks(np.arange(len(labels)))
ax.set_xticklabels([short[c] for c in labels], rotation=30, ha="right")
ax.set_yticks(np.arange(len(labels)))
ax.set_yticklabels([f"{short[c]} (F1 {f1[c]:.2f})" for c in labels])
ax.set_xlabel("predicted (out of fold)")
ax.set_ylabel("hand label")
ax.grid(False)
cnn = cv[(cv["classifier"] == "cnn") & (cv["label"] == "weighted avg")]["f1"]
ax.set_title(
    f"{p.classifier} on map features, {p.folds}-fold CV\n{len(y)} hand-labelled maps of "
    f"{p.labelled_model.split(':')[-1]}; weighted F1 {f1['weighted avg']:.2f}"
    + (f" (tiny CNN: {cnn.iloc[0]:.2f})" if len(cnn) else "")
)
save_figure(fig, snakemake.output.figure)
close(fig)
