from analysis.rule_io import setup_logging
from analysis.sources import fetch_source

setup_logging(snakemake)
fetch_source(snakemake.params.source, snakemake.output[0].rsplit("/", 1)[0], snakemake.params.mirror)
