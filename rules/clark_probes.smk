# Clark et al. 2019 sec. 5, Table 3: attention-based dependency probes.

# the probes train for minutes on these treebanks' maps: extracted first, so that probes_train starts early
EARLY_CORPORA.update({config["clark_probes"]["train"], config["clark_probes"]["dev"]})


rule probes_train:
    """Train the attention-only and attention-and-words dependency probes and their baselines,
    learning rate and epochs chosen on held-out train sentences; dev UAS and the held-out curves
    (Clark Table 3). Rule probes draws them beside the paper's."""
    input:
        train=attention_shards(config["clark_probes"]["train"]),
        dev=attention_shards(config["clark_probes"]["dev"]),
        train_records=inputs_of(config["clark_probes"]["train"]),
        dev_records=inputs_of(config["clark_probes"]["dev"]),
    output:
        table=table("probes_train"),
        curves=table("probes_train", "curves"),
        sentences=table("probes_train", "sentences"),
        info=sidecar("probes_train"),
    log:
        rule_log("probes_train"),
    benchmark:
        rule_benchmark("probes_train")
    # reads maps: run as soon as they exist (temp maps are then deleted; the long ones start early)
    priority: 40
    conda:
        CONDA_ENV
    threads: JOB_THREADS
    # the probes train on the CPU (their word-level features of every sentence would not fit a GPU's
    # memory for large models): no GPU; the random-init control's maps are computed on the CPU too
    resources:
        mem_mb=job_mem_mb("probes_train"),
        runtime=job_runtime("probes_train"),
    params:
        spec=model_spec,
        max_len=config["max_len"],
        batch_size=config["batch_size"],
        max_train_sentences=config["clark_probes"]["max_train_sentences"],
        vectors=config["clark_probes"]["vectors"],
        how=config["clark_probes"]["how"],
        epochs=config["clark_probes"]["epochs"],
        probe_batch_size=config["clark_probes"]["batch_size"],
        heldout_fraction=config["clark_probes"]["heldout_fraction"],
        lr=config["clark_probes"]["lr"],
        mlp_hidden=config["clark_probes"]["mlp_hidden"],
        mlp_distance=config["clark_probes"]["mlp_distance"],
        word_alignment=config["clark_probes"]["word_alignment"],
        control_task=config["clark_probes"]["control_task"],
        random_init=config["clark_probes"]["random_init"],
        random_init_seed=config["random_init"]["seed"],
        seed=training_seed("clark_probes"),
        punct_pos=config["clark_probes"]["punct_pos"],
    script:
        "../workflow/probes_train.py"


rule probes:
    """Dev UAS of every probe beside the paper's (Clark Table 3) and the training curves."""
    input:
        scores=rules.probes_train.output.table,
        curves=rules.probes_train.output.curves,
        sentences=rules.probes_train.output.sentences,
    output:
        table=claim_table("probes", unit="sentence", cluster="document", family="probes"),
        boot=table("probes", "boot"),
        selectivity=claim_table("probes", "selectivity", unit="sentence", cluster="document", family="probes"),
        selectivity_boot=table("probes", "selectivity", "boot"),
        figure=figure("probes", category="Clark sec. 5 (probes)"),
    log:
        rule_log("probes"),
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("probes"),
        runtime=job_runtime("probes"),
    params:
        spec=model_spec,
        dev_name=config["clark_probes"]["dev"],
        paper_uas=config["clark_probes"]["paper_uas"],
        bootstrap=config["bootstrap"],
    script:
        "../workflow/probes.py"


rule clark_probes:
    """Clark sec. 5 for every model: the dependency probes and their baselines (Table 3)."""
    input:
        per_model(
            rules.probes.output.figure,
            rules.probes.output.table,
            rules.probes.output.boot,
            rules.probes.output.selectivity,
            rules.probes.output.selectivity_boot,
            rules.probes_train.output.curves,
        ),
