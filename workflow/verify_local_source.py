from analysis.core.sources import verify_local_source
from analysis.shared.rule_io import start

snakemake, log = start(globals(), __file__)
verify_local_source(snakemake.params.path, snakemake.input.record, snakemake.output[0], snakemake.wildcards.source)
log.info("%s: every file matches its record %s", snakemake.wildcards.source, snakemake.input.record)
