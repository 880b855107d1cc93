# Beyond the papers: analyses users of attention tooling ask for, on the fine-tuned GLUE models
# of rules/kovaleva_finetune.smk (rules finetune, disable_heads_scores):
#   rollout: raw attention, attention rollout and attention flow (Abnar & Zuidema 2020) per layer
#            vs input-gradient and blank-out importance, on the dev inputs of the model
#            fine-tuned on beyond_papers.rollout.task;
#   head_importance: gradient head importance (Michel et al. 2019) vs the disabled-head scores;
#   head_pruning: heads removed by ascending importance vs random order (beyond_papers.pruning.enabled).

BEYOND = config["beyond_papers"]
BEYOND_CATEGORY = "Beyond the papers"

if BEYOND["rollout"]["task"] not in GLUE_TASKS:
    raise ValueError(
        f"config beyond_papers.rollout.task: {BEYOND['rollout']['task']} has no fine-tuned model; "
        f"it must be one of kovaleva_finetune.tasks {GLUE_TASKS}"
    )


rule rollout:
    """Raw attention, rollout and flow at every layer vs input-gradient / blank-out importance, per dev input."""
    input:
        raw=GLUE_RAW,
        checkpoint=expand(rules.finetune.output.checkpoint, task=BEYOND["rollout"]["task"], allow_missing=True)[0],
        paper=BEYOND["rollout"]["paper_numbers"],
    output:
        tokens=table("rollout", "tokens"),
        spearman=table("rollout", "spearman"),
        summary=table("rollout", "summary"),
        paired=table("rollout", "paired"),
        example=table("rollout", "example"),
        info=sidecar("rollout"),
        fig_example=figure("rollout", "example", category=BEYOND_CATEGORY),
        fig_spearman=figure("rollout", "spearman", category=BEYOND_CATEGORY),
    log:
        rule_log("rollout"),
    benchmark:
        rule_benchmark("rollout")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("rollout"),
        mem_mb=job_mem_mb("rollout"),
        runtime=job_runtime("rollout"),
    params:
        task=BEYOND["rollout"]["task"],
        n_examples=BEYOND["rollout"]["n_examples"],
        flow_examples=BEYOND["rollout"]["flow_examples"],
        residual=BEYOND["rollout"]["residual"],
        targets=BEYOND["rollout"]["targets"],
        protocol=BEYOND["rollout"]["protocol"],
        example_max_tokens=BEYOND["rollout"]["example_max_tokens"],
        batch_size=BEYOND["rollout"]["batch_size"],
        seed=training_seed("beyond_papers", "rollout"),
        max_len=config["kovaleva_finetune"]["finetune"]["max_len"],
        bootstrap=config["bootstrap"],  # the summary's and the paired table's intervals
    script:
        "../workflow/rollout.py"


rule head_importance_scores:
    """Mean |dL/d gate| of every head's output gate over dev examples, one fine-tuned task."""
    input:
        raw=GLUE_RAW,
        checkpoint=rules.finetune.output.checkpoint,
    output:
        "resources/head_importance/{model}/{task}.csv",
        device="resources/head_importance/{model}/{task}.device.json",  # the device it ran on
    log:
        rule_log("head_importance_scores", "{task}"),
    benchmark:
        rule_benchmark("head_importance_scores", "{task}")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("head_importance_scores"),
        mem_mb=job_mem_mb("head_importance_scores"),
        runtime=job_runtime("head_importance_scores"),
    params:
        n_examples=BEYOND["head_importance"]["n_examples"],
        batch_size=BEYOND["head_importance"]["batch_size"],
        seed=training_seed("beyond_papers", "head_importance"),
        split=BEYOND["head_importance"]["split"],
        abs_per=BEYOND["head_importance"]["abs_per"],
        normalize_by_layer=BEYOND["head_importance"]["normalize_by_layer"],
        max_len=config["kovaleva_finetune"]["finetune"]["max_len"],
    script:
        "../workflow/head_importance_scores.py"


rule head_importance:
    """Gradient head importance against the dev-score drop when the head is disabled, per task."""
    input:
        importance=expand(rules.head_importance_scores.output[0], task=GLUE_TASKS, allow_missing=True),
        disabled=expand(rules.disable_heads_scores.output.scores, task=GLUE_TASKS, allow_missing=True),
    output:
        table=table("head_importance"),
        spearman=table("head_importance", "spearman"),
        figure=figure("head_importance", category=BEYOND_CATEGORY),
    log:
        rule_log("head_importance"),
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("head_importance"),
        runtime=job_runtime("head_importance"),
    script:
        "../workflow/head_importance.py"


rule head_pruning_scores:
    """Dev score while heads are removed 10% at a time: ascending importance, seeded random orders."""
    input:
        raw=GLUE_RAW,
        checkpoint=rules.finetune.output.checkpoint,
        importance=rules.head_importance_scores.output[0],
    output:
        "resources/head_importance/{model}/{task}.pruning.csv",
        device="resources/head_importance/{model}/{task}.pruning.device.json",  # the device it ran on
    log:
        rule_log("head_pruning_scores", "{task}"),
    benchmark:
        rule_benchmark("head_pruning_scores", "{task}")
    conda:
        CONDA_ENV
    threads: 1
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("head_pruning_scores"),
        mem_mb=job_mem_mb("head_pruning_scores"),
        runtime=job_runtime("head_pruning_scores"),
    params:
        n_examples=BEYOND["pruning"]["n_examples"],
        step=BEYOND["pruning"]["step"],
        random_orders=BEYOND["pruning"]["random_orders"],
        batch_size=BEYOND["head_importance"]["batch_size"],
        seed=training_seed("beyond_papers", "pruning"),
        max_len=config["kovaleva_finetune"]["finetune"]["max_len"],
    script:
        "../workflow/head_pruning_scores.py"


rule head_pruning:
    """Pruning curves of every task: importance order against random orders."""
    input:
        expand(rules.head_pruning_scores.output[0], task=GLUE_TASKS, allow_missing=True),
    output:
        table=table("head_pruning"),
        summary=table("head_pruning", "summary"),
        figure=figure("head_pruning", category=BEYOND_CATEGORY),
    log:
        rule_log("head_pruning"),
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("head_pruning"),
        runtime=job_runtime("head_pruning"),
    script:
        "../workflow/head_pruning.py"


rule beyond_papers:
    """Beyond the papers, every model: rollout and flow vs token importance, gradient head importance vs
    disabled heads, and (beyond_papers.pruning.enabled) the pruning curves."""
    input:
        per_model(
            rules.rollout.output.summary,
            rules.rollout.output.fig_example,
            rules.rollout.output.fig_spearman,
            rules.head_importance.output.table,
            rules.head_importance.output.figure,
            *(
                [rules.head_pruning.output.table, rules.head_pruning.output.figure]
                if BEYOND["pruning"]["enabled"]
                else []
            ),
        ),
