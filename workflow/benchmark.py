import pandas as pd

from analysis.benchmark.extraction import run_benchmark
from analysis.core.batch import batch_for
from analysis.core.device import job_device
from analysis.core.inputs import read_jsonl
from analysis.core.models import load_model, load_tokenizer
from analysis.shared.rule_io import start, write_table

snakemake, log = start(globals(), __file__, threads=True)
p = snakemake.params
device = job_device(snakemake)  # the table's device column records it
parts = []
for spec, path in zip(p.specs, snakemake.input):
    records = read_jsonl(path)[: p.n_segments]
    log.info("%s: %d segments of %s, %d threads", spec, len(records), path, snakemake.threads)
    table = run_benchmark(
        load_model(spec, device=device),
        load_tokenizer(spec),
        records,
        p.max_len,
        batch_for(p.batch_size, device),
        p.precisions,
        p.segment_ids,
    )
    table.insert(0, "model", spec)
    table.insert(1, "threads", snakemake.threads)
    log.info("\n%s", table.to_string())
    parts.append(table)
write_table(pd.concat(parts, ignore_index=True), snakemake.output[0])
