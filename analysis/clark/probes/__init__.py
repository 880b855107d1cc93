"""Clark sec. 5 (rules/clark_probes.smk): the attention-based dependency probes, their data, training, replicate tables."""
