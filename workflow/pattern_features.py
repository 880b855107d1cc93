from pathlib import Path

import torch
import yaml

from analysis.kovaleva.pattern_labels import labelled_features, read_labels, save_maps
from analysis.shared.rule_io import setup_logging, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
recipe = yaml.safe_load(Path(snakemake.input.recipe).read_text())
labels = read_labels(snakemake.input.labels)
raw_dir = Path(snakemake.input.raw[0]).parent.parent  # resources/raw/<source>/SHA256SUMS
table, maps = labelled_features(recipe, raw_dir, labels)
write_table(table, snakemake.output.table)
save_maps(maps, snakemake.output.maps)
log.info(
    "%d labelled maps of %s regenerated; labels: %s",
    len(table),
    recipe["model"],
    table["label"].value_counts().to_dict(),
)
