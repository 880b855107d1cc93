"""Helpers shared by the papers: rule I/O, figure style, bootstrap, word vectors, head selection, map statistics."""
