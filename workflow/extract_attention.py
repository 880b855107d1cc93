from analysis.core.batch import batch_for
from analysis.core.device import device_record, job_device
from analysis.core.extraction import extract_shard
from analysis.core.extraction_settings import Calibration, ShardSettings
from analysis.core.inputs import read_jsonl
from analysis.core.model_names import base_spec, is_control
from analysis.core.models import load_model, load_tokenizer
from analysis.core.precision import machine_rates
from analysis.shared.rule_io import start, write_json

snakemake, log = start(globals(), __file__, threads=True)  # the job's CPU budget, never more (no oversubscription)
p = snakemake.params
k, n_shards = int(snakemake.wildcards.shard), p.n_shards
records = read_jsonl(snakemake.input.records)[k::n_shards]
device = job_device(snakemake)
model = load_model(p.spec, device=device)
settings = ShardSettings(
    p.max_len,
    policy=p.policy,
    batch_size=batch_for(p.batch_size, device),
    segments=p.segment_ids,
    precision=p.precision,
)
# the run's precision is calibrated on the pre-trained model: a random-init control's maps are then
# computed in the precision of the maps they are compared with; precision auto decides on the
# rates measured once on this machine (rule measure_matmul)
reference = base_spec(p.spec)
calibration = Calibration(
    rates=machine_rates(snakemake.input.machine, model.device),
    reference=(lambda: load_model(reference, device=device)) if is_control(p.spec) else None,
    reference_name=reference,
)
stem = snakemake.output[0][: -len(".npy")]
header = extract_shard(model, load_tokenizer(p.spec), records, stem, settings, p.spec, calibration)
log.info(
    "shard %d/%d of %s: %s; precision %s",
    k,
    n_shards,
    snakemake.wildcards.corpus,
    header["counts"],
    header["precision"],
)
write_json({"threads": snakemake.threads, **device_record(device), **header}, snakemake.output.run_info)
