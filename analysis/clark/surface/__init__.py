"""Clark sec. 3 (rules/clark_surface.smk): surface patterns, their shard sums and replicate tables, gradient importance."""
