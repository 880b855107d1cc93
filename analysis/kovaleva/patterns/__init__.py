"""Kovaleva et al. 2019, pattern types (rules/kovaleva_patterns.smk): map features, the pattern classifier, shares and the hand-labelled set."""
