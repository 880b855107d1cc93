from analysis.core.sources import fetch_source
from analysis.shared.rule_io import start

snakemake, log = start(globals(), __file__)
fetch_source(snakemake.params.source, snakemake.output[0].rsplit("/", 1)[0], snakemake.params.mirror)
