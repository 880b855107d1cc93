# Clark et al. 2019 sec. 6, Fig. 6: clustering heads by the Jensen-Shannon distance of their maps.

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


