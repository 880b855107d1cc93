"""The claim scorecard (config/paper_claims.yaml evaluated on a model's tables), the comparison
of models side by side and the static attention-map explorer."""
