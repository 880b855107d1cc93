# Is attention explanation? Serrano & Smith 2019 (erasure), Jain & Wallace 2019
# (permutation, adversarial attention, rank agreement) on SST-2 attention classifiers,
# and the erasure tests on the transformer's own [CLS] attention row.

EXPLANATION = config["explanation"]
EXPLANATION_CATEGORY = "Attention as explanation"
GLUE_SUMS = "resources/raw/glue/SHA256SUMS"
ATTN_CLASSIFIERS = "resources/explanation/{model}/attn_classifiers.pt"


rule attn_classifiers:
    """Train encoder -> additive attention -> linear classifiers on SST-2 (seeded); dev accuracy."""
    input:
        GLUE_SUMS,
    output:
        model=ATTN_CLASSIFIERS,
        table=table("attn_classifiers"),
    params:
        spec=model_spec,
        cfg=EXPLANATION,
        max_len=config["max_len"],
    threads: 2
    resources:
        gpu=1,
        mem_mb=8000,
        runtime=30,
    log:
        rule_log("attn_classifiers"),
    benchmark:
        "benchmarks/{model}/attn_classifiers.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/attn_classifiers.py"


rule erasure:
    """Single-weight and set erasure (Serrano & Smith 2019) for every attention classifier."""
    input:
        model=ATTN_CLASSIFIERS,
        glue=GLUE_SUMS,
    output:
        single=table("erasure_single"),
        sets=table("erasure_set"),
        summary=table("erasure_summary"),
        fig_single=figure("erasure_single", EXPLANATION_CATEGORY),
        fig_set=figure("erasure_set", EXPLANATION_CATEGORY),
    params:
        spec=model_spec,
        cfg=EXPLANATION,
    threads: 1
    resources:
        gpu=1,
        mem_mb=4000,
        runtime=20,
    log:
        rule_log("erasure"),
    benchmark:
        "benchmarks/{model}/erasure.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/erasure.py"


rule erasure_cls:
    """The erasure tests on the transformer's own attention: one layer's [CLS] row, heads averaged."""
    input:
        model=ATTN_CLASSIFIERS,
        glue=GLUE_SUMS,
    output:
        single=table("erasure_cls_single"),
        sets=table("erasure_cls_set"),
        summary=table("erasure_cls_summary"),
        fig_single=figure("erasure_cls_single", EXPLANATION_CATEGORY),
        fig_set=figure("erasure_cls_set", EXPLANATION_CATEGORY),
    params:
        spec=model_spec,
        cfg=EXPLANATION,
    threads: 1
    resources:
        gpu=1,
        mem_mb=4000,
        runtime=20,
    log:
        rule_log("erasure_cls"),
    benchmark:
        "benchmarks/{model}/erasure_cls.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/erasure_cls.py"


rule permutation:
    """Permute the attention weights (Jain & Wallace 2019): median output change vs max attention."""
    input:
        model=ATTN_CLASSIFIERS,
        glue=GLUE_SUMS,
    output:
        table=table("permutation"),
        figure=figure("permutation", EXPLANATION_CATEGORY),
    params:
        spec=model_spec,
        cfg=EXPLANATION,
    threads: 1
    resources:
        gpu=1,
        mem_mb=4000,
        runtime=20,
    log:
        rule_log("permutation"),
    benchmark:
        "benchmarks/{model}/permutation.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/permutation.py"


rule adversarial:
    """Adversarial attention (Jain & Wallace 2019): max JSD from the original with output change <= tolerance."""
    input:
        model=ATTN_CLASSIFIERS,
        glue=GLUE_SUMS,
    output:
        table=table("adversarial"),
        figure=figure("adversarial", EXPLANATION_CATEGORY),
    params:
        spec=model_spec,
        cfg=EXPLANATION,
    threads: 1
    resources:
        gpu=1,
        mem_mb=4000,
        runtime=20,
    log:
        rule_log("adversarial"),
    benchmark:
        "benchmarks/{model}/adversarial.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/adversarial.py"


rule rank_agreement:
    """Kendall tau between attention and gradient / leave-one-out importance (Jain & Wallace 2019)."""
    input:
        model=ATTN_CLASSIFIERS,
        glue=GLUE_SUMS,
    output:
        table=table("rank_agreement"),
        figure=figure("rank_agreement", EXPLANATION_CATEGORY),
    params:
        spec=model_spec,
        cfg=EXPLANATION,
    threads: 1
    resources:
        gpu=1,
        mem_mb=4000,
        runtime=20,
    log:
        rule_log("rank_agreement"),
    benchmark:
        "benchmarks/{model}/rank_agreement.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/rank_agreement.py"


ALL_TARGETS.extend(
    per_model(
        table("attn_classifiers"),
        table("erasure_summary"),
        table("erasure_cls_summary"),
        table("permutation"),
        table("adversarial"),
        table("rank_agreement"),
    )
)
