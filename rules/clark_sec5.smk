# Clark et al. 2019 sec. 5-6 and Fig. 5: head clustering, gradient importance, probes.

SEC5 = config.get("clark_sec5", {})


rule head_clusters:
    """Jensen-Shannon distances between every pair of heads, 2-D MDS coloured by behaviour and layer (Clark Fig. 6)."""
    input:
        shards=attention_shards("wiki"),
        relative_position=table("relative_position"),
        special_tokens=table("special_tokens"),
        entropy=table("entropy"),
    output:
        distances=table("head_distances"),
        points=table("head_clusters"),
        counts="results/{model}/tables/head_clusters.counts.json",
        figure=figure("head_clusters", "Clark sec. 6 (head clusters)"),
    params:
        cfg=SEC5.get("head_clusters", {}),
    threads: 2
    resources:
        mem_mb=4000,
        runtime=20,
    log:
        rule_log("head_clusters"),
    benchmark:
        "benchmarks/{model}/head_clusters.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/head_clusters.py"


ALL_TARGETS.extend(per_model("results/{model}/figures/head_clusters.png"))


rule mlm_head:
    """Masked-LM head for the gradients: the checkpoint's own when it has a trained one (from_pretrained's
    missing keys), else fitted on the frozen encoder on Wikipedia segments not in the evaluation sample."""
    input:
        raw=lambda wc: f"resources/raw/{CORPORA['wiki']['source']}/SHA256SUMS",
        evaluation="resources/inputs/{model}/wiki.jsonl",
    output:
        head="resources/mlm_head/{model}/head.pt",
        info="results/{model}/tables/mlm_head.json",
        table=table("mlm_head"),
    params:
        spec=model_spec,
        cfg=SEC5.get("mlm_head", {}),
        wiki=CORPORA["wiki"],
        max_len=config["max_len"],
    threads: 2
    resources:
        gpu=1,
        mem_mb=6000,
        runtime=30,
    log:
        rule_log("mlm_head"),
    benchmark:
        "benchmarks/{model}/mlm_head.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/mlm_head.py"


rule gradient_importance:
    """Mean |d masked-LM loss / d attention weight| per layer by attended token type (Clark Fig. 5)."""
    input:
        records="resources/inputs/{model}/wiki.jsonl",
        head="resources/mlm_head/{model}/head.pt",
        head_info="results/{model}/tables/mlm_head.json",
        head_table=table("mlm_head"),
    output:
        table=table("gradient_importance"),
        heads=table("gradient_importance_heads"),
        info="results/{model}/tables/gradient_importance.json",
        figure=figure("gradient_importance", "Clark sec. 3 (surface patterns)"),
    params:
        spec=model_spec,
        cfg=SEC5.get("gradient_importance", {}),
        max_len=config["max_len"],
        policy=config["max_len_policy"],
    threads: 2
    resources:
        gpu=1,
        mem_mb=6000,
        runtime=30,
    log:
        rule_log("gradient_importance"),
    benchmark:
        "benchmarks/{model}/gradient_importance.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/gradient_importance.py"


ALL_TARGETS.extend(per_model("results/{model}/figures/gradient_importance.png"))


PROBES = SEC5.get("probes", {})


rule probes:
    """Attention-only and attention-and-words dependency probes with baselines (Clark Table 3)."""
    input:
        train=attention_shards(PROBES.get("train", "gum_sd_train")),
        dev=attention_shards(PROBES.get("dev", "gum_sd_dev")),
        train_records=f"resources/inputs/{{model}}/{PROBES.get('train', 'gum_sd_train')}.jsonl",
        dev_records=f"resources/inputs/{{model}}/{PROBES.get('dev', 'gum_sd_dev')}.jsonl",
    output:
        table=table("probes"),
        curves=table("probes_curves"),
        info="results/{model}/tables/probes.json",
        figure=figure("probes", "Clark sec. 5 (probes)"),
    params:
        spec=model_spec,
        cfg=PROBES,
        dev_name=PROBES.get("dev", "gum_sd_dev"),
        max_len=config["max_len"],
        batch_size=config["batch_size"],
    threads: 2
    resources:
        gpu=1,
        mem_mb=8000,
        runtime=30,
    log:
        rule_log("probes"),
    benchmark:
        "benchmarks/{model}/probes.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/probes.py"


ALL_TARGETS.extend(per_model("results/{model}/figures/probes.png"))
