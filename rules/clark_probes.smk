# Clark et al. 2019 sec. 5, Table 3: attention-based dependency probes.

SEC5 = config["clark_sec5"]


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
