import pandas as pd

from analysis.kovaleva.patterns.classifier import (
    confusion_table,
    cross_validate,
    cv_table,
    feature_matrix,
    make_classifier,
    save_classifier,
)
from analysis.kovaleva.patterns.cnn import cnn_cross_validate, map_images
from analysis.kovaleva.patterns.labels import label_shares, load_maps
from analysis.kovaleva.patterns.plots import plot_pattern_classifier
from analysis.shared.rule_io import save_figure, start, use_threads, write_table

snakemake, log = start(globals(), __file__, threads=True)
p = snakemake.params
df = pd.read_csv(snakemake.input.table)
X, y, groups = feature_matrix(df, snakemake.input.table)  # folds grouped by input: no input on both sides

tables, confusions, out_of_fold = [], {}, {}
for kind in ("logistic", "boosting"):
    t, cm, out_of_fold[kind] = cross_validate(X, y, kind, folds=p.folds, seed=p.seed, groups=groups)
    tables.append(t)
    confusions[kind] = cm
    log.info("%s: %s", kind, t[["label", "f1"]].round(3).to_dict("records"))
if p.cnn_epochs:
    # the paper's approach, as a comparator (CV only; the feature model is the one applied)
    use_threads(1)  # a tiny net: more threads only add overhead
    images = map_images(load_maps(snakemake.input.maps), df["map"])
    t = cnn_cross_validate(images, y, folds=p.folds, seed=p.seed, epochs=p.cnn_epochs, groups=groups)
    tables.append(t)
    log.info("cnn: %s", t[["label", "f1"]].round(3).to_dict("records"))
cv = cv_table(tables, len(y), p.labelled_model)
write_table(cv, snakemake.output.table)
write_table(confusion_table(confusions[p.classifier], p.classifier), snakemake.output.confusion)
write_table(label_shares(df), snakemake.output.label_shares)
# the applied classifier's out-of-fold predictions: its misclassification rates, which rule patterns
# corrects the shares for (resampling the labelled maps by input)
oof = pd.DataFrame(
    {"map": df["map"], "input_id": groups, "true_label": y, "predicted_label": out_of_fold[p.classifier]}
)
write_table(oof, snakemake.output.out_of_fold)

clf = make_classifier(p.classifier, p.seed).fit(X, y)
save_classifier(clf, p.classifier, len(y), p.labelled_model, snakemake.output.model)

fig = plot_pattern_classifier(confusions[p.classifier], cv, p.classifier, p.folds, p.labelled_model)
save_figure(fig, snakemake.output.figure)
