"""Rule benchmark (rules/benchmark.smk, not in rule all): the extraction timed against the matmul limit."""
