# Clark et al. 2019 sec. 6, Fig. 6: clustering heads by the Jensen-Shannon distance of their maps.


rule head_clusters:
    """Jensen-Shannon distances between every pair of heads, 2-D MDS coloured by behaviour and layer (Clark Fig. 6)."""
    input:
        sums=surface_sums,
        relative_position=rules.relative_position.output.table,
        special_tokens=rules.special_tokens.output.table,
        entropy=rules.entropy.output.table,
    output:
        distances=table("head_clusters", "distances"),
        layers=claim_table("head_clusters", "layers", unit="segment", cluster="article", reads_maps=True),
        layers_boot=table("head_clusters", "layers", "boot"),
        points=table("head_clusters"),
        counts=sidecar("head_clusters", "counts"),
        figure=figure("head_clusters", category="Clark sec. 6 (head clusters)"),
    log:
        rule_log("head_clusters"),
    benchmark:
        rule_benchmark("head_clusters")
    conda:
        CONDA_ENV
    threads: JOB_THREADS
    resources:
        mem_mb=job_mem_mb("head_clusters"),
        runtime=job_runtime("head_clusters"),
    params:
        seed=config["clark_clusters"]["seed"],
        thresholds=config["clark_clusters"]["thresholds"],
        # the replicate table of the layer pairs' distances: the segments resampled (scorecard intervals)
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
    script:
        "../workflow/head_clusters.py"


rule clark_clusters:
    """Clark sec. 6 for every model: heads clustered by the distance of their maps (Fig. 6)."""
    input:
        per_model(
            rules.head_clusters.output.figure,
            rules.head_clusters.output.points,
            rules.head_clusters.output.distances,
            rules.head_clusters.output.layers,
            rules.head_clusters.output.layers_boot,
        ),
