# Shared by every rules/*.smk: the configured models and corpora, and how outputs are named.
#
# Naming: every file a rule writes starts with the rule's name, then "." (no rule name has
# one), then the parts that tell its files apart:
#   results/{model}/tables/<rule>[.<part>...].csv    tables (one beside every figure, same stem)
#   results/{model}/figures/<rule>[.<part>...].png   figures
#   results/{model}/tables/<rule>[.<part>...].json   sidecars (counts, run info)
#   logs/{model}/<rule>[.<part>...].log, benchmarks/{model}/<rule>[.<part>...].tsv
# so the rule (and workflow/<rule>.py) behind any file is found from its name.

import os
import re

import yaml

from analysis.core.config_defaults import refuse
from analysis.core.model_families import check_encoder, local_layers, model_config
from analysis.core.model_names import check_model_spec, control_draws, control_slug, model_slug, training_slug
from analysis.core.sources import local_files

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
        refuse(
            f"model: {MODELS[model_slug(_spec)]!r} and {_spec!r} would both write to results/{model_slug(_spec)}/; "
            "rename the local directory (its name is the slug)"
        )
    # a missing directory, a decoder or an encoder-decoder is refused here, in one line, before any job runs
    try:
        MODELS[model_slug(_spec)] = check_encoder(check_model_spec(_spec))
    except ValueError as _refusal:  # UnsupportedModel included
        refuse(str(_refusal))
# the user's models: every aggregate target is made for each of them
CONFIGURED = list(MODELS)
# model slug -> the slug of its random-init control (overview.random_init_control): the same config and
# tokenizer with seeded random weights, run only through the rules whose tables the claims that read
# attention maps read (reads_maps: true in the claims file); MODELS holds the controls' specs too
# (a random-init model's own control is another random draw: model_names.control_draws); with
# random_init.draws > 1, more draws (slugs <slug>--random-init-2, ...): slug -> the draws' slugs
CONTROLS = {}
if config["overview"]["random_init_control"]:
    for _slug, _spec in list(MODELS.items()):
        _draws = control_draws(_spec, config["random_init"]["seed"], config["random_init"]["draws"])
        CONTROLS[_slug] = [control_slug(_slug, d) for d in range(1, len(_draws) + 1)]
        for _control, _draw in zip(CONTROLS[_slug], _draws):
            if MODELS.get(_control, _draw) != _draw:
                refuse(
                    f"model: the random-init control of {_spec!r} ({_draw!r}) would take the slug {_control!r} "
                    f"of the configured model {MODELS[_control]!r}; list that model with random_init.seed's "
                    "seed, or leave it out (the control is run anyway)"
                )
            MODELS[_control] = _draw
# Training runs (config trainings: per family): training run r = 1, 2, ... of a user's model
# is the same model (same spec, weights and inputs) with every training seed + r (training_seed), run
# only through the rules whose tables the claims of the families with more than r trainings read; the
# scorecard pools the replicates' tables into the claims' intervals. slug -> its replicates' slugs
TRAINING_RUNS = {}
TRAINING_INDEX = {}  # replicate slug -> r
TRAINING_OF = {}  # replicate slug -> its model's slug (the same weights: the same pre-trained maps)
for _slug in CONFIGURED:
    TRAINING_RUNS[_slug] = [training_slug(_slug, r) for r in range(1, max(config["trainings"].values(), default=1))]
    for _r, _rep in enumerate(TRAINING_RUNS[_slug], start=1):
        MODELS[_rep], TRAINING_INDEX[_rep], TRAINING_OF[_rep] = MODELS[_slug], _r, _slug
MIRROR = os.environ.get("ATTN_MIRROR") or config["mirror"]
CORPORA = config["corpora"]
CONDA_ENV = "../envs/attention.yaml"  # every rule's software (--sdm conda); relative to rules/

# scored corpus -> the corpus its Table 1 choice is made on (clark_syntax.select_on; docs/clark-syntax.md)
SELECT_ON = {k: v for k, v in (config["clark_syntax"]["select_on"] or {}).items() if v is not None}
for _scored, _on in SELECT_ON.items():
    if _scored not in CORPORA or _on not in CORPORA:
        refuse(f"clark_syntax.select_on: {_scored}: {_on}: both must be corpora (known: {', '.join(CORPORA)})")
    if _on == _scored:
        refuse(
            f"clark_syntax.select_on: {_scored} is chosen on itself: that is the in-sample choice the table "
            "already has (columns accuracy); name another corpus, or null"
        )


def selection_table(kind):
    """The selection corpus's dep_heads table ``kind`` (full, baselines) for the rule's corpus, or
    none (an input function)."""

    def inner(wildcards):
        on = SELECT_ON.get(wildcards.corpus)
        return [] if on is None else table("dep_heads", kind, on).format(model=wildcards.model)

    return inner


wildcard_constraints:
    model="|".join(map(re.escape, MODELS)) if MODELS else "NONE",
    corpus="|".join(map(re.escape, CORPORA)),
    shard=r"\d+",


def model_spec(wildcards):
    return MODELS[wildcards.model]


def local_layers_of(wildcards):
    """The model's local (sliding-window) layers, 1-indexed, from its config.json (a params function)."""
    return local_layers(model_config(MODELS[wildcards.model]))


def training_seed(*keys):
    """The seed ``config[keys...]["seed"]`` of a rule that trains or draws for a model (a params
    function): + r in training run r of the model."""
    section = config
    for key in keys:
        section = section[key]
    return lambda wildcards: section["seed"] + TRAINING_INDEX.get(wildcards.model, 0)


def _stem(rule, parts):
    return ".".join([rule, *parts])


def table(rule, *parts):
    """results/{model}/tables/<rule>[.<part>...].csv"""
    return f"results/{{model}}/tables/{_stem(rule, parts)}.csv"


def sidecar(rule, *parts):
    """results/{model}/tables/<rule>[.<part>...].json (counts, run info)"""
    return f"results/{{model}}/tables/{_stem(rule, parts)}.json"


def units(rule, *parts):
    """resources/units/{model}/<rule>[.<part>...].npz: the per-unit tallies a rule's replicates are
    sums of (read by tools/measure/own_calibration.py)"""
    return f"resources/units/{{model}}/{_stem(rule, parts)}.npz"


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
