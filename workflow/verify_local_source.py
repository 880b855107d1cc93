from analysis.core.sources import verify_local_source
from analysis.shared.rule_io import setup_logging

if "snakemake" not in globals():  # run by hand, to debug: python workflow/<rule>.py key=value ...
    from analysis.shared.rule_io import mock_snakemake

    snakemake = mock_snakemake(__file__)


log = setup_logging(snakemake)
verify_local_source(snakemake.params.path, snakemake.input.record, snakemake.output[0], snakemake.wildcards.source)
log.info("%s: every file matches its record %s", snakemake.wildcards.source, snakemake.input.record)
