# Clark et al. 2019 sec. 3: surface-level patterns on Wikipedia segments (Fig. 1, 2, 3, 4).


rule surface_sums:
    """One pass over one shard of the Wikipedia maps: the sums every sec. 3 / sec. 6 analysis needs
    (so the shard's maps can be deleted once reduced) and the shard's example_heads candidate."""
    input:
        shard="resources/attention/{model}/wiki/shard-{shard}.npy",
        # the shards before this one: global segment indices (head_clusters' first N, example_heads)
        earlier=lambda wc: [f"resources/attention/{wc.model}/wiki/shard-{k}.json" for k in range(int(wc.shard))],
    output:
        sums="resources/surface_sums/{model}/shard-{shard}.npz",
        meta="resources/surface_sums/{model}/shard-{shard}.json",
    log:
        rule_log("surface_sums", "{shard}"),
    benchmark:
        rule_benchmark("surface_sums", "{shard}")
    # reduce a shard as soon as it exists: its maps are then deleted (unless keep_maps)
    priority: 50
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=job_mem_mb("surface_sums"),
        runtime=job_runtime("surface_sums"),
    params:
        js_segments=config["clark_clusters"]["n_segments"],
        smoothing_eps=config["clark_clusters"]["smoothing_eps"],
        segment=config["clark_surface"]["example_segment"],
        window=config["clark_surface"]["example_window"],
    script:
        "../workflow/surface_sums.py"


rule relative_position:
    """Per head: mean attention to the previous token, the token itself, the next token."""
    input:
        surface_sums,
    output:
        table=claim_table("relative_position", unit="segment", cluster="article", reads_maps=True),
        boot=table("relative_position", "boot"),
        figure=figure("relative_position", category="Clark sec. 3 (surface patterns)"),
    log:
        rule_log("relative_position"),
    benchmark:
        rule_benchmark("relative_position")
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("relative_position"),
        runtime=job_runtime("relative_position"),
    params:
        # the replicate table: the same table on each seeded resample of the segments (scorecard intervals)
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
        local_layers=local_layers_of,  # marked on the figure's layer axis (ModernBERT's sliding-window layers)
    script:
        "../workflow/relative_position.py"


rule special_tokens:
    """Per head: mean attention to [CLS], [SEP], and to periods or commas (Clark Fig. 2, top)."""
    input:
        surface_sums,
    output:
        table=table("special_tokens"),
        layers=claim_table("special_tokens", "by_layer", unit="segment", cluster="article", reads_maps=True),
        layers_boot=table("special_tokens", "by_layer", "boot"),
        figure=figure("special_tokens", category="Clark sec. 3 (surface patterns)"),
    log:
        rule_log("special_tokens"),
    benchmark:
        rule_benchmark("special_tokens")
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("special_tokens"),
        runtime=job_runtime("special_tokens"),
    params:
        # the replicate table: the same table on each seeded resample of the segments (scorecard intervals)
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
        local_layers=local_layers_of,  # marked on the figure's layer axis (ModernBERT's sliding-window layers)
    script:
        "../workflow/special_tokens.py"


rule sep_attention:
    """Per head: mean attention to [SEP] from [SEP] tokens vs from other tokens (Clark Fig. 2, bottom)."""
    input:
        surface_sums,
    output:
        table=table("sep_attention"),
        layers=claim_table("sep_attention", "by_layer", unit="segment", cluster="article", reads_maps=True),
        layers_boot=table("sep_attention", "by_layer", "boot"),
        # the attention sink, [SEP] or [CLS], whichever draws the most attention (sink-agnostic claims)
        sink=claim_table("sep_attention", "sink", unit="segment", cluster="article", reads_maps=True),
        sink_boot=table("sep_attention", "sink", "boot"),
        figure=figure("sep_attention", category="Clark sec. 3 (surface patterns)"),
    log:
        rule_log("sep_attention"),
    benchmark:
        rule_benchmark("sep_attention")
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("sep_attention"),
        runtime=job_runtime("sep_attention"),
    params:
        # the replicate table: the same table on each seeded resample of the segments (scorecard intervals)
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
        local_layers=local_layers_of,  # marked on the figure's layer axis (ModernBERT's sliding-window layers)
    script:
        "../workflow/sep_attention.py"


rule entropy:
    """Per head: mean attention entropy, from all tokens and from [CLS], with the uniform baseline (Clark Fig. 4)."""
    input:
        surface_sums,
    output:
        table=table("entropy"),
        layers=claim_table("entropy", "by_layer", unit="segment", cluster="article", reads_maps=True),
        layers_boot=table("entropy", "by_layer", "boot"),
        figure=figure("entropy", category="Clark sec. 3 (surface patterns)"),
    log:
        rule_log("entropy"),
    benchmark:
        rule_benchmark("entropy")
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("entropy"),
        runtime=job_runtime("entropy"),
    params:
        # the replicate table: the same table on each seeded resample of the segments (scorecard intervals)
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
        local_layers=local_layers_of,  # marked on the figure's layer axis (ModernBERT's sliding-window layers)
    script:
        "../workflow/entropy.py"


rule example_heads:
    """Maps of the most extreme head for each behaviour on one segment (Clark Fig. 1)."""
    input:
        sums=surface_sums,
        relative_position=rules.relative_position.output.table,
        special_tokens=rules.special_tokens.output.table,
        entropy=rules.entropy.output.table,
    output:
        table=table("example_heads"),
        maps=table("example_heads", "maps"),
        figure=figure("example_heads", category="Clark sec. 3 (surface patterns)"),
    log:
        rule_log("example_heads"),
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("example_heads"),
        runtime=job_runtime("example_heads"),
    params:
        segment=config["clark_surface"]["example_segment"],
        window=config["clark_surface"]["example_window"],
    script:
        "../workflow/example_heads.py"


rule mlm_head:
    """Masked-LM head for the gradients: the checkpoint's own when it has a trained one (from_pretrained's
    missing keys), else fitted on the frozen encoder on Wikipedia segments not in the evaluation sample."""
    input:
        raw=raw_sums(CORPORA["wiki"]["source"]),
        evaluation=inputs_of("wiki"),
    output:
        head="resources/mlm_head/{model}/head.pt",
        info=sidecar("mlm_head"),
        table=table("mlm_head"),
    log:
        rule_log("mlm_head"),
    benchmark:
        rule_benchmark("mlm_head")
    # long: started early so that short jobs fill the end of the run
    priority: 20
    conda:
        CONDA_ENV
    threads: JOB_THREADS
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("mlm_head"),
        mem_mb=job_mem_mb("mlm_head"),
        runtime=job_runtime("mlm_head"),
    params:
        spec=model_spec,
        # the wiki corpus options that rebuild its segments exactly as rule prepare_inputs did
        wiki_file=CORPORA["wiki"]["file"],
        wiki_seed=CORPORA["wiki"]["seed"],
        max_len=config["max_len"],
        segment_ids=config["segment_ids"],
        n_train=config["clark_surface"]["mlm_head"]["n_train"],
        n_heldout=config["clark_surface"]["mlm_head"]["n_heldout"],
        epochs=config["clark_surface"]["mlm_head"]["epochs"],
        lr=config["clark_surface"]["mlm_head"]["lr"],
        batch_size=config["clark_surface"]["mlm_head"]["batch_size"],
        mask_prob=config["clark_surface"]["mlm_head"]["mask_prob"],
        seed=training_seed("clark_surface", "mlm_head"),
    script:
        "../workflow/mlm_head.py"


rule gradient_importance:
    """Mean |d masked-LM loss / d attention weight| per layer by attended token type (Clark Fig. 3)."""
    input:
        records=inputs_of("wiki"),
        head=rules.mlm_head.output.head,
        head_info=rules.mlm_head.output.info,
        head_table=rules.mlm_head.output.table,
        # which special token is the attention sink (column sink of the table: the sink-agnostic claim);
        # a training run reads its model's (the same pre-trained maps)
        sink=lambda w: f"results/{TRAINING_OF.get(w.model, w.model)}/tables/sep_attention.sink.csv",
    output:
        table=claim_table("gradient_importance", unit="segment", family="mlm_head", replicates=False),
        heads=table("gradient_importance", "heads"),
        info=sidecar("gradient_importance"),
        figure=figure("gradient_importance", category="Clark sec. 3 (surface patterns)"),
    log:
        rule_log("gradient_importance"),
    benchmark:
        rule_benchmark("gradient_importance")
    conda:
        CONDA_ENV
    threads: JOB_THREADS
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("gradient_importance"),
        mem_mb=job_mem_mb("gradient_importance"),
        runtime=job_runtime("gradient_importance"),
    params:
        spec=model_spec,
        max_len=config["max_len"],
        segment_ids=config["segment_ids"],
        policy=config["max_len_policy"],
        n_segments=config["clark_surface"]["gradient_importance"]["n_segments"],
        mask_prob=config["clark_surface"]["gradient_importance"]["mask_prob"],
        batch_size=config["clark_surface"]["gradient_importance"]["batch_size"],
        seed=training_seed("clark_surface", "gradient_importance"),
    script:
        "../workflow/gradient_importance.py"


rule clark_surface:
    """Clark sec. 3 for every model: relative position, special tokens and [SEP] (Fig. 2), entropy (Fig. 4),
    example heads (Fig. 1), gradient importance (Fig. 3) with its masked-LM head."""
    input:
        per_model(
            rules.relative_position.output.figure,
            rules.relative_position.output.table,
            rules.relative_position.output.boot,
            rules.special_tokens.output.figure,
            rules.special_tokens.output.table,
            rules.special_tokens.output.layers,
            rules.special_tokens.output.layers_boot,
            rules.sep_attention.output.figure,
            rules.sep_attention.output.table,
            rules.sep_attention.output.layers,
            rules.sep_attention.output.layers_boot,
            rules.sep_attention.output.sink,
            rules.sep_attention.output.sink_boot,
            rules.entropy.output.figure,
            rules.entropy.output.table,
            rules.entropy.output.layers,
            rules.entropy.output.layers_boot,
            rules.example_heads.output.figure,
            rules.example_heads.output.table,
            rules.example_heads.output.maps,
            rules.mlm_head.output.table,
            rules.gradient_importance.output.figure,
            rules.gradient_importance.output.table,
            rules.gradient_importance.output.heads,
        ),
