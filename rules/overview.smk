# What a reader looks at first: the claim scorecard (config/claims/*.yaml evaluated on each
# model's tables), the attention-map explorer, and (with several models) the models side by side.


SCORECARD_CATEGORY = "0. Claim scorecard (start here)"  # the report lists categories sorted: this one first


rule scorecard:
    """Every claim of config/claims/ (overview.claims) on the model's tables: our value, the paper's,
    the verdict (one of analysis.scorecard.evaluate.VERDICTS) and why."""
    input:
        unpack(scorecard_inputs),
        claims=CLAIMS_FILES,
        # the seed reference, where the file exists (none: no claim is widened for the seed)
        seed_reference=seed_reference_input,
        # the control reference, where the file exists (none: no spread test on one control draw)
        control_reference=control_reference_input,
        # the calibrated tails, where the file exists (none: every claim at the nominal 2.5% a side)
        calibrated_tails=calibrated_tails_input,
    output:
        table=table("scorecard"),
        # our_value's numbers at full precision, one per claim, level and position
        values=table("scorecard", "values"),
        # every claim's named numbers (value, threshold, bounds, p, units, seeds): tools/docs/scorecard_readme.py
        terms=table("scorecard", "terms"),
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
        registry=CLAIM_TABLES,
        runs=scorecard_runs,
        seed_reference=config["overview"]["seed_reference"],
        control_reference=config["overview"]["control_reference"],
        calibrated_tails=config["overview"]["calibrated_tails"],
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
        dep_corpus=config["overview"]["compare"]["dep_corpus"],
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
