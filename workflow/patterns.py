import pandas as pd

from analysis.core.storage import Shards
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
write_table(tab, snakemake.output.table)
layers = share_table(pred, ["variant", "task", "layer"])
write_table(with_provenance(layers, p.labelled_model, p.spec), snakemake.output.layers)
# replicate table: the shares on resampled inputs of each task (all heads of an input together)
write_table(
    pattern_share_replicates(pred, p.boot_variants, p.bootstrap["resamples"], p.bootstrap["seed"], CLASSES),
    snakemake.output.boot,
)

fig = plot_patterns(tab, pred, p.tasks, [v for v, _ in variants], p.spec.split(":")[-1], clf)
save_figure(fig, snakemake.output.figure)
