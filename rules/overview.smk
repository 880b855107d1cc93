# What a reader looks at first: the claim scorecard (config/paper_claims.yaml evaluated on each
# model's tables), the attention-map explorer, and (with several models) the models side by side.

import glob

SCORECARD_CATEGORY = "Claim scorecard"  # sorts before every "Clark ..." category of the report
CLAIMS_FILE = config["overview"]["claims"]
with open(CLAIMS_FILE) as f:
    CLAIM_TABLES = sorted(
        {
            spec["table"]
            for claim in yaml.safe_load(f)["claims"]
            for check in (claim["check"], claim.get("applies_if") or {})
            for spec in ([check["value"]] if "value" in check else check.get("greater", []))
        }
    )
SECTIONS = sorted(os.path.basename(p)[: -len(".smk")] for p in glob.glob(os.path.join(workflow.basedir, "rules", "*.smk")))
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
    paths = {stem: f"results/{wildcards.model}/tables/{stem}.csv" for stem in CLAIM_TABLES}
    return [p for stem, p in paths.items() if stem.split(".")[0] not in left_out and p in section_targets()]


rule scorecard:
    """Every claim of config/paper_claims.yaml on the model's tables: our value, the paper's,
    the verdict (holds / does not hold / not applicable / not run) and why."""
    input:
        claims=CLAIMS_FILE,
        tables=scorecard_tables,
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
    conda:
        CONDA_ENV
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        rules_left_out=scorecard_rules_left_out(),
    script:
        "../scripts/scorecard.py"


rule explorer:
    """results/<model>/explorer.html: a static page to browse example maps (any layer and head,
    hover for the weight), every head's thumbnail, and each head's corpus-level numbers."""
    input:
        shards=attention_shards(config["overview"]["explorer"]["corpus"]),
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
    conda:
        CONDA_ENV
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        n_examples=config["overview"]["explorer"]["n_examples"],
        max_mb=config["overview"]["explorer"]["max_mb"],
        min_count=config["dependency"]["min_count"],
    script:
        "../scripts/explorer.py"


COMPARE_PANELS = config["overview"]["compare"]["panels"]
COMPARE_INPUTS = {
    "special_tokens": [table("special_tokens", "by_layer")],
    "entropy": [table("entropy", "by_layer")],
    "dep_heads": [table("dep_heads", config["overview"]["compare"]["dep_corpus"])],
    "coref": [table("coref_heads")],
    "probes": [table("probes")],
    "scorecard": [table("scorecard")],
}


def compare_figure(panel):
    return report(
        f"results/compare/figures/compare.{panel}.png",
        caption=f"../report/compare.{panel}.rst",
        category="Models side by side",
    )


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
    conda:
        CONDA_ENV
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        models=list(MODELS),
        panels=COMPARE_PANELS,
    script:
        "../scripts/compare.py"


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
        rules.compare.output if len(MODELS) > 1 else [],
