# Clark et al. 2019 sec. 4: heads that track dependency relations (Table 1, Fig. 4).

DEP = config["dependency"]


rule dep_heads:
    """Per head, relation and direction: accuracy of 'the most-attended word is the gold
    head / dependent'; best fixed-offset baseline; Table 1, best-head bars, heat-map grid."""
    input:
        shards=lambda wc: attention_shards(wc.corpus)(wc),
        paper=DEP["paper_numbers"],
    output:
        table=table("dep_heads_{corpus}"),
        full=table("dep_heads_full_{corpus}"),
        rare=table("dep_heads_rare_{corpus}"),
        grid_table=table("dep_heads_grid_{corpus}"),
        baselines=table("dep_heads_baselines_{corpus}"),
        counts="results/{model}/tables/dep_heads_counts_{corpus}.json",
        figure=figure("dep_heads_{corpus}", "Clark sec. 4 (syntax)", caption="../report/dep_heads.rst"),
        grid=figure("dep_heads_grid_{corpus}", "Clark sec. 4 (syntax)", caption="../report/dep_heads_grid.rst"),
    params:
        how=DEP["how"],
        reverse_mode=DEP["reverse"],
        max_offset=DEP["max_offset"],
        min_count=DEP["min_count"],
        relations=DEP["relations"],
    log:
        rule_log("dep_heads_{corpus}"),
    conda:
        CONDA_ENV
    script:
        "../scripts/dep_heads.py"


rule dobj_head_example:
    """The best dobj head's word-level map on one sentence with a direct object (Clark Fig. 4)."""
    input:
        shards=attention_shards(DEP["example_corpus"]),
        table=table(f"dep_heads_{DEP['example_corpus']}"),
    output:
        maps=table("dobj_head_example"),
        figure=figure("dobj_head_example", "Clark sec. 4 (syntax)"),
    params:
        relation=DEP["example_relation"],
        direction=DEP["example_direction"],
        sentence=DEP["example_sentence"],
        max_words=DEP["example_max_words"],
        how=DEP["how"],
    log:
        rule_log("dobj_head_example"),
    conda:
        CONDA_ENV
    script:
        "../scripts/dobj_head_example.py"


ALL_TARGETS.extend(
    per_model(
        *(f"results/{{model}}/figures/dep_heads{kind}_{c}.png" for c in DEP["corpora"] for kind in ("", "_grid")),
        "results/{model}/figures/dobj_head_example.png",
    )
)
