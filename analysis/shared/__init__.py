"""Helpers shared by the papers' analyses: rule I/O, figure style, metrics, word vectors, head selection."""
