from pathlib import Path

from analysis.core.corpora import prepare
from analysis.core.inputs import write_jsonl
from analysis.core.models import load_tokenizer
from analysis.shared.rule_io import start, write_json

snakemake, log = start(globals(), __file__)
opts = dict(snakemake.params.corpus)
name = opts.pop("reader")
opts.pop("source")
tokenizer = load_tokenizer(snakemake.params.spec)
records, counts = prepare(name, Path(snakemake.input[0]).parent, tokenizer, max_len=snakemake.params.max_len, **opts)
write_jsonl(snakemake.output.records, records)
write_json(counts, snakemake.output.counts)
log.info("%s: %d records; %s", snakemake.wildcards.corpus, len(records), counts)
