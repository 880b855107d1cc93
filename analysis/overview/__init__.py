"""The overview besides the claims engine (rules/overview.smk): the attention-map explorer, the models compared."""
