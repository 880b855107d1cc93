from analysis.core.device import device_record, job_device
from analysis.core.precision import measure_machine
from analysis.shared.rule_io import start, write_json

snakemake, log = start(globals(), __file__, threads=True)
device = job_device(snakemake)
record = measure_machine(device)
log.info("matmul rates on %s: %s", record["fingerprint"], record["matmul_rate"])
write_json({**record, **device_record(device)}, snakemake.output[0])
