"""The metric columns of Clark et al.'s sec. 3 tables: one list per rule, written by the rule
(workflow/<rule>.py) and made again by the calibration on the project's own data
(tools/measure/own_families.py)."""

SPECIAL_TOKENS = ["cls", "sep", "punct"]  # per layer: the share of attention to each
SEP_ATTENTION = ["sep_from_sep", "sep_from_other"]  # per layer: [SEP]'s share from [SEP] and from other tokens
ENTROPY = ["entropy", "uniform_entropy", "entropy_cls", "uniform_entropy_cls"]  # per layer
RELATIVE_POSITION = ["prev", "current", "next"]  # per head: the share to each offset
