"""Clark sec. 6 (rules/clark_clusters.smk): heads clustered by the Jensen-Shannon distance of their maps (Fig. 6)."""
