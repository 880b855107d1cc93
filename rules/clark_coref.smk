# Clark et al. 2019 sec. 4.3, Table 2: which heads select a mention's antecedent (+ GAP, an extra).


rule coref_heads:
    """Antecedent selection accuracy per head and mention type, with the three baselines (Clark Table 2)."""
    input:
        shards=attention_shards(config["clark_coref"]["corpus"]),
        counts=inputs_of(config["clark_coref"]["corpus"], "counts.json"),
        paper=config["clark_coref"]["paper_numbers"],
    output:
        table=claim_table("coref_heads", unit="mention", cluster="document", reads_maps=True),
        boot=table("coref_heads", "boot"),
        per_head=table("coref_heads", "per_head"),
        counts=sidecar("coref_heads", "counts"),
        figure=figure("coref_heads", category="Clark sec. 4 (coreference)"),
        units=units("coref_heads"),
    log:
        rule_log("coref_heads"),
    benchmark:
        rule_benchmark("coref_heads")
    # reads maps: run as soon as they exist (temp maps are then deleted; the long ones start early)
    priority: 40
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("coref_heads"),
        runtime=job_runtime("coref_heads"),
    params:
        how=config["clark_coref"]["how"],
        same_head_fallback=config["clark_coref"]["same_head_fallback"],
        corpus=config["clark_coref"]["corpus"],
        bootstrap=config["bootstrap"],
    script:
        "../workflow/coref_heads.py"


if config["clark_coref"]["gap_corpus"]:

    rule gap_heads:
        """Extra: GAP pronoun -> name accuracy per head, by pronoun gender, with distance baselines."""
        input:
            shards=attention_shards(config["clark_coref"]["gap_corpus"]),
            counts=inputs_of(config["clark_coref"]["gap_corpus"], "counts.json"),
        output:
            table=table("gap_heads"),
            per_head=table("gap_heads", "per_head"),
            counts=sidecar("gap_heads", "counts"),
            figure=figure("gap_heads", category="Clark sec. 4 (coreference)"),
        log:
            rule_log("gap_heads"),
        # reads maps: run as soon as they exist (temp maps are then deleted; the long ones start early)
        priority: 40
        conda:
            CONDA_ENV
        resources:
            mem_mb=job_mem_mb("gap_heads"),
            runtime=job_runtime("gap_heads"),
        params:
            how=config["clark_coref"]["how"],
            corpus=config["clark_coref"]["gap_corpus"],
        script:
            "../workflow/gap_heads.py"


rule clark_coref:
    """Clark sec. 4.3 coreference: Table 2 (and the GAP extra when clark_coref.gap_corpus is set), figures
    and tables, for every model."""
    input:
        (
            per_model(
                rules.coref_heads.output.figure,
                rules.coref_heads.output.table,
                rules.coref_heads.output.boot,
                rules.coref_heads.output.per_head,
                rules.coref_heads.output.counts,
            )
            if config["clark_coref"]["corpus"] in CORPORA
            else []
        ),
        (
            per_model(
                rules.gap_heads.output.figure,
                rules.gap_heads.output.table,
                rules.gap_heads.output.per_head,
                rules.gap_heads.output.counts,
            )
            if config["clark_coref"]["gap_corpus"] in CORPORA
            else []
        ),
