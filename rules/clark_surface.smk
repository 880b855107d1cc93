# Clark et al. 2019 sec. 3: surface-level patterns on Wikipedia segments.

SURFACE = ["relative_position", "special_tokens", "sep_attention", "entropy"]


rule relative_position:
    """Per head: mean attention to the previous token, the token itself, the next token."""
    input:
        attention_shards("wiki"),
    output:
        table=table("relative_position"),
        figure=figure("relative_position", "Clark sec. 3 (surface patterns)"),
    log:
        rule_log("relative_position"),
    conda:
        CONDA_ENV
    script:
        "../scripts/relative_position.py"


rule special_tokens:
    """Per head: mean attention to [CLS], [SEP], and to periods or commas (Clark Fig. 2)."""
    input:
        attention_shards("wiki"),
    output:
        table=table("special_tokens"),
        layers=table("special_tokens_by_layer"),
        figure=figure("special_tokens", "Clark sec. 3 (surface patterns)"),
    log:
        rule_log("special_tokens"),
    conda:
        CONDA_ENV
    script:
        "../scripts/special_tokens.py"


rule sep_attention:
    """Per head: mean attention to [SEP] from [SEP] tokens vs from other tokens."""
    input:
        attention_shards("wiki"),
    output:
        table=table("sep_attention"),
        layers=table("sep_attention_by_layer"),
        figure=figure("sep_attention", "Clark sec. 3 (surface patterns)"),
    log:
        rule_log("sep_attention"),
    conda:
        CONDA_ENV
    script:
        "../scripts/sep_attention.py"


rule entropy:
    """Per head: mean attention entropy, from all tokens and from [CLS], with the uniform baseline."""
    input:
        attention_shards("wiki"),
    output:
        table=table("entropy"),
        layers=table("entropy_by_layer"),
        figure=figure("entropy", "Clark sec. 3 (surface patterns)"),
    log:
        rule_log("entropy"),
    conda:
        CONDA_ENV
    script:
        "../scripts/entropy.py"


rule example_heads:
    """Maps of the most extreme head for each behaviour on one segment (Clark Fig. 1)."""
    input:
        shards=attention_shards("wiki"),
        relative_position=table("relative_position"),
        special_tokens=table("special_tokens"),
        entropy=table("entropy"),
    output:
        table=table("example_heads"),
        maps=table("example_heads_maps"),
        figure=figure("example_heads", "Clark sec. 3 (surface patterns)"),
    params:
        segment=config["surface"]["example_segment"],
        window=config["surface"]["example_window"],
    log:
        rule_log("example_heads"),
    conda:
        CONDA_ENV
    script:
        "../scripts/example_heads.py"


ALL_TARGETS.extend(per_model(*(f"results/{{model}}/figures/{n}.png" for n in SURFACE + ["example_heads"])))


SEC5 = config["clark_sec5"]


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


