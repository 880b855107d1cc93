# Kovaleva et al. 2019 ("Revealing the dark secrets of BERT"): fine-tuning on GLUE, change of
# the maps after fine-tuning (Fig. 4), attention to special tokens after fine-tuning (Fig. 5),
# disabling heads and layers (Fig. 6).
#
# Paths other rules may use (the {task} wildcard is a GLUE task name, e.g. SST-2):
#   resources/finetune/{model}/{task}/model/            fine-tuned checkpoint (save_pretrained dir,
#                                                       tokenizer included; load_model(dir, head=...))
#   resources/finetune/{model}/{task}/dev_metrics.json  its dev scores (+ pre-trained / majority)
#   resources/attention_glue/{model}/{variant}/{task}/shard-0.npy/.json
#                                                       maps (analysis.core.storage.Shards) of the first
#                                                       kovaleva_finetune.change_examples dev inputs (seeded draw),
#                                                       variant = pretrained | finetuned; meta.label = gold
#   GLUE_SHARDS[variant]: those maps of every configured task (an input list with {model})
# GLUE dev inputs themselves: analysis.core.glue.reader.read_split("resources/raw/glue", task, "dev").

GLUE_TASKS = config["kovaleva_finetune"]["tasks"]


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
        predictions="resources/finetune/{model}/{task}/dev_predictions.csv",
    log:
        rule_log("finetune", "{task}"),
    benchmark:
        rule_benchmark("finetune", "{task}")
    # long and at the head of a chain of jobs: started early so that short jobs fill the end of the run
    priority: 30
    conda:
        CONDA_ENV
    threads: JOB_THREADS
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("finetune"),
        mem_mb=job_mem_mb("finetune"),
        runtime=job_runtime("finetune"),
    params:
        spec=model_spec,
        settings=config["kovaleva_finetune"]["finetune"],  # every key is used (and recorded in dev_metrics.json)
        seed=training_seed("kovaleva_finetune"),
        precision=config["kovaleva_finetune"]["precision"],
    script:
        "../workflow/finetune.py"


rule finetune_scores:
    """Dev scores of every fine-tuned task next to the pre-trained (random head) and majority scores,
    with 95% bootstrap intervals over the dev rows; `learnt` says whether the task was learnt."""
    input:
        metrics=expand(rules.finetune.output.metrics, task=GLUE_TASKS, allow_missing=True),
        predictions=expand(rules.finetune.output.predictions, task=GLUE_TASKS, allow_missing=True),
    output:
        table=claim_table("finetune_scores", unit="dev example", family="finetune", replicates=False),
        figure=figure("finetune_scores", category="Kovaleva (fine-tuning)"),
    log:
        rule_log("finetune_scores"),
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("finetune_scores"),
        runtime=job_runtime("finetune_scores"),
    params:
        resamples=config["kovaleva_finetune"]["learnt_bootstrap"],  # of the score intervals
        seed=training_seed("kovaleva_finetune"),
    script:
        "../workflow/finetune_scores.py"


rule glue_attention:
    """Maps of the pre-trained or fine-tuned model on a task's dev inputs (the same inputs for both,
    and the same precision: both calibrate it on the pre-trained model)."""
    input:
        raw=GLUE_RAW,
        checkpoint=lambda wc: (
            rules.finetune.output.checkpoint.format(model=wc.model, task=wc.task) if wc.variant == "finetuned" else []
        ),
        machine=machine_rates_input,
    output:
        npy=maps_file("resources/attention_glue/{model}/{variant}/{task}/shard-0.npy"),
        json="resources/attention_glue/{model}/{variant}/{task}/shard-0.json",
        # the device, threads and precision (with the rates and timings behind it), as extract_attention's
        run_info=sidecar("glue_attention", "{variant}", "{task}"),
    log:
        rule_log("glue_attention", "{variant}", "{task}"),
    conda:
        CONDA_ENV
    threads: JOB_THREADS
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("glue_attention"),
        mem_mb=job_mem_mb("glue_attention"),
        runtime=job_runtime("glue_attention"),
    params:
        spec=model_spec,
        n_examples=config["kovaleva_finetune"]["change_examples"],
        seed=training_seed("kovaleva_finetune"),
        max_len=config["kovaleva_finetune"]["finetune"]["max_len"],
        batch_size=config["batch_size"],
        precision=config["precision"],
    script:
        "../workflow/glue_attention.py"


# variant -> the maps of the GLUE dev inputs of every configured task, for {model} (rule glue_attention)
GLUE_SHARDS = {
    variant: expand(rules.glue_attention.output.npy, variant=variant, task=GLUE_TASKS, allow_missing=True)
    for variant in ("pretrained", "finetuned")
}


rule finetune_change:
    """Per head: cosine similarity of pre-trained vs fine-tuned maps on the same dev inputs (Fig. 4)."""
    input:
        pretrained=GLUE_SHARDS["pretrained"],
        finetuned=GLUE_SHARDS["finetuned"],
    output:
        table=claim_table("finetune_change", unit="dev input", family="finetune", finetuned_maps=True),
        boot=table("finetune_change", "boot"),  # per layer (mean over heads), on resampled dev inputs
        figure=figure("finetune_change", category="Kovaleva (fine-tuning)"),
    log:
        rule_log("finetune_change"),
    # reads maps: run as soon as they exist (temp maps are then deleted; the long ones start early)
    priority: 40
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("finetune_change"),
        runtime=job_runtime("finetune_change"),
    params:
        tasks=config["kovaleva_finetune"]["tasks"],
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
    script:
        "../workflow/finetune_change.py"


rule finetune_special_tokens:
    """Per layer: attention to [CLS], [SEP], '.' or ',' in the fine-tuned models, per task (Fig. 5)."""
    input:
        pretrained=GLUE_SHARDS["pretrained"],
        finetuned=GLUE_SHARDS["finetuned"],
    output:
        table=claim_table("finetune_special_tokens", unit="dev input", family="finetune", finetuned_maps=True),
        boot=table("finetune_special_tokens", "boot"),  # cls and sep per layer, on resampled dev inputs
        figure=figure("finetune_special_tokens", category="Kovaleva (fine-tuning)"),
    log:
        rule_log("finetune_special_tokens"),
    # reads maps: run as soon as they exist (temp maps are then deleted; the long ones start early)
    priority: 40
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("finetune_special_tokens"),
        runtime=job_runtime("finetune_special_tokens"),
    params:
        tasks=config["kovaleva_finetune"]["tasks"],
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
        boot_variants=["finetuned"],  # the variant the claims read
    script:
        "../workflow/finetune_special_tokens.py"


rule disable_heads_scores:
    """Dev score of the fine-tuned model with each head (and each layer) made uniform, one task."""
    input:
        raw=GLUE_RAW,
        checkpoint=rules.finetune.output.checkpoint,
    output:
        scores="resources/disable_heads/{model}/{task}.csv",
        cost="resources/disable_heads/{model}/{task}.cost.json",
        max_test="resources/disable_heads/{model}/{task}.max_test.csv",
        # the top heads of the ranking rows confirmed on the dev rows not drawn (two-stage design)
        confirm="resources/disable_heads/{model}/{task}.confirm.csv",
        # gold, unmodified and whole-layer-disabled predictions per dev example (rule disable_heads' replicates)
        layer_predictions="resources/disable_heads/{model}/{task}.layer_predictions.npz",
    log:
        rule_log("disable_heads_scores", "{task}"),
    benchmark:
        rule_benchmark("disable_heads_scores", "{task}")
    # long and at the head of a chain of jobs: started early so that short jobs fill the end of the run
    priority: 30
    conda:
        CONDA_ENV
    threads: JOB_THREADS
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("disable_heads_scores"),
        mem_mb=job_mem_mb("disable_heads_scores"),
        runtime=job_runtime("disable_heads_scores"),
    params:
        n_examples=config["kovaleva_finetune"]["disable_examples"],
        max_batch=config["kovaleva_finetune"]["disable_max_batch"],
        precision=config["kovaleva_finetune"]["precision"],
        max_len=config["kovaleva_finetune"]["finetune"]["max_len"],
        seed=training_seed("kovaleva_finetune"),
        n_permutations=config["kovaleva_finetune"]["disable_permutations"],
        confirm_heads=config["kovaleva_finetune"]["confirm_heads"],
        confirm_min_rows=config["kovaleva_finetune"]["confirm_min_rows"],
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
    script:
        "../workflow/disable_heads_scores.py"


rule disable_heads:
    """Heat-maps of the change in dev score when one head / one layer is disabled (Fig. 6)."""
    input:
        scores=expand(rules.disable_heads_scores.output.scores, task=GLUE_TASKS, allow_missing=True),
        cost=expand(rules.disable_heads_scores.output.cost, task=GLUE_TASKS, allow_missing=True),
        max_test=expand(rules.disable_heads_scores.output.max_test, task=GLUE_TASKS, allow_missing=True),
        confirm=expand(rules.disable_heads_scores.output.confirm, task=GLUE_TASKS, allow_missing=True),
        layer_predictions=expand(
            rules.disable_heads_scores.output.layer_predictions, task=GLUE_TASKS, allow_missing=True
        ),
    output:
        table=claim_table("disable_heads", unit="dev example", family="finetune"),
        cost=table("disable_heads", "cost"),
        max_test=claim_table("disable_heads", "max_test", unit="dev example", family="finetune", replicates=False),
        boot=table("disable_heads", "boot"),  # whole layers' change, on resampled dev examples
        confirm=table("disable_heads", "confirm"),  # each task's top heads on its unused dev rows
        figure=figure("disable_heads", category="Kovaleva (fine-tuning)"),
    log:
        rule_log("disable_heads"),
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("disable_heads"),
        runtime=job_runtime("disable_heads"),
    params:
        tasks=config["kovaleva_finetune"]["tasks"],
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
    script:
        "../workflow/disable_heads.py"


rule kovaleva_finetune:
    """Kovaleva et al. 2019 fine-tuning section, every model: dev scores after fine-tuning, change of
    the maps (Fig. 4), attention to special tokens (Fig. 5), disabled heads (Fig. 6)."""
    input:
        per_model(
            rules.finetune_scores.output.table,
            rules.finetune_scores.output.figure,
            rules.finetune_change.output.table,
            rules.finetune_change.output.boot,
            rules.finetune_change.output.figure,
            rules.finetune_special_tokens.output.table,
            rules.finetune_special_tokens.output.boot,
            rules.finetune_special_tokens.output.figure,
            rules.disable_heads.output.table,
            rules.disable_heads.output.boot,
            rules.disable_heads.output.cost,
            rules.disable_heads.output.max_test,
            rules.disable_heads.output.confirm,
            rules.disable_heads.output.figure,
        ),
