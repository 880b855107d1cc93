"""The registered coreference readers ``conll2012`` and ``ontogum`` (see ``analysis.core.corpora``):
documents of a source folder -> window records with their mentions, and counts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from analysis.core.corpora import reader
from analysis.core.corpora.coref.conll2012 import read_conll2012
from analysis.core.corpora.coref.ontogum import read_ontogum
from analysis.core.corpora.coref.windows import records_for
from analysis.core.corpora.splits import read_splits


@reader("conll2012")
def prepare_conll2012(
    raw_dir,
    tokenizer,
    pattern: str = "**/*_conll",
    max_docs: int | None = None,
    max_len: int = 128,
    windows: str = "first",
    stride: int | None = None,
):
    """CoNLL-2012 ``*_conll`` files under the source folder (``pattern``, a glob), every part a document.

    ``windows``: first (the paper's: each document's first ``max_len`` pieces) | overlapping
    (whole documents, a window every ``stride`` pieces; see :mod:`.windows`)."""
    files = sorted(Path(raw_dir).glob(pattern))
    if not files:
        raise ValueError(f"{raw_dir}: no files match {pattern!r}")
    docs = [d for f in files for d in read_conll2012(f)]
    empty = [f"{d.path}: {d.id}" for d in docs if not d.words]  # '#begin document' then '#end document'
    docs = [d for d in docs if d.words]
    if not docs:
        raise ValueError(f"{raw_dir}: every document in the files matching {pattern!r} is empty: {empty[:5]}")
    n_all = len(docs)
    docs = docs[:max_docs] if max_docs else docs
    records, counts = records_for(docs, tokenizer, max_len, windows, stride)
    counts.update(files=len(files), documents_available=n_all, documents_used=len(docs))
    counts.update(documents_empty=len(empty), documents_empty_ids=empty)
    return records, counts


@dataclass(frozen=True)
class OntoGumOptions:
    """The options of reader ``ontogum`` (a corpus's keys in the config): the documents of
    ``split`` (from ``splits_file``; 'all' = every file), at most ``max_docs``; ``max_len``,
    ``windows``, ``stride``: as for :func:`prepare_conll2012`; ``unbalanced``: error | skip (drop
    unbalanced brackets, counted; one upstream test2 file, GENTLE_poetry_road, has a stray ``3)``)."""

    split: str = "dev"
    max_docs: int | None = None
    max_len: int = 128
    windows: str = "first"
    stride: int | None = None
    splits_file: str = "splits.md"
    unbalanced: str = "error"


@reader("ontogum", options=OntoGumOptions)
def prepare_ontogum(raw_dir, tokenizer, options: OntoGumOptions = OntoGumOptions()):
    """OntoGUM documents of the split ``options`` names, in split order."""
    split, splits_file = options.split, options.splits_file
    if options.unbalanced not in ("error", "skip"):
        raise ValueError(f"unbalanced must be 'error' or 'skip', got {options.unbalanced!r}")
    raw = Path(raw_dir)
    if split == "all":
        names = sorted(p.stem for p in (raw / "conll").glob("*.conll"))
        missing: list[str] = []
    else:
        splits = read_splits(raw / splits_file)
        if split not in splits:
            raise ValueError(f"{raw / splits_file}: no split {split!r}; known: {sorted(splits)}")
        names = [n for n in splits[split] if (raw / "conll" / f"{n}.conll").exists()]
        missing = [n for n in splits[split] if n not in names]
    if not names:
        raise ValueError(f"{raw}: no OntoGUM documents for split {split!r}")
    used = names[: options.max_docs] if options.max_docs else names
    docs = [
        read_ontogum(raw / "conll" / f"{n}.conll", raw / "conllu" / f"{n}.conllu", options.unbalanced == "error")
        for n in used
    ]
    records, counts = records_for(docs, tokenizer, options.max_len, options.windows, options.stride)
    counts.update(
        split=split,
        documents_in_split=len(names) + len(missing),
        documents_missing_from_source=len(missing),
        missing=missing,
        documents_available=len(names),
        documents_used=len(used),
    )
    return records, counts
