# Extraction speed against the machine's matmul limit. Not in the default target:
#   snakemake --cores all benchmark


rule benchmark:
    """Segments/s of a naive batch-1 loop, a plain batched loop and the project's extraction
    on the same segments, against the roofline of the measured matmul rate; peak memory and
    bytes on disk (results/benchmark/extraction.csv, one block of rows per model)."""
    input:
        per_model(inputs_of(config["benchmark"]["corpus"])),
    output:
        "results/benchmark/extraction.csv",
    log:
        "logs/benchmark.log",
    benchmark:
        "benchmarks/benchmark.tsv"
    conda:
        CONDA_ENV
    threads: JOB_THREADS
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("benchmark", model=[MODELS[m] for m in CONFIGURED]),
        mem_mb=job_mem_mb("benchmark", model=[MODELS[m] for m in CONFIGURED]),
        runtime=job_runtime("benchmark", model=[MODELS[m] for m in CONFIGURED]),
    params:
        specs=[MODELS[m] for m in CONFIGURED],
        n_segments=config["benchmark"]["n_segments"],
        precisions=config["benchmark"]["precisions"],
        max_len=config["max_len"],
        batch_size=config["batch_size"],
        segment_ids=config["segment_ids"],
    script:
        "../workflow/benchmark.py"
