# What a reader looks at first: the claim scorecard (config/paper_claims.yaml evaluated on each
# model's tables), the attention-map explorer, and (with several models) the models side by side.


from analysis.scorecard.claims import read_claims
from analysis.scorecard.evaluate import tables_read as claim_tables

# The claim scorecard and the comparison (rules/overview.smk): which tables the claims of
# config/paper_claims.yaml read, and which of them this workflow makes.
CLAIMS_FILE = config["overview"]["claims"]
_CLAIMS = read_claims(CLAIMS_FILE, trainings=config["trainings"])
CLAIM_TABLES = sorted({stem for claim in _CLAIMS for stem in claim_tables(claim)})
# what the random-init control must make: the tables of the claims that read attention maps
CONTROL_TABLES = sorted({stem for claim in _CLAIMS if claim.get("reads_maps") for stem in claim_tables(claim)})
_SECTION_TARGETS = []


def section_targets():
    """Every file the paper sections' aggregate rules ask for (every model): the tables a claim
    can read. Computed on first use, when every rule is defined."""
    if not _SECTION_TARGETS:
        for name in SECTIONS:
            if name != "overview":
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


SCORECARD_CATEGORY = "0. Claim scorecard (start here)"  # the report lists categories sorted: this one first


rule scorecard:
    """Every claim of config/paper_claims.yaml on the model's tables: our value, the paper's,
    the verdict (holds / does not hold / not applicable / not run) and why."""
    input:
        claims=CLAIMS_FILE,
        tables=scorecard_tables,
        control_tables=scorecard_control_tables,
        replicate_tables=scorecard_replicate_tables,
    output:
        table=table("scorecard"),
        figure=figure("scorecard", category=SCORECARD_CATEGORY),
        page=report(
            "results/{model}/scorecard.html",
            caption="../report/scorecard.page.rst",
            category=SCORECARD_CATEGORY,
            subcategory="{model}",
        ),
        markdown="results/{model}/scorecard.md",
    log:
        rule_log("scorecard"),
    benchmark:
        rule_benchmark("scorecard")
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("scorecard"),
        runtime=job_runtime("scorecard"),
    params:
        rules_left_out=scorecard_rules_left_out(),
    script:
        "../workflow/scorecard.py"


rule explorer_maps:
    """The explorer's example maps of one shard, read as soon as the shard exists (so it can be
    deleted): its share of the examples, 8-bit codes, compressed, with their tokens."""
    input:
        shard=f"resources/attention/{{model}}/{config['overview']['explorer']['corpus']}/shard-{{shard}}.npy",
    output:
        maps="resources/explorer/{model}/shard-{shard}.json",
    log:
        rule_log("explorer_maps", "{shard}"),
    benchmark:
        rule_benchmark("explorer_maps", "{shard}")
    priority: 50
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("explorer_maps"),
        runtime=job_runtime("explorer_maps"),
    params:
        n_examples=config["overview"]["explorer"]["n_examples"],
        n_shards=CORPORA[config["overview"]["explorer"]["corpus"]]["n_shards"],
    script:
        "../workflow/explorer_maps.py"


rule explorer:
    """results/<model>/explorer.html: a static page to browse example maps (any layer and head,
    hover for the weight), every head's thumbnail, and each head's corpus-level numbers."""
    input:
        maps=expand(
            rules.explorer_maps.output.maps,
            shard=range(CORPORA[config["overview"]["explorer"]["corpus"]]["n_shards"]),
            allow_missing=True,
        ),
        relative_position=rules.relative_position.output.table,
        special_tokens=rules.special_tokens.output.table,
        entropy=rules.entropy.output.table,
        dep_full=(
            [table("dep_heads", "full", config["overview"]["explorer"]["dep_corpus"])]
            if config["overview"]["explorer"]["dep_corpus"]
            else []
        ),
    output:
        page="results/{model}/explorer.html",
    log:
        rule_log("explorer"),
    benchmark:
        rule_benchmark("explorer")
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("explorer"),
        runtime=job_runtime("explorer"),
    params:
        min_count=config["clark_syntax"]["min_count"],
        max_mb=config["overview"]["explorer"]["max_mb"],
    script:
        "../workflow/explorer.py"


COMPARE_PANELS = config["overview"]["compare"]["panels"]
COMPARE_INPUTS = {
    "special_tokens": [table("special_tokens", "by_layer")],
    "entropy": [table("entropy", "by_layer")],
    "dep_heads": [table("dep_heads", config["overview"]["compare"]["dep_corpus"])],
    "coref": [table("coref_heads")],
    "probes": [table("probes")],
    "scorecard": [table("scorecard")],
}


rule compare:
    """The configured models side by side: special tokens and entropy by relative depth,
    best-head accuracy per relation, coreference head vs baselines, probe UAS, scorecard."""
    input:
        **{p: per_model(*COMPARE_INPUTS[p]) for p in COMPARE_PANELS},
    output:
        **{f"figure_{p}": compare_figure(p) for p in COMPARE_PANELS},
        **{f"table_{p}": f"results/compare/tables/compare.{p}.csv" for p in COMPARE_PANELS},
    log:
        "logs/compare.log",
    benchmark:
        "benchmarks/compare.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("compare"),
        runtime=job_runtime("compare"),
    params:
        models=CONFIGURED,
        panels=COMPARE_PANELS,
    script:
        "../workflow/compare.py"


rule overview:
    """The scorecard and the explorer of every model; with several models, the comparison."""
    input:
        per_model(
            rules.scorecard.output.table,
            rules.scorecard.output.figure,
            rules.scorecard.output.page,
            rules.scorecard.output.markdown,
            rules.explorer.output.page,
        ),
        rules.compare.output if len(CONFIGURED) > 1 else [],
