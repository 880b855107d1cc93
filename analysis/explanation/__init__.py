"""Attention as explanation: Serrano & Smith 2019 (erasure), Jain & Wallace 2019 (permutation, adversarial, rank agreement)."""
