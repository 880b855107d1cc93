from analysis.core.device import device_record, job_device
from analysis.explanation.erasure_cls import resolve_cls_layer, run_erasure_cls
from analysis.explanation.plots import plot_erasure_cls_set, plot_erasure_cls_single
from analysis.explanation.setup import load_for_tests, load_probe
from analysis.shared.rule_io import save_figure, start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
device = job_device(snakemake)
bundle, dev, tf = load_for_tests(
    snakemake.input.model,
    snakemake.input.glue,
    snakemake.params.spec,
    snakemake.params.task,
    snakemake.params.n_explain,
    device,
)
layer = resolve_cls_layer(tf.model, snakemake.params.cls_layer)
single, sets, summary = run_erasure_cls(tf, load_probe(bundle), layer, dev, snakemake.params.seed)
write_table(single, snakemake.output.single)
write_table(sets, snakemake.output.sets)
write_table(summary, snakemake.output.summary)
model = snakemake.wildcards.model
fig = plot_erasure_cls_single(single, model)
save_figure(fig, snakemake.output.fig_single)
fig = plot_erasure_cls_set(sets, model, layer)
save_figure(fig, snakemake.output.fig_set)
write_json(device_record(device), snakemake.output.device)
