from analysis.core.sources import fetch_source
from analysis.shared.rule_io import setup_logging

if "snakemake" not in globals():  # run by hand, to debug: python workflow/<rule>.py key=value ...
    from analysis.shared.rule_io import mock_snakemake

    snakemake = mock_snakemake(__file__)


setup_logging(snakemake)
fetch_source(snakemake.params.source, snakemake.output[0].rsplit("/", 1)[0], snakemake.params.mirror)
