"""The claims engine: config/claims/*.yaml evaluated on a model's tables (checks, values, training runs
pooled, the scorecard table and its pages). The explorer and the models compared: ``analysis.overview``."""
