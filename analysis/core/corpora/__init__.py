"""Corpus readers: raw source files -> prepared input records (see ``analysis.core.inputs``).

A corpus in the config names a ``reader`` registered here plus its options; the
``prepare_inputs`` rule calls ``prepare(reader, raw_dir, tokenizer, **options)``.
Adding a user's own treebank is a config entry, not code.
"""

from __future__ import annotations

from collections.abc import Callable

READERS: dict[str, Callable] = {}


def reader(name: str):
    def deco(fn):
        READERS[name] = fn
        return fn

    return deco


def prepare(name: str, raw_dir, tokenizer, **options) -> tuple[list[dict], dict]:
    """Run reader ``name``; returns (records, counts)."""
    _load_all()
    if name not in READERS:
        raise ValueError(f"unknown corpus reader {name!r}; known: {sorted(READERS)}")
    return READERS[name](raw_dir, tokenizer, **options)


def _load_all() -> None:
    import importlib
    import pkgutil

    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")
