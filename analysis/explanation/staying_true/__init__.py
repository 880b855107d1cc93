"""Tutek & Snajder 2020 (rules/staying_true.smk): the regularised recurrent models, the attention tests on them and the model-based adversary."""
