"""Kovaleva, Romanov, Rogers, Rumshisky 2019, "Revealing the Dark Secrets of BERT": the science of every Kovaleva rule."""
