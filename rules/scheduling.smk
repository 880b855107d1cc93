# How jobs are scheduled, shared by every rules/*.smk: torch threads, what a job asks a cluster for
# (sized from the model's shape and the work estimates beside each heavy rule), priorities, and the
# map shards deleted once read.

from analysis.core import resources as sizing
from analysis.scheduling.heavy_rules import GPU_RULES, HEAVY

# torch threads of a heavy job (config job_threads): auto = half of --cores, so that two heavy jobs run
# side by side (on 2 cores: 786 s for the default run, 1,046 s with one 2-thread heavy job at a time);
# 2 when no --cores was given (cluster executors)
if config["job_threads"] == "auto":
    # None when Snakemake is given no --cores; a job that a cluster executor spawns is given --cores all
    # (the node's CPUs, not the job's): it keeps the 2 its submission asked for
    CORES = workflow.resource_settings.cores if workflow.is_main_process else None
    JOB_THREADS = max(1, CORES // 2) if CORES else 2
else:
    JOB_THREADS = int(config["job_threads"])


# What a job asks a cluster for, from the run (analysis/core/resources.py): every rule declares
#   mem_mb=job_mem_mb("<rule>"), runtime=job_runtime("<rule>")
# sized from the job's model (its config.json: layers, heads, sizes), max_len, batch size and
# inputs; a retry (profile retries) asks for more. Local runs ignore both (only --resources caps).
def _request(rule, model):
    def inner(wildcards, threads, attempt):
        specs = model(wildcards) if callable(model) else model
        specs = [specs] if isinstance(specs, str) else list(specs or [None])
        wc, counted = dict(wildcards.items()), prepared_inputs(wildcards.get("model"))
        shapes = [sizing.model_shape(s) if s else None for s in specs]
        gpu = rule in GPU_RULES  # sized at the GPU's rate only where the rule asks for one
        asks = [sizing.job_requests(HEAVY.get(rule), s, config, wc, threads, attempt, counted, gpu) for s in shapes]
        return max(a[0] for a in asks), sum(a[1] for a in asks), max(a[2] for a in asks)

    return inner


_COUNTED = {}


def prepared_inputs(slug):
    """corpus -> records of resources/inputs/<slug>/<corpus>.jsonl, for the corpora prepared so far
    (a job is sized when its inputs exist; before that, e.g. in a dry run, from the config)."""
    counted = {}
    for corpus in CORPORA if slug else []:
        path = inputs_of(corpus).format(model=slug)
        if os.path.exists(path):
            key = (path, os.stat(path).st_mtime_ns)
            if key not in _COUNTED:
                with open(path, "rb") as f:
                    _COUNTED[key] = sum(1 for _ in f)
            counted[corpus] = _COUNTED[key]
    return counted


def job_mem_mb(rule, model=lambda wc: MODELS.get(wc.get("model"))):
    """mem_mb of a job of ``rule``; ``model``: the job's model spec(s), a function of the wildcards."""
    request = _request(rule, model)
    return lambda wildcards, threads, attempt: request(wildcards, threads, attempt)[0]


def job_gpu_mem_mb(rule, model=lambda wc: MODELS.get(wc.get("model"))):
    """gpu_mem_mb of a GPU job (resources gpu=1), what it holds on the card,
    from its model's size; with --resources gpu_mem_mb=<the card's MB> (profiles/gpu-workstation) the
    GPU jobs share one card as far as their memory allows."""
    request = _request(rule, model)
    return lambda wildcards, threads, attempt: request(wildcards, threads, attempt)[2]


def job_runtime(rule, model=lambda wc: MODELS.get(wc.get("model"))):
    """runtime (minutes) of a job of ``rule`` (models of several: the sum of their times)."""
    request = _request(rule, model)
    return lambda wildcards, threads, attempt: request(wildcards, threads, attempt)[1]


# the matmul rates of this machine, measured once by measure_matmul; precision auto decides on them
MATMUL_RATES = "resources/machine/matmul_rates.json"


def machine_rates_input(wildcards):
    """The extraction's record of this machine's matmul rates (none needed for fp32)."""
    return [] if config["precision"] == "fp32" else MATMUL_RATES


# corpora whose shards are extracted before everything else: the .smk files of long map readers add
# theirs (e.g. the probes' treebanks, ~2.5 min of training), so that such a reader does not end the run alone
EARLY_CORPORA = set()


def extraction_priority(wildcards):
    """extract_attention's priority: above the fine-tuning chain (30) for EARLY_CORPORA; within a
    corpus the shards in order (a reader of shard k may wait for the headers of shards < k, as
    surface_sums does: extracted out of order, several shards would sit on disk at once)."""
    return (35 if wildcards.corpus in EARLY_CORPORA else 0) - int(wildcards.shard) / 100


def maps_file(path):
    """A map shard's array: deleted once every job that reads it is done (the maps are the
    workflow's largest files), unless config keep_maps; a later target re-extracts it."""
    return path if config["keep_maps"] else temp(path)
