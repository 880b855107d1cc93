from pathlib import Path

import yaml

from analysis.core.device import device_record, job_device
from analysis.kovaleva.patterns.labels import labelled_features, read_labels, save_maps
from analysis.shared.rule_io import start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
recipe = yaml.safe_load(Path(snakemake.input.recipe).read_text())
labels = read_labels(snakemake.input.labels)
raw_dir = Path(snakemake.input.raw[0]).parent.parent  # resources/raw/<source>/SHA256SUMS
device = job_device(snakemake)
table, maps = labelled_features(recipe, raw_dir, labels, device=device)
write_table(table, snakemake.output.table)
save_maps(maps, snakemake.output.maps)
write_json(device_record(device), snakemake.output.device)
log.info(
    "%d labelled maps of %s regenerated; labels: %s",
    len(table),
    recipe["model"],
    table["label"].value_counts().to_dict(),
)
