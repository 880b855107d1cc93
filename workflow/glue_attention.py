from pathlib import Path

from analysis.core.batch import batch_for
from analysis.core.device import device_record, job_device
from analysis.core.extraction import extract_shard
from analysis.core.extraction_settings import Calibration, ShardSettings
from analysis.core.glue.reader import read_split
from analysis.core.models import load_model, load_tokenizer
from analysis.core.precision import machine_rates
from analysis.shared.rule_io import start, write_json

snakemake, log = start(globals(), __file__, threads=True)  # the job's CPU budget, never more
wc, p = snakemake.wildcards, snakemake.params
records = read_split(Path(snakemake.input.raw).parent, wc.task, "dev", limit=p.n_examples, seed=p.seed)
# the same inputs and tokenizer for both variants; only the weights differ
source = snakemake.input.checkpoint if wc.variant == "finetuned" else p.spec
device = job_device(snakemake)
model = load_model(source, head="base", device=device)
# Kovaleva et al.: the tokenizer's 0/1 token types, those the fine-tuned models were trained with
settings = ShardSettings(
    p.max_len, policy="truncate", batch_size=batch_for(p.batch_size, device), segments="pairs", precision=p.precision
)
# both variants calibrate the run's precision on the pre-trained model: their maps, which rule
# finetune_change compares, are computed in one precision
calibration = Calibration(
    rates=machine_rates(snakemake.input.machine, model.device),
    reference=(lambda: load_model(p.spec, head="base", device=device)) if wc.variant == "finetuned" else None,
    reference_name=p.spec,
)
name = f"{p.spec} ({wc.variant}{' on ' + wc.task if wc.variant == 'finetuned' else ''})"
header = extract_shard(
    model, load_tokenizer(p.spec), records, snakemake.output[0][: -len(".npy")], settings, name, calibration
)
log.info("%s %s dev maps: %s; precision %s", wc.variant, wc.task, header["counts"], header["precision"])
write_json({"threads": snakemake.threads, **device_record(device), **header}, snakemake.output.run_info)
