# Kovaleva et al. 2019 ("Revealing the dark secrets of BERT"): fine-tuning on GLUE (Tab. 1),
# change of the maps after fine-tuning (Fig. 4), attention to special tokens after
# fine-tuning (Fig. 5), disabling heads and layers (Fig. 6).
#
# Paths other rules may use (the {task} wildcard is a GLUE task name, e.g. SST-2):
#   resources/finetune/{model}/{task}/model/            fine-tuned checkpoint (save_pretrained dir,
#                                                       tokenizer included; load_model(dir, head=...))
#   resources/finetune/{model}/{task}/dev_metrics.json  its dev scores (+ pre-trained / majority)
#   resources/attention_glue/{model}/{variant}/{task}/shard-0.npy/.json
#                                                       maps (analysis.core.storage.Shards) of the first
#                                                       kovaleva.change_examples dev inputs (seeded draw),
#                                                       variant = pretrained | finetuned; meta.label = gold
# GLUE dev inputs themselves: analysis.core.glue.read_split("resources/raw/glue", task, "dev").

KOV = config["kovaleva"]
GLUE_TASKS = KOV["tasks"]
GLUE_RAW = "resources/raw/glue/SHA256SUMS"


wildcard_constraints:
    task="|".join(map(re.escape, GLUE_TASKS)) if GLUE_TASKS else "NONE",
    variant="pretrained|finetuned",


rule finetune:
    """Fine-tune the model on one GLUE task (head on the pooled [CLS]); dev scores before/after."""
    input:
        GLUE_RAW,
    output:
        checkpoint=directory("resources/finetune/{model}/{task}/model"),
        metrics="resources/finetune/{model}/{task}/dev_metrics.json",
        history="resources/finetune/{model}/{task}/history.csv",
    params:
        spec=model_spec,
        settings=KOV["finetune"],
        seed=KOV["seed"],
    threads: 2
    resources:
        gpu=1,
        mem_mb=8000,
        runtime=120,
    log:
        "logs/{model}/finetune/{task}.log",
    benchmark:
        "benchmarks/{model}/finetune/{task}.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/finetune.py"


rule finetune_scores:
    """Dev scores of every fine-tuned task next to the pre-trained (random head) and majority scores."""
    input:
        expand("resources/finetune/{{model}}/{task}/dev_metrics.json", task=GLUE_TASKS),
    output:
        table=table("finetune_scores"),
        figure=figure("finetune_scores", "Kovaleva (fine-tuning)"),
    log:
        rule_log("finetune_scores"),
    conda:
        CONDA_ENV
    script:
        "../scripts/finetune_scores.py"


rule glue_attention:
    """Maps of the pre-trained or fine-tuned model on a task's dev inputs (the same inputs for both)."""
    input:
        raw=GLUE_RAW,
        checkpoint=lambda wc: checkpoint_dir(wc) if wc.variant == "finetuned" else [],
    output:
        multiext("resources/attention_glue/{model}/{variant}/{task}/shard-0", ".npy", ".json"),
    params:
        spec=model_spec,
        n_examples=KOV["change_examples"],
        seed=KOV["seed"],
        max_len=KOV["finetune"]["max_len"],
        batch_size=config["batch_size"],
    threads: 2
    resources:
        gpu=1,
        mem_mb=4000,
        runtime=30,
    log:
        "logs/{model}/glue_attention/{variant}-{task}.log",
    conda:
        CONDA_ENV
    script:
        "../scripts/glue_attention.py"


rule finetune_change:
    """Per head: cosine similarity of pre-trained vs fine-tuned maps on the same dev inputs (Fig. 4)."""
    input:
        pretrained=glue_shards("pretrained"),
        finetuned=glue_shards("finetuned"),
    output:
        table=table("finetune_change"),
        figure=figure("finetune_change", "Kovaleva (fine-tuning)"),
    params:
        tasks=GLUE_TASKS,
    log:
        rule_log("finetune_change"),
    conda:
        CONDA_ENV
    script:
        "../scripts/finetune_change.py"


rule finetune_special_tokens:
    """Per layer: attention to [CLS], [SEP], '.' or ',' in the fine-tuned models, per task (Fig. 5)."""
    input:
        pretrained=glue_shards("pretrained"),
        finetuned=glue_shards("finetuned"),
    output:
        table=table("finetune_special_tokens"),
        figure=figure("finetune_special_tokens", "Kovaleva (fine-tuning)"),
    params:
        tasks=GLUE_TASKS,
    log:
        rule_log("finetune_special_tokens"),
    conda:
        CONDA_ENV
    script:
        "../scripts/finetune_special_tokens.py"


rule disable_heads_scores:
    """Dev score of the fine-tuned model with each head (and each layer) made uniform, one task."""
    input:
        raw=GLUE_RAW,
        checkpoint=checkpoint_dir,
    output:
        scores="resources/disable_heads/{model}/{task}.csv",
        cost="resources/disable_heads/{model}/{task}.cost.json",
    params:
        n_examples=KOV["disable_examples"],
        max_batch=KOV["disable_max_batch"],
        max_len=KOV["finetune"]["max_len"],
        seed=KOV["seed"],
    threads: 2
    resources:
        gpu=1,
        mem_mb=8000,
        runtime=60,
    log:
        "logs/{model}/disable_heads_scores/{task}.log",
    benchmark:
        "benchmarks/{model}/disable_heads_scores/{task}.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/disable_heads_scores.py"


rule disable_heads:
    """Heat-maps of the change in dev score when one head / one layer is disabled (Fig. 6)."""
    input:
        scores=expand("resources/disable_heads/{{model}}/{task}.csv", task=GLUE_TASKS),
        cost=expand("resources/disable_heads/{{model}}/{task}.cost.json", task=GLUE_TASKS),
    output:
        table=table("disable_heads"),
        cost=table("disable_heads_cost"),
        figure=figure("disable_heads", "Kovaleva (fine-tuning)"),
    params:
        tasks=GLUE_TASKS,
    log:
        rule_log("disable_heads"),
    conda:
        CONDA_ENV
    script:
        "../scripts/disable_heads.py"


ALL_TARGETS.extend(
    per_model(
        *(
            f"results/{{model}}/figures/{n}.png"
            for n in ["finetune_scores", "finetune_change", "finetune_special_tokens", "disable_heads"]
        )
    )
)
