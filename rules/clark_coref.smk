# Clark et al. 2019 sec. 4.3, Table 2: which heads select a mention's antecedent.

COREF = config.get("coref", {})
COREF_CORPUS = COREF.get("corpus", "ontogum_dev")


rule coref_heads:
    """Antecedent selection accuracy per head and mention type, with the three baselines."""
    input:
        shards=attention_shards(COREF_CORPUS),
        counts=f"resources/inputs/{{model}}/{COREF_CORPUS}.counts.json",
        paper=COREF.get("paper_numbers", "config/paper_numbers/clark_table2.csv"),
    output:
        table=table("coref_heads"),
        per_head=table("coref_heads_per_head"),
        counts="results/{model}/tables/coref_heads.counts.json",
        figure=figure("coref_heads", "Clark sec. 4 (coreference)"),
    params:
        how=COREF.get("how", "mean"),
        corpus=COREF_CORPUS,
    resources:
        mem_mb=4000,
        runtime=30,
    log:
        rule_log("coref_heads"),
    conda:
        CONDA_ENV
    script:
        "../scripts/coref_heads.py"


if COREF_CORPUS in CORPORA:
    ALL_TARGETS.extend(per_model(table("coref_heads"), "results/{model}/figures/coref_heads.png"))


GAP_CORPUS = COREF.get("gap_corpus")


if GAP_CORPUS:

    rule gap_heads:
        """Extra: GAP pronoun -> name accuracy per head, by pronoun gender, with distance baselines."""
        input:
            shards=attention_shards(GAP_CORPUS),
            counts=f"resources/inputs/{{model}}/{GAP_CORPUS}.counts.json",
        output:
            table=table("gap_heads"),
            per_head=table("gap_heads_per_head"),
            counts="results/{model}/tables/gap_heads.counts.json",
            figure=figure("gap_heads", "Clark sec. 4 (coreference)"),
        params:
            how=COREF.get("how", "mean"),
            corpus=GAP_CORPUS,
        resources:
            mem_mb=4000,
            runtime=30,
        log:
            rule_log("gap_heads"),
        conda:
            CONDA_ENV
        script:
            "../scripts/gap_heads.py"


if GAP_CORPUS and GAP_CORPUS in CORPORA:
    ALL_TARGETS.extend(per_model(table("gap_heads"), "results/{model}/figures/gap_heads.png"))
