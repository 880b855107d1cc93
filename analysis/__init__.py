"""Attention analyses of Clark et al. 2019, Kovaleva et al. 2019 and the
attention-as-explanation tests, as plain functions on numpy/torch/pandas objects.

Heads and layers are 0-indexed inside the library and 1-indexed in every table and
figure (as in the papers): tables carry ``layer`` and ``head`` columns counted from 1.
"""
