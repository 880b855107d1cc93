# Is attention explanation? Serrano & Smith 2019 (erasure), Jain & Wallace 2019
# (permutation, adversarial attention, rank agreement) on SST-2 attention classifiers,
# and the erasure tests on the transformer's own [CLS] attention row.

EXPLANATION_CATEGORY = "Attention as explanation"


rule attn_classifiers:
    """Train encoder -> additive attention -> linear classifiers on SST-2 (seeded); dev accuracy."""
    input:
        GLUE_RAW,
    output:
        model="resources/explanation/{model}/attn_classifiers.pt",
        table=table("attn_classifiers"),
        device=sidecar("attn_classifiers", "device"),  # the device it ran on
    log:
        rule_log("attn_classifiers"),
    benchmark:
        rule_benchmark("attn_classifiers")
    conda:
        CONDA_ENV
    threads: JOB_THREADS
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("attn_classifiers"),
        mem_mb=job_mem_mb("attn_classifiers"),
        runtime=job_runtime("attn_classifiers"),
    params:
        spec=model_spec,
        max_len=config["max_len"],
        task=config["explanation"]["task"],
        encoders=config["explanation"]["encoders"],
        n_train=config["explanation"]["n_train"],
        n_dev=config["explanation"]["n_dev"],
        epochs=config["explanation"]["epochs"],
        batch_size=config["explanation"]["batch_size"],
        lr=config["explanation"]["lr"],
        hidden=config["explanation"]["hidden"],
        attention_dim=config["explanation"]["attention_dim"],
        seed=training_seed("explanation"),
        finetuned_transformer=(
            config["explanation"]["finetuned_transformer"]
            if "transformer_finetuned" in config["explanation"]["encoders"]
            else None
        ),
    script:
        "../workflow/attn_classifiers.py"


rule erasure:
    """Single-weight and set erasure (Serrano & Smith 2019) for every attention classifier."""
    input:
        model=rules.attn_classifiers.output.model,
        glue=GLUE_RAW,
    output:
        single=table("erasure", "single"),
        sets=table("erasure", "set"),
        summary=claim_table("erasure", "summary", unit="instance", family="classifiers"),
        boot=table("erasure", "summary", "boot"),
        fig_single=figure("erasure", "single", category=EXPLANATION_CATEGORY),
        fig_set=figure("erasure", "set", category=EXPLANATION_CATEGORY),
        device=sidecar("erasure", "device"),  # the device it ran on
    log:
        rule_log("erasure"),
    benchmark:
        rule_benchmark("erasure")
    conda:
        CONDA_ENV
    threads: 1
    # the tests run on the attention classifiers, on the CPU (the encoder: one pass per input): no GPU
    resources:
        mem_mb=job_mem_mb("erasure"),
        runtime=job_runtime("erasure"),
    params:
        spec=model_spec,
        task=config["explanation"]["task"],
        n_explain=config["explanation"]["n_explain"],
        seed=training_seed("explanation"),
        random_orders=config["explanation"]["random_orders"],
        erase_all=config["explanation"]["erase_all"],
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
    script:
        "../workflow/erasure.py"


rule erasure_cls:
    """The erasure tests on the transformer's own attention: one layer's [CLS] row, heads averaged."""
    input:
        model=rules.attn_classifiers.output.model,
        glue=GLUE_RAW,
    output:
        single=table("erasure_cls", "single"),
        sets=table("erasure_cls", "set"),
        summary=table("erasure_cls", "summary"),
        fig_single=figure("erasure_cls", "single", category=EXPLANATION_CATEGORY),
        fig_set=figure("erasure_cls", "set", category=EXPLANATION_CATEGORY),
        device=sidecar("erasure_cls", "device"),  # the device it ran on
    log:
        rule_log("erasure_cls"),
    benchmark:
        rule_benchmark("erasure_cls")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("erasure_cls"),
        mem_mb=job_mem_mb("erasure_cls"),
        runtime=job_runtime("erasure_cls"),
    params:
        spec=model_spec,
        task=config["explanation"]["task"],
        n_explain=config["explanation"]["n_explain"],
        seed=training_seed("explanation"),
        cls_layer=config["explanation"]["cls_layer"],
    script:
        "../workflow/erasure_cls.py"


rule permutation:
    """Permute the attention weights (Jain & Wallace 2019): median output change vs max attention."""
    input:
        model=rules.attn_classifiers.output.model,
        glue=GLUE_RAW,
    output:
        table=claim_table("permutation", unit="instance", family="classifiers"),
        boot=table("permutation", "boot"),
        figure=figure("permutation", category=EXPLANATION_CATEGORY),
        device=sidecar("permutation", "device"),  # the device it ran on
    log:
        rule_log("permutation"),
    benchmark:
        rule_benchmark("permutation")
    conda:
        CONDA_ENV
    threads: 1
    # the tests run on the attention classifiers, on the CPU (the encoder: one pass per input): no GPU
    resources:
        mem_mb=job_mem_mb("permutation"),
        runtime=job_runtime("permutation"),
    params:
        spec=model_spec,
        task=config["explanation"]["task"],
        n_explain=config["explanation"]["n_explain"],
        n_permutations=config["explanation"]["n_permutations"],
        seed=training_seed("explanation"),
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
    script:
        "../workflow/permutation.py"


rule adversarial:
    """Adversarial attention (Jain & Wallace 2019, the authors' search): max JSD from the original with output change <= tolerance."""
    input:
        model=rules.attn_classifiers.output.model,
        glue=GLUE_RAW,
    output:
        table=claim_table("adversarial", unit="instance", family="classifiers"),
        boot=table("adversarial", "boot"),
        figure=figure("adversarial", category=EXPLANATION_CATEGORY),
        device=sidecar("adversarial", "device"),  # the device it ran on
    log:
        rule_log("adversarial"),
    benchmark:
        rule_benchmark("adversarial")
    conda:
        CONDA_ENV
    threads: 1
    # the tests run on the attention classifiers, on the CPU (the encoder: one pass per input): no GPU
    resources:
        mem_mb=job_mem_mb("adversarial"),
        runtime=job_runtime("adversarial"),
    params:
        spec=model_spec,
        task=config["explanation"]["task"],
        n_explain=config["explanation"]["n_explain"],
        search=config["explanation"]["adversarial"],
        seed=training_seed("explanation"),
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
    script:
        "../workflow/adversarial.py"


rule rank_agreement:
    """Kendall tau between attention and gradient / leave-one-out importance (Jain & Wallace 2019)."""
    input:
        model=rules.attn_classifiers.output.model,
        glue=GLUE_RAW,
    output:
        table=claim_table("rank_agreement", unit="instance", family="classifiers"),
        boot=table("rank_agreement", "boot"),
        figure=figure("rank_agreement", category=EXPLANATION_CATEGORY),
        device=sidecar("rank_agreement", "device"),  # the device it ran on
    log:
        rule_log("rank_agreement"),
    benchmark:
        rule_benchmark("rank_agreement")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("rank_agreement"),
        mem_mb=job_mem_mb("rank_agreement"),
        runtime=job_runtime("rank_agreement"),
    params:
        spec=model_spec,
        task=config["explanation"]["task"],
        n_explain=config["explanation"]["n_explain"],
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
    script:
        "../workflow/rank_agreement.py"


rule explanation:
    """Attention as explanation for every model: the SST-2 attention classifiers' dev accuracy,
    erasure (Serrano & Smith 2019), permutation, adversarial attention and rank agreement
    (Jain & Wallace 2019), and erasure on the transformer's own [CLS] row."""
    input:
        per_model(
            rules.attn_classifiers.output.table,
            rules.erasure.output.fig_single,
            rules.erasure.output.single,
            rules.erasure.output.fig_set,
            rules.erasure.output.sets,
            rules.erasure.output.summary,
            rules.erasure.output.boot,
            rules.erasure_cls.output.fig_single,
            rules.erasure_cls.output.single,
            rules.erasure_cls.output.fig_set,
            rules.erasure_cls.output.sets,
            rules.erasure_cls.output.summary,
            rules.permutation.output.figure,
            rules.permutation.output.table,
            rules.permutation.output.boot,
            rules.adversarial.output.figure,
            rules.adversarial.output.table,
            rules.adversarial.output.boot,
            rules.rank_agreement.output.figure,
            rules.rank_agreement.output.table,
            rules.rank_agreement.output.boot,
        ),
