from analysis.core.sources import fetch_source
from analysis.shared.rule_io import setup_logging

setup_logging(snakemake)
fetch_source(snakemake.params.source, snakemake.output[0].rsplit("/", 1)[0], snakemake.params.mirror)
