"""Dependency treebanks: CoNLL-X, CoNLL-U and NLTK's ``.dp`` files -> prepared records.

Every reader returns one record per sentence::

    {"id": "<doc>:<sent>", "words": [[words]],
     "meta": {"heads": [0-based head index, -1 for the root], "rels": [...], "pos": [...],
              "doc": "<doc>", "sent": <0-based sentence index in doc>}}

so a gold tree travels with the attention maps (see ``analysis.core.storage``). Unlabeled
corpora (``.dp``) get the relation ``"_"``.

Any corpus in one of these formats works by config alone::

    my_ptb_sd:                       # e.g. a user's own PTB converted to Stanford Dependencies
      reader: conllx                 # conllx | conllu | dp
      source: my_source              # a source: config/sources.yaml, or local_sources: {my_source: /data/ptb-sd}
      files: "*.conll"               # glob under the source's folder; zip archives are opened
      members: "*.dp"                # glob for the members of a zip archive
      split: dev                     # optional: pick documents by a splits file ...
      splits_file: splits.md         # ... with '## dev' / '## test' / '## train' bullet lists
      max_sentences: 1000            # optional: a seeded, deterministic sample (counted)
      seed: 0

A document is one file (or zip member); its name without extension is the ``doc``. With
``split``, the documents listed under ``## <split>`` are taken; ``split: train`` also takes
every document listed under neither dev nor test. Malformed lines (wrong column count,
non-integer or out-of-range head, cycles, no root) raise ``ValueError("<file>:<line>: ...")``
(the line formats: :mod:`analysis.core.corpora.treebank_formats`).
"""

from __future__ import annotations

import fnmatch
import zipfile
from pathlib import Path

from analysis.core.corpora import reader
from analysis.core.corpora.splits import read_splits
from analysis.core.corpora.treebank_formats import PARSERS, TreebankError
from analysis.core.inputs import decode_utf8, read_text, seeded_subset

# --------------------------------------------------------------------------- files, splits


def _documents(raw_dir: Path, files: str, members: str) -> list[tuple[str, str, list[str]]]:
    """(doc name, display path, lines) for every file matching ``files`` (sorted); zip
    archives are opened and their members matching ``members`` taken (sorted)."""
    paths = sorted(p for p in raw_dir.glob(files) if p.is_file())
    if not paths:
        raise FileNotFoundError(f"{raw_dir}: no file matches {files!r}")
    docs = []
    for p in paths:
        if p.suffix == ".zip":
            with zipfile.ZipFile(p) as z:
                names = sorted(
                    n for n in z.namelist() if not n.endswith("/") and fnmatch.fnmatch(Path(n).name, members)
                )
                for n in names:
                    text = decode_utf8(z.read(n), f"{p}!{n}")
                    docs.append((_stem(Path(n).name), f"{p}!{n}", text.splitlines()))
        else:
            docs.append((_stem(p.name), str(p), read_text(p).splitlines()))
    for _, where, lines in docs:
        if not any(line.strip() for line in lines):
            # a truncated copy or a wrong glob, never silently a document with no sentence
            raise TreebankError(f"{where}: empty file (no sentence); remove it or narrow 'files' / 'members'")
    return docs


def _stem(name: str) -> str:
    return name.split(".", 1)[0] if not name.startswith(".") else name


def select_documents(docs, raw_dir: Path, split: str | None, splits_file: str, counts: dict):
    if split is None:
        return docs
    splits = read_splits(raw_dir / splits_file)
    split = split.lower()
    present = {d[0] for d in docs}
    if split == "train":
        others = {d for name, ds in splits.items() if name in ("dev", "test") for d in ds}
        chosen = [d for d in docs if d[0] not in others]
    else:
        if split not in splits:
            raise ValueError(f"{raw_dir / splits_file}: no '## {split}' section (has {sorted(splits)})")
        wanted = set(splits[split])
        chosen = [d for d in docs if d[0] in wanted]
        counts["split_listed_documents_absent"] = len(wanted - present)
    counts["split"] = split
    if not chosen:
        raise ValueError(f"{raw_dir / splits_file}: no document of split {split!r} is present")
    return chosen


DEFAULT_FILES = {"conllx": "*.conll*", "conllu": "*.conllu", "dp": "*.dp"}


def read_treebank(
    raw_dir,
    fmt: str,
    files: str | None = None,
    members: str | None = None,
    split: str | None = None,
    splits_file: str = "splits.md",
    max_sentences: int | None = None,
    seed: int = 0,
) -> tuple[list[dict], dict]:
    """Records (see the module docstring) and counts of what was read, skipped or sampled."""
    if fmt not in PARSERS:
        raise ValueError(f"unknown treebank format {fmt!r}; one of {sorted(PARSERS)}")
    raw_dir = Path(raw_dir)
    counts: dict = {"format": fmt}
    docs = _documents(raw_dir, files or DEFAULT_FILES[fmt], members or DEFAULT_FILES[fmt])
    docs = select_documents(docs, raw_dir, split, splits_file, counts)
    records = []
    for doc, where, lines in docs:
        for s, sent in enumerate(PARSERS[fmt](lines, where, counts)):
            records.append(
                {
                    "id": f"{doc}:{s}",
                    "words": [sent["words"]],
                    "meta": {"heads": sent["heads"], "rels": sent["rels"], "pos": sent["pos"], "doc": doc, "sent": s},
                }
            )
    counts.update(
        documents=len(docs), sentences_read=len(records), tokens_read=sum(len(r["words"][0]) for r in records)
    )
    records = seeded_subset(records, max_sentences, seed)
    counts["sentences_kept"] = len(records)
    counts["sentences_left_out_by_max_sentences"] = counts["sentences_read"] - len(records)
    counts["tokens_kept"] = sum(len(r["words"][0]) for r in records)
    return records, counts


def _reader(fmt):
    def read(
        raw_dir,
        tokenizer,
        files=None,
        members=None,
        split=None,
        splits_file="splits.md",
        max_sentences=None,
        seed=0,
    ):
        return read_treebank(
            raw_dir,
            fmt,
            files=files,
            members=members,
            split=split,
            splits_file=splits_file,
            max_sentences=max_sentences,
            seed=seed,
        )

    read.__name__ = f"read_{fmt}"
    read.__doc__ = f"Reader ``{fmt}``: see ``read_treebank``."
    return read


read_conllx = reader("conllx")(_reader("conllx"))
read_conllu = reader("conllu")(_reader("conllu"))
read_dp = reader("dp")(_reader("dp"))
