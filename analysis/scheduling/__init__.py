"""What the heavy rules ask a cluster for, gathered from the spine and each paper's work.py (read by rules/scheduling.smk and the resource tools)."""
