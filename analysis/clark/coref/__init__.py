"""Clark sec. 4.3 coreference (rules/clark_coref.smk): antecedent selection per head (Table 2) and the GAP extra."""
