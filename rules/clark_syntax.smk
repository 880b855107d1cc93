# Clark et al. 2019 sec. 4: heads that track dependency relations (Table 1, Fig. 5 syntax example).


rule dep_heads:
    """Per head, relation and direction: accuracy of 'the most-attended word is the gold
    head / dependent'; best fixed-offset baseline; Table 1 (bars), heat-map grid."""
    input:
        shards=lambda wc: attention_shards(wc.corpus)(wc),
        paper=config["clark_syntax"]["paper_numbers"],
        # the choice of head, offset and directions made on another corpus (clark_syntax.select_on)
        select_full=selection_table("full"),
        select_baselines=selection_table("baselines"),
    output:
        table=claim_table("dep_heads", "{corpus}", unit="sentence", cluster="document", reads_maps=True),
        boot=table("dep_heads", "{corpus}", "boot"),
        full=table("dep_heads", "full", "{corpus}"),
        rare=table("dep_heads", "rare", "{corpus}"),
        baselines=table("dep_heads", "baselines", "{corpus}"),
        grid_table=table("dep_heads", "grid", "{corpus}"),
        counts=sidecar("dep_heads", "counts", "{corpus}"),
        figure=figure("dep_heads", "{corpus}", category="Clark sec. 4 (syntax)"),
        grid=figure("dep_heads", "grid", "{corpus}", category="Clark sec. 4 (syntax)"),
        units=units("dep_heads", "{corpus}"),
    log:
        rule_log("dep_heads", "{corpus}"),
    benchmark:
        rule_benchmark("dep_heads", "{corpus}")
    # reads maps: run as soon as they exist (temp maps are then deleted; the long ones start early)
    priority: 40
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("dep_heads"),
        runtime=job_runtime("dep_heads"),
    params:
        how=config["clark_syntax"]["how"],
        reverse_mode=config["clark_syntax"]["reverse"],
        max_offset=config["clark_syntax"]["max_offset"],
        poss_clitics=config["clark_syntax"]["poss_clitics"],
        min_count=config["clark_syntax"]["min_count"],
        relations=config["clark_syntax"]["relations"],
        select_on=lambda wc: SELECT_ON.get(wc.corpus),
        bootstrap=config["bootstrap"],
    script:
        "../workflow/dep_heads.py"


rule dobj_head_example:
    """The best dobj head's word-level map on one sentence with a direct object (Clark Fig. 5)."""
    input:
        shards=attention_shards(config["clark_syntax"]["example_corpus"]),
        table=expand(
            rules.dep_heads.output.table, corpus=config["clark_syntax"]["example_corpus"], allow_missing=True
        )[0],
    output:
        table=table("dobj_head_example"),
        figure=figure("dobj_head_example", category="Clark sec. 4 (syntax)"),
    log:
        rule_log("dobj_head_example"),
    # reads maps: run as soon as they exist (temp maps are then deleted; the long ones start early)
    priority: 40
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("dobj_head_example"),
        runtime=job_runtime("dobj_head_example"),
    params:
        relation=config["clark_syntax"]["example_relation"],
        direction=config["clark_syntax"]["example_direction"],
        sentence=config["clark_syntax"]["example_sentence"],
        max_words=config["clark_syntax"]["example_max_words"],
        how=config["clark_syntax"]["how"],
    script:
        "../workflow/dobj_head_example.py"


rule clark_syntax:
    """Clark sec. 4 syntax: Table 1 (bars and heat-map grid) on every dependency corpus, and the
    Fig. 5 example head, with their tables, for every model."""
    input:
        per_model(
            rules.dep_heads.output.figure,
            rules.dep_heads.output.table,
            rules.dep_heads.output.boot,
            rules.dep_heads.output.grid,
            rules.dep_heads.output.grid_table,
            rules.dep_heads.output.full,
            rules.dep_heads.output.rare,
            rules.dep_heads.output.baselines,
            rules.dep_heads.output.counts,
            corpus=config["clark_syntax"]["corpora"],
        ),
        per_model(rules.dobj_head_example.output.figure, rules.dobj_head_example.output.table),
