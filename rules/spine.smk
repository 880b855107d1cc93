# The spine: sources -> prepared inputs -> attention shards. No paper's code is imported here.


rule fetch_source:
    """Download a source from upstream (or copy it from the mirror) and check every sha256; a
    local (path:) source is copied and its files' sha256 recorded (the record of its first use)."""
    output:
        "resources/raw/{source}/SHA256SUMS",
    log:
        "logs/fetch_source/{source}.log",
    wildcard_constraints:
        source="|".join(map(re.escape, SOURCES)),
    # seconds each, and every other job waits for one: first
    priority: 60
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("fetch_source"),
        runtime=job_runtime("fetch_source"),
    params:
        source=lambda wc: SOURCES[wc.source],
        mirror=MIRROR,
    script:
        "../workflow/fetch_source.py"


rule verify_local_source:
    """Compare a local source's files with the record of their first use; refuse any change."""
    input:
        record="resources/raw/{source}/SHA256SUMS",
        files=local_source_files,
    output:
        "resources/raw/{source}/SHA256SUMS.verified",
    log:
        "logs/verify_local_source/{source}.log",
    wildcard_constraints:
        source="|".join(map(re.escape, LOCAL_SOURCES)) or "(?!)",
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("verify_local_source"),
        runtime=job_runtime("verify_local_source"),
    params:
        path=lambda wc: SOURCES[wc.source]["path"],
    script:
        "../workflow/verify_local_source.py"


rule prepare_inputs:
    """Read a corpus into prepared input records (JSON lines) with counts of anything cut."""
    input:
        lambda wc: raw_sums(CORPORA[wc.corpus]["source"]),
    output:
        records=inputs_of("{corpus}"),
        counts=inputs_of("{corpus}", "counts.json"),
    log:
        "logs/{model}/prepare_inputs.{corpus}.log",
    priority: 60
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("prepare_inputs"),
        runtime=job_runtime("prepare_inputs"),
    params:
        spec=model_spec,
        # the reader's options: n_shards only cuts the extraction, so changing it re-prepares nothing
        corpus=lambda wc: {k: v for k, v in CORPORA[wc.corpus].items() if k != "n_shards"},
        max_len=config["max_len"],
    script:
        "../workflow/prepare_inputs.py"


rule measure_matmul:
    """Measure once on this machine how fast fp32, bf16 and fp16 matmuls run: precision: auto
    decides on this record (with the machine's fingerprint; another machine's is refused)."""
    output:
        MATMUL_RATES,
    log:
        "logs/measure_matmul.log",
    # seconds, and every extraction waits for it: first
    priority: 60
    conda:
        CONDA_ENV
    # the extraction's CPU budget: the rates are those the extraction jobs see
    threads: JOB_THREADS
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("measure_matmul"),
        mem_mb=job_mem_mb("measure_matmul"),
        runtime=job_runtime("measure_matmul"),
    script:
        "../workflow/measure_matmul.py"


rule extract_attention:
    """Word-piece attention maps of one shard of a corpus (float16, unpadded); the precision
    used and why (``precision: auto``) in the shard's header and the run-info sidecar."""
    input:
        records=inputs_of("{corpus}"),
        machine=machine_rates_input,
    output:
        npy=maps_file("resources/attention/{model}/{corpus}/shard-{shard}.npy"),
        json="resources/attention/{model}/{corpus}/shard-{shard}.json",
        run_info=sidecar("extract_attention", "{corpus}", "{shard}"),
    log:
        "logs/{model}/extract_attention.{corpus}.{shard}.log",
    benchmark:
        "benchmarks/{model}/extract_attention.{corpus}.{shard}.tsv"
    priority: extraction_priority
    conda:
        CONDA_ENV
    threads: JOB_THREADS
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("extract_attention"),
        mem_mb=job_mem_mb("extract_attention"),
        runtime=job_runtime("extract_attention"),
    params:
        spec=model_spec,
        n_shards=lambda wc: CORPORA[wc.corpus]["n_shards"],
        max_len=config["max_len"],
        policy=config["max_len_policy"],
        batch_size=config["batch_size"],
        segment_ids=config["segment_ids"],
        precision=config["precision"],
    script:
        "../workflow/extract_attention.py"
