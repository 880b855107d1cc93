from analysis.core.device import device_record, job_device
from analysis.core.precision import measure_machine
from analysis.shared.rule_io import setup_logging, use_threads, write_json

if "snakemake" not in globals():  # run by hand, to debug: python workflow/<rule>.py key=value ...
    from analysis.shared.rule_io import mock_snakemake

    snakemake = mock_snakemake(__file__)


log = setup_logging(snakemake)
use_threads(snakemake.threads)
device = job_device(snakemake)
record = measure_machine(device)
log.info("matmul rates on %s: %s", record["fingerprint"], record["matmul_rate"])
write_json({**record, **device_record(device)}, snakemake.output[0])
