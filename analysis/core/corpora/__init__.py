"""Corpus readers: raw source files -> prepared input records (see ``analysis.core.inputs``).

A corpus in the config names a ``reader`` registered here plus its options; the
``prepare_inputs`` rule calls ``prepare(reader, raw_dir, tokenizer, max_len, **options)``.
Adding a user's own treebank is a config entry, not code.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import fields

READERS: dict[str, Callable] = {}
# the readers whose options come as one frozen dataclass (many options): reader name -> that class
OPTIONS: dict[str, type] = {}


def reader(name: str, options: type | None = None):
    """Register a reader: its options are its keyword parameters or, given ``options`` (a dataclass),
    that class's fields, passed to it as one object: ``fn(raw_dir, tokenizer, options(**given))``."""

    def deco(fn):
        READERS[name] = fn
        if options is not None:
            OPTIONS[name] = options
        return fn

    return deco


def prepare(name: str, raw_dir, tokenizer, max_len: int | None = None, **options) -> tuple[list[dict], dict]:
    """Run reader ``name`` with ``options``; returns (records, counts).

    ``max_len`` goes to the readers that cut inputs by length (the others ignore it). An option
    the reader does not take is an error naming it: a misspelt option is never dropped silently.
    """
    _load_all()
    if name not in READERS:
        raise ValueError(f"unknown corpus reader {name!r}; known: {sorted(READERS)}")
    fn, holder = READERS[name], OPTIONS.get(name)
    params = [f.name for f in fields(holder)] if holder else list(inspect.signature(fn).parameters)
    unknown = sorted(set(options) - set(params))
    if unknown:
        known = sorted(k for k in params if k not in ("raw_dir", "tokenizer", "max_len"))
        raise ValueError(f"corpus reader {name!r}: unknown option(s) {unknown}; it takes {known}")
    if max_len is not None and "max_len" in params:
        options["max_len"] = max_len
    return fn(raw_dir, tokenizer, holder(**options)) if holder else fn(raw_dir, tokenizer, **options)


def _load_all() -> None:
    import importlib
    import pkgutil

    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")
