import pandas as pd
import torch

from analysis.explanation.attn_classifiers import load_explainers, load_for_tests
from analysis.explanation.faithfulness import adversarial_rows, pooled_instances
from analysis.explanation.plots import plot_adversarial
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
cfg = snakemake.params.cfg
adv = cfg["adversarial"]
bundle, dev, tf = load_for_tests(
    snakemake.input.model, snakemake.input.glue, snakemake.params.spec, cfg["task"], cfg["n_explain"]
)
rows = []
for enc, ex in load_explainers(bundle, tf).items():
    inst = pooled_instances(ex, dev, cfg["n_explain"])
    res = adversarial_rows(inst, ex, adv["tolerance"], adv["steps"], adv["lr"], adv["penalty"], cfg["seed"])
    rows += [{"encoder": enc, "tolerance": adv["tolerance"], **r} for r in res]
    log.info("%s: %d instances, median JSD %.3f", enc, len(res), pd.Series([r["jsd"] for r in res]).median())
df = pd.DataFrame(rows)
write_table(df, snakemake.output.table)
save_figure(plot_adversarial(df, snakemake.wildcards.model, adv["tolerance"]), snakemake.output.figure)
