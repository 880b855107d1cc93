# Tutek & Snajder 2020, "Staying True to Your Word": the BiLSTM attention classifier of the
# explanation rules and four variants that tie each hidden state to its input word (CONCAT,
# RESIDUAL, TYING, MLM), on the same SST-2 subset, vocabulary and GloVe initialisation;
# permutation, model-based adversary, single-token inputs, erasure and rank agreement.

STAYING_TRUE_CATEGORY = "Attention as explanation (Tutek & Snajder)"


rule staying_true_models:
    """Train the base BiLSTM attention classifier and its CONCAT / RESIDUAL / TYING / MLM variants on SST-2; dev accuracy, weight, time."""
    input:
        GLUE_RAW,
    output:
        model="resources/explanation/{model}/staying_true_models.pt",
        table=claim_table("staying_true_models", unit="dev sentence", family="staying_true", replicates=False),
        # each regularised model's dev accuracy minus the base model's, paired (same dev sentences)
        kept=claim_table("staying_true_models", "kept", unit="dev sentence", family="staying_true"),
        kept_boot=table("staying_true_models", "kept", "boot"),  # on resampled dev sentences
    log:
        rule_log("staying_true_models"),
    benchmark:
        rule_benchmark("staying_true_models")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("staying_true_models"),
        runtime=job_runtime("staying_true_models"),
    params:
        task=config["explanation"]["task"],
        n_train=config["explanation"]["n_train"],
        n_dev=config["explanation"]["n_dev"],
        epochs=config["explanation"]["epochs"],
        batch_size=config["explanation"]["batch_size"],
        lr=config["explanation"]["lr"],
        attention_dim=config["explanation"]["attention_dim"],
        seed=training_seed("explanation"),
        models=config["staying_true"]["models"],
        hidden=config["staying_true"]["hidden"],
        tying_weight=config["staying_true"]["tying_weight"],
        tying_detach_embeddings=config["staying_true"]["tying_detach_embeddings"],
        mlm_weight=config["staying_true"]["mlm_weight"],
        mlm_mask_prob=config["staying_true"]["mlm_mask_prob"],
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
    script:
        "../workflow/staying_true_models.py"


rule staying_true_permutation:
    """Permute each model's attention (seeded, n_permutations per instance): median output change and accuracy under permutation."""
    input:
        model=rules.staying_true_models.output.model,
        glue=GLUE_RAW,
    output:
        table=table("staying_true_permutation"),
        summary=claim_table("staying_true_permutation", "summary", unit="instance", family="staying_true"),
        boot=table("staying_true_permutation", "summary", "boot"),
        figure=figure("staying_true_permutation", category=STAYING_TRUE_CATEGORY),
    log:
        rule_log("staying_true_permutation"),
    benchmark:
        rule_benchmark("staying_true_permutation")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("staying_true_permutation"),
        runtime=job_runtime("staying_true_permutation"),
    params:
        task=config["explanation"]["task"],
        n_explain=config["staying_true"]["n_explain"],
        n_permutations=config["staying_true"]["n_permutations"],
        seed=training_seed("explanation"),
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
    script:
        "../workflow/staying_true_permutation.py"


rule staying_true_adversary:
    """Model-based adversary (Wiegreffe & Pinter 2019) per model and trade-off weight (a grid, then a bisection near each JSD level), trained until its stopping rule stops it: JSD reached vs TVD paid; each model's TVD at fixed JSD levels, with how close and converged the adversaries bracketing them are."""
    input:
        model=rules.staying_true_models.output.model,
        glue=GLUE_RAW,
    output:
        table=table("staying_true_adversary"),
        summary=claim_table("staying_true_adversary", "summary", unit="instance", family="staying_true"),
        boot=table("staying_true_adversary", "summary", "boot"),
        figure=figure("staying_true_adversary", category=STAYING_TRUE_CATEGORY),
    log:
        rule_log("staying_true_adversary"),
    benchmark:
        rule_benchmark("staying_true_adversary")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("staying_true_adversary"),
        runtime=job_runtime("staying_true_adversary"),
    params:
        task=config["explanation"]["task"],
        n_train=config["explanation"]["n_train"],
        n_explain=config["staying_true"]["n_explain"],
        seed=training_seed("explanation"),
        batch_size=config["explanation"]["batch_size"],
        adversary=config["staying_true"]["adversary"],
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
    script:
        "../workflow/staying_true_adversary.py"


rule staying_true_single_token:
    """Each token alone through each model: spread of the outputs and Kendall tau with the attention."""
    input:
        model=rules.staying_true_models.output.model,
        glue=GLUE_RAW,
    output:
        table=table("staying_true_single_token"),
        summary=claim_table("staying_true_single_token", "summary", unit="instance", family="staying_true"),
        boot=table("staying_true_single_token", "summary", "boot"),
        figure=figure("staying_true_single_token", category=STAYING_TRUE_CATEGORY),
    log:
        rule_log("staying_true_single_token"),
    benchmark:
        rule_benchmark("staying_true_single_token")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("staying_true_single_token"),
        runtime=job_runtime("staying_true_single_token"),
    params:
        task=config["explanation"]["task"],
        n_explain=config["staying_true"]["n_explain"],
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
    script:
        "../workflow/staying_true_single_token.py"


rule staying_true_erasure:
    """The erasure (Serrano & Smith 2019) and rank-agreement (Jain & Wallace 2019) tests on every model: one summary row each."""
    input:
        model=rules.staying_true_models.output.model,
        glue=GLUE_RAW,
    output:
        table=table("staying_true_erasure"),
    log:
        rule_log("staying_true_erasure"),
    benchmark:
        rule_benchmark("staying_true_erasure")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("staying_true_erasure"),
        runtime=job_runtime("staying_true_erasure"),
    params:
        task=config["explanation"]["task"],
        n_explain=config["staying_true"]["n_explain"],
        seed=training_seed("explanation"),
    script:
        "../workflow/staying_true_erasure.py"


rule staying_true:
    """Tutek & Snajder 2020 for every model: the regularised classifiers' accuracy, permutation,
    model-based adversary, single-token inputs, erasure and rank agreement."""
    input:
        per_model(
            rules.staying_true_models.output.table,
            rules.staying_true_models.output.kept,
            rules.staying_true_models.output.kept_boot,
            rules.staying_true_permutation.output.table,
            rules.staying_true_permutation.output.summary,
            rules.staying_true_permutation.output.boot,
            rules.staying_true_permutation.output.figure,
            rules.staying_true_adversary.output.table,
            rules.staying_true_adversary.output.summary,
            rules.staying_true_adversary.output.boot,
            rules.staying_true_adversary.output.figure,
            rules.staying_true_single_token.output.table,
            rules.staying_true_single_token.output.summary,
            rules.staying_true_single_token.output.boot,
            rules.staying_true_single_token.output.figure,
            rules.staying_true_erasure.output.table,
        ),
