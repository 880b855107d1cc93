# Shared by every rules/*.smk: the configured models and corpora, and how outputs are named.
#
# Naming: every file a rule writes starts with the rule's name, then "." (no rule name has
# one), then the parts that tell its files apart:
#   results/{model}/tables/<rule>[.<part>...].csv    tables (one beside every figure, same stem)
#   results/{model}/figures/<rule>[.<part>...].png   figures
#   results/{model}/tables/<rule>[.<part>...].json   sidecars (counts, run info)
#   logs/{model}/<rule>[.<part>...].log, benchmarks/{model}/<rule>[.<part>...].tsv
# so the rule (and workflow/<rule>.py) behind any file is found from its name.

import glob
import os
import re

import yaml

from analysis.core import resources as sizing
from analysis.core.model_names import check_model_spec, control_spec, is_control, model_slug, replicate_slug
from analysis.core.sources import local_files
from analysis.scorecard.claims import read_claims
from analysis.scorecard.evaluate import tables_read as claim_tables

# every source file with its upstream URL and sha256 (config["sources_file"], checked against its schema)
with open(config["sources_file"]) as f:
    SOURCES_FILE = yaml.safe_load(f)
validate(SOURCES_FILE, os.path.join(workflow.basedir, "config/schema/sources.schema.yaml"))
# + the user's local sources (path: a directory, file or glob; no URL, no checksum to write), which
# take the place of a source of the same name
SOURCES = {**SOURCES_FILE["sources"], **{n: {"path": p} for n, p in config["local_sources"].items()}}
LOCAL_SOURCES = [n for n, s in SOURCES.items() if "path" in s]

# model slug (the {model} wildcard) -> model spec
MODELS = {}
for _spec in [config["model"]] if isinstance(config["model"], str) else config["model"]:
    # two models never share results/<slug>/: e.g. a hub id and a local directory of the same name
    if model_slug(_spec) in MODELS:
        raise ValueError(
            f"model: {MODELS[model_slug(_spec)]!r} and {_spec!r} would both write to results/{model_slug(_spec)}/; "
            "rename the local directory (its name is the slug)"
        )
    MODELS[model_slug(_spec)] = check_model_spec(_spec)
# the user's models: every aggregate target is made for each of them
CONFIGURED = list(MODELS)
# model slug -> the slug of its random-init control (overview.random_init_control): the same config and
# tokenizer with seeded random weights, run only through the rules whose tables the claims that read
# attention maps read (reads_maps: true in the claims file); MODELS holds the controls' specs too
CONTROLS = {}
if config["overview"]["random_init_control"]:
    for _slug, _spec in list(MODELS.items()):
        if not is_control(_spec):
            CONTROLS[_slug] = model_slug(control_spec(_spec))
            MODELS[CONTROLS[_slug]] = control_spec(_spec)
# Training replicates (config trainings: per family): replicate r = 1, 2, ... of a user's model
# is the same model (same spec, weights and inputs) with every training seed + r (training_seed), run
# only through the rules whose tables the claims of the families with more than r trainings read; the
# scorecard pools the replicates' tables into the claims' intervals. slug -> its replicates' slugs
REPLICATES = {}
REPLICATE_INDEX = {}  # replicate slug -> r
for _slug in CONFIGURED:
    REPLICATES[_slug] = [replicate_slug(_slug, r) for r in range(1, max(config["trainings"].values(), default=1))]
    for _r, _rep in enumerate(REPLICATES[_slug], start=1):
        MODELS[_rep], REPLICATE_INDEX[_rep] = MODELS[_slug], _r
MIRROR = os.environ.get("ATTN_MIRROR") or config["mirror"]
CORPORA = config["corpora"]
CONDA_ENV = "../envs/attention.yaml"  # every rule's software (--sdm conda); relative to rules/


wildcard_constraints:
    model="|".join(map(re.escape, MODELS)) if MODELS else "NONE",
    corpus="|".join(map(re.escape, CORPORA)),
    shard=r"\d+",


def model_spec(wildcards):
    return MODELS[wildcards.model]


def training_seed(*keys):
    """The seed ``config[keys...]["seed"]`` of a rule that trains or draws for a model (a params
    function): + r in training replicate r of the model."""
    section = config
    for key in keys:
        section = section[key]
    return lambda wildcards: section["seed"] + REPLICATE_INDEX.get(wildcards.model, 0)


def _stem(rule, parts):
    return ".".join([rule, *parts])


def table(rule, *parts):
    """results/{model}/tables/<rule>[.<part>...].csv"""
    return f"results/{{model}}/tables/{_stem(rule, parts)}.csv"


def sidecar(rule, *parts):
    """results/{model}/tables/<rule>[.<part>...].json (counts, run info)"""
    return f"results/{{model}}/tables/{_stem(rule, parts)}.json"


def figure(rule, *parts, category, caption=None):
    """results/{model}/figures/<rule>[.<part>...].png, in the report with the caption
    report/<rule>[.<part>...].rst (wildcard parts left out of the caption's name)."""
    fixed = [p for p in parts if "{" not in p]
    return report(
        f"results/{{model}}/figures/{_stem(rule, parts)}.png",
        caption=caption or f"../report/{_stem(rule, fixed)}.rst",
        category=category,
        subcategory="{model}",
    )


def rule_log(rule, *parts):
    return f"logs/{{model}}/{_stem(rule, parts)}.log"


def rule_benchmark(rule, *parts):
    return f"benchmarks/{{model}}/{_stem(rule, parts)}.tsv"


def raw_sums(source):
    """The checksum list of a fetched source; it stands for all its files. A URL / mirror source:
    its SHA256SUMS, written by fetch_source. A local (path:) source: SHA256SUMS.verified, written by
    verify_local_source after comparing the user's files with the SHA256SUMS of their first use."""
    if source in LOCAL_SOURCES:
        return f"resources/raw/{source}/SHA256SUMS.verified"
    return f"resources/raw/{source}/SHA256SUMS"


def local_source_files(wildcards):
    """The user's files of a local source (a change of one reruns verify_local_source)."""
    return [str(p) for p in local_files(SOURCES[wildcards.source]["path"], wildcards.source).values()]


GLUE_RAW = raw_sums("glue")


def inputs_of(corpus, ext="jsonl"):
    """The prepared inputs of ``corpus``, made by prepare_inputs: records (jsonl) or counts (counts.json)."""
    return f"resources/inputs/{{model}}/{corpus}.{ext}"


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
        asks = [sizing.job_request(rule, s, config, wc, threads, attempt, counted) for s in shapes]
        return max(a[0] for a in asks), sum(a[1] for a in asks)

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


def attention_shards(corpus):
    """The .npy files of every shard of ``corpus`` for the rule's {model} (an input function)."""

    def inner(wildcards):
        return expand(
            "resources/attention/{model}/{corpus}/shard-{shard}.npy",
            model=wildcards.model,
            corpus=corpus,
            shard=range(CORPORA[corpus]["n_shards"]),
        )

    return inner


def surface_sums(wildcards):
    """Every wiki shard's sums (written by surface_sums in clark_surface.smk) for {model}."""
    return expand(
        "resources/surface_sums/{model}/shard-{shard}.npz",
        model=wildcards.model,
        shard=range(CORPORA["wiki"]["n_shards"]),
    )


def per_model(*outputs, **wildcards):
    """Expand output patterns (e.g. ``rules.X.output.figure``) over every configured model."""
    return expand(list(outputs), model=CONFIGURED, **wildcards)


# The claim scorecard and the comparison (rules/overview.smk): which tables the claims of
# config/paper_claims.yaml read, and which of them this workflow makes.
CLAIMS_FILE = config["overview"]["claims"]
_CLAIMS = read_claims(CLAIMS_FILE, trainings=config["trainings"])
CLAIM_TABLES = sorted({stem for claim in _CLAIMS for stem in claim_tables(claim)})
# what the random-init control must make: the tables of the claims that read attention maps
CONTROL_TABLES = sorted({stem for claim in _CLAIMS if claim.get("reads_maps") for stem in claim_tables(claim)})
SECTIONS = sorted(
    os.path.basename(p)[: -len(".smk")] for p in glob.glob(os.path.join(workflow.basedir, "rules", "*.smk"))
)
_SECTION_TARGETS = []


def section_targets():
    """Every file the paper sections' aggregate rules ask for (every model): the tables a claim
    can read. Computed on first use, when every rule is defined."""
    if not _SECTION_TARGETS:
        for name in SECTIONS:
            if name not in ("common", "spine", "overview") and rules.has(name):
                _SECTION_TARGETS.extend(str(f) for f in getattr(rules, name).input)
    return set(_SECTION_TARGETS)


def scorecard_rules_left_out():
    chosen = config["overview"]["scorecard_rules"]
    return [] if chosen is None else sorted({t.split(".")[0] for t in CLAIM_TABLES} - set(chosen))


def scorecard_tables(wildcards):
    """The claims' tables this workflow makes for the model, of the rules chosen in
    overview.scorecard_rules (null: all); claims on any other table are 'not run'."""
    left_out = set(scorecard_rules_left_out())
    # each table, and its replicates (<stem>.boot.csv, for the claims' intervals) where its rule makes them
    paths = [
        f"results/{wildcards.model}/tables/{stem}{suffix}.csv"
        for stem in CLAIM_TABLES
        if stem.split(".")[0] not in left_out
        for suffix in ("", ".boot")
    ]
    return [p for p in paths if p in section_targets()]


def scorecard_control_tables(wildcards):
    """The random-init control's tables of the claims that read attention maps (none without a control)."""
    if wildcards.model not in CONTROLS:
        return []
    chosen = {os.path.basename(p)[: -len(".csv")] for p in scorecard_tables(wildcards)}
    control = f"results/{CONTROLS[wildcards.model]}/tables"
    return [f"{control}/{stem}.csv" for stem in CONTROL_TABLES if stem in chosen] + [
        f"{control}/{stem}.boot.csv" for stem in CONTROL_TABLES if f"{stem}.boot" in chosen
    ]


# tables no training changes (read by a claim on no training, e.g. the [SEP] premise of the gradient claim)
UNTRAINED_TABLES = {stem for claim in _CLAIMS if not claim.get("trained") for stem in claim_tables(claim)}


def replicated_tables(r):
    """The tables training replicate ``r`` makes: those of the claims whose training family
    (``trained:`` in the claims file) has more than ``r`` trainings (config trainings)."""
    families = {family for family, n in config["trainings"].items() if n > r}
    trained = {stem for claim in _CLAIMS if claim.get("trained") in families for stem in claim_tables(claim)}
    return sorted(trained - UNTRAINED_TABLES)


def scorecard_replicate_tables(wildcards):
    """The training replicates' tables (and replicate tables) of the claims trained in them."""
    chosen = {os.path.basename(p)[: -len(".csv")] for p in scorecard_tables(wildcards)}
    return [
        f"results/{rep}/tables/{name}.csv"
        for rep in REPLICATES.get(wildcards.model, [])
        for stem in replicated_tables(REPLICATE_INDEX[rep])
        for name in (stem, f"{stem}.boot")
        if name in chosen
    ]


def compare_figure(panel):
    return report(
        f"results/compare/figures/compare.{panel}.png",
        caption=f"../report/compare.{panel}.rst",
        category="Models side by side",
    )
