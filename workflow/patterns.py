import pandas as pd

from analysis.core.storage import Shards
from analysis.kovaleva.patterns.adjusted import adjusted_replicates, adjusted_table, confusion_counts, misclassification
from analysis.kovaleva.patterns.classifier import classify_shards, load_classifier
from analysis.kovaleva.patterns.features import CLASSES
from analysis.kovaleva.patterns.labels import label_provenance, with_provenance
from analysis.kovaleva.patterns.plots import plot_patterns
from analysis.kovaleva.patterns.shares import share_table, task_shares
from analysis.kovaleva.replicates import pattern_share_replicates
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
p = snakemake.params
clf = load_classifier(snakemake.input.classifier)
if clf["labelled_model"] != p.labelled_model:
    raise ValueError(f"classifier trained on labels of {clf['labelled_model']}, recipe names {p.labelled_model}")
log.info("hand labels of %s applied to %s: %s", p.labelled_model, p.spec, label_provenance(p.labelled_model, p.spec))
variants = [("pretrained", snakemake.input.pretrained)]
if p.finetuned:
    variants.append(("finetuned", snakemake.input.finetuned))

preds, counts = [], []
for variant, paths in variants:
    if len(paths) != len(p.tasks):
        raise ValueError(f"{variant}: {len(paths)} shards for {len(p.tasks)} tasks")
    for task, path in zip(p.tasks, paths):
        pred, count = classify_shards(clf, Shards([path]), p.max_inputs, variant, task)
        preds.append(pred)
        counts.append(count)
        log.info(
            "%s %s: %d inputs, %d maps; %s",
            variant,
            task,
            count["inputs_classified"],
            len(pred),
            pred["label"].value_counts(normalize=True).round(3).to_dict(),
        )
pred = pd.concat(preds, ignore_index=True)
write_table(pred, snakemake.output.predictions)
tab = with_provenance(task_shares(pred, counts, clf["kind"], p.spec), p.labelled_model, p.spec)
# the classifier's cross-validated misclassification rates, from its out-of-fold predictions
oof = pd.read_csv(snakemake.input.out_of_fold)
k = len(CLASSES)
rates, labelled = misclassification(confusion_counts(oof, CLASSES).sum(0).reshape(k, k))
if not labelled.all():
    log.warning(
        "no hand-labelled map of %s: their shares are not corrected", [c for c, x in zip(CLASSES, labelled) if not x]
    )
tab = tab.assign(share_classified=tab["share"], share_adjusted=adjusted_table(tab, rates, CLASSES, ["variant", "task"]))
tab["share"] = tab[f"share_{p.shares}"]  # config kovaleva_patterns.shares: what the claims and the figure read
tab["unlabelled_classes"] = int((~labelled).sum())  # classes whose share is left uncorrected
write_table(tab, snakemake.output.table)
layers = share_table(pred, ["variant", "task", "layer"])
write_table(with_provenance(layers, p.labelled_model, p.spec), snakemake.output.layers)
# replicate table: the shares on resampled inputs of each task (all heads of an input together); adjusted,
# through the misclassification rates of the hand-labelled maps resampled by input in each replicate
boot = pattern_share_replicates(pred, p.boot_variants, p.bootstrap["resamples"], p.bootstrap["seed"], CLASSES)
if p.shares == "adjusted":
    boot["share"] = adjusted_replicates(boot, oof, CLASSES, p.bootstrap["resamples"], p.bootstrap["seed"])
write_table(boot, snakemake.output.boot)

fig = plot_patterns(tab, pred, p.tasks, [v for v, _ in variants], p.spec.split(":")[-1], clf, p.shares)
save_figure(fig, snakemake.output.figure)
