import pandas as pd
import torch

from analysis.core.models import shape_of
from analysis.explanation.attn_classifiers import load_for_tests, load_probe
from analysis.explanation.faithfulness import ClsExplainer, erasure_tables, set_summary, single_summary
from analysis.explanation.plots import plot_set_erasure, plot_single_erasure
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
cfg = snakemake.params.cfg
bundle, dev, tf = load_for_tests(
    snakemake.input.model, snakemake.input.glue, snakemake.params.spec, cfg["task"], cfg["n_explain"]
)
n_layers, _ = shape_of(tf.model)
layer = cfg.get("cls_layer") or n_layers  # 1-indexed
if not 1 <= layer <= n_layers:
    raise ValueError(f"explanation.cls_layer = {layer}: the model has layers 1..{n_layers}")
ex = ClsExplainer(tf, load_probe(bundle), layer - 1)
instances = [ex.instance(i, w, y) for i, (w, y) in enumerate(dev)]
name = f"[CLS] row, layer {layer}"
s, e, skipped = erasure_tables(instances, ex, cfg["seed"])
log.info("%d instances, %d skipped (fewer than 2 items)", len(s), skipped)
kinds = {inst.id: inst.inputs["kinds"] for inst in instances}
single = pd.DataFrame([{"encoder": name, "layer": layer, **r} for r in s])
single["top_kind"] = [kinds[i][t] for i, t in zip(single.id, single.top_index)]
single["random_kind"] = [kinds[i][t] for i, t in zip(single.id, single.random_index)]
sets = pd.DataFrame([{"encoder": name, "layer": layer, "skipped_lt2_items": skipped, **r} for r in e])
write_table(single, snakemake.output.single)
write_table(sets, snakemake.output.sets)
write_table(
    single_summary(single).merge(set_summary(sets), on="encoder", suffixes=("", "_set")), snakemake.output.summary
)
model = snakemake.wildcards.model
save_figure(
    plot_single_erasure(single, model, "Single-weight erasure in the transformer's own attention (heads averaged)"),
    snakemake.output.fig_single,
)
save_figure(
    plot_set_erasure(sets, model, f"Set erasure in the transformer's own attention ({name}, heads averaged)"),
    snakemake.output.fig_set,
)
