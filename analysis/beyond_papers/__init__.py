"""Analyses users of attention tooling ask for beyond the three papers (rules/beyond_papers.smk):
attention rollout and flow (Abnar & Zuidema 2020) and gradient head importance with pruning
(Michel, Levy & Neubig 2019)."""
