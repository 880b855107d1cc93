"""Clark sec. 4 syntax (rules/clark_syntax.smk): heads that track dependency relations, offset baselines, Table 1."""
