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
non-integer or out-of-range head, cycles, no root) raise ``ValueError("<file>:<line>: ...")``.
"""

from __future__ import annotations

import fnmatch
import zipfile
from pathlib import Path

from analysis.core.corpora import reader
from analysis.core.corpora.splits import read_splits
from analysis.core.inputs import InputFileError, decode_utf8, read_text, seeded_subset

UNLABELED = "_"


class TreebankError(InputFileError):
    pass


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


# --------------------------------------------------------------------------- trees


def check_tree(heads: list[int], where: str, lines: list[int]) -> None:
    """``heads`` 0-based (-1 = root). Raise with file:line on no root or a cycle."""
    n = len(heads)
    if not any(h == -1 for h in heads):
        raise TreebankError(f"{where}:{lines[0]}: sentence has no root (no token with head 0)")
    state = [0] * n  # 0 unvisited, 1 on the current path, 2 reaches the root
    for start in range(n):
        path = []
        i = start
        while i != -1 and state[i] == 0:
            state[i] = 1
            path.append(i)
            i = heads[i]
        if i != -1 and state[i] == 1:
            raise TreebankError(f"{where}:{lines[i]}: cycle in the dependency tree through token {i + 1}")
        for j in path:
            state[j] = 2


def _blocks(lines: list[str]):
    """Yield (first line number, [(lineno, line)]) per blank-line-separated block."""
    block: list[tuple[int, str]] = []
    for lineno, line in enumerate(lines, 1):
        if line.strip():
            block.append((lineno, line.rstrip("\r\n")))
        elif block:
            yield block
            block = []
    if block:
        yield block


def _head(value: str, n: int, where: str, lineno: int) -> int:
    try:
        h = int(value)
    except ValueError:
        raise TreebankError(f"{where}:{lineno}: head {value!r} is not an integer") from None
    if not 0 <= h <= n:
        raise TreebankError(f"{where}:{lineno}: head {h} out of range 0..{n}")
    return h - 1


def _sentence(words, heads, rels, pos, lines, where) -> dict:
    for w, ln in zip(words, lines):
        if not w or not w.strip():
            raise TreebankError(f"{where}:{ln}: empty word form")
    check_tree(heads, where, lines)
    return {"words": words, "heads": heads, "rels": rels, "pos": pos}


def parse_conllx(lines: list[str], where: str, counts: dict) -> list[dict]:
    """CoNLL-X: 10 tab-separated columns ID FORM LEMMA CPOSTAG POSTAG FEATS HEAD DEPREL
    PHEAD PDEPREL; ``#`` comment lines (as in GUM) are skipped."""
    out = []
    for block in _blocks(lines):
        rows = [(ln, line) for ln, line in block if not line.startswith("#")]
        if not rows:
            continue
        n = len(rows)
        words, heads, rels, pos, lnos = [], [], [], [], []
        for k, (ln, line) in enumerate(rows, 1):
            cols = line.split("\t")
            if len(cols) != 10:
                raise TreebankError(f"{where}:{ln}: {len(cols)} tab-separated columns, CoNLL-X needs 10")
            if cols[0] != str(k):
                raise TreebankError(f"{where}:{ln}: token id {cols[0]!r}, expected {k}")
            words.append(cols[1])
            heads.append(_head(cols[6], n, where, ln))
            rels.append(cols[7])
            pos.append(cols[4] if cols[4] != "_" else cols[3])
            lnos.append(ln)
        out.append(_sentence(words, heads, rels, pos, lnos, where))
    return out


def parse_conllu(lines: list[str], where: str, counts: dict) -> list[dict]:
    """CoNLL-U via the ``conllu`` package; multiword-token ranges and empty nodes are
    skipped (counted). Column counts and heads are checked here, with line numbers."""
    import conllu

    out = []
    for block in _blocks(lines):
        rows = [(ln, line) for ln, line in block if not line.startswith("#")]
        if not rows:
            continue
        for ln, line in rows:
            ncol = len(line.split("\t"))
            if ncol != 10:
                raise TreebankError(f"{where}:{ln}: {ncol} tab-separated columns, CoNLL-U needs 10")
            tid, head = line.split("\t")[0], line.split("\t")[6]
            if tid.isdigit() and not head.lstrip("-").isdigit():
                raise TreebankError(f"{where}:{ln}: head {head!r} is not an integer")
        try:
            (tokens,) = conllu.parse("\n".join(line for _, line in rows) + "\n\n")
        except Exception as err:  # conllu raises its own ParseException
            raise TreebankError(f"{where}:{rows[0][0]}: {err}") from None
        regular = []
        for (ln, line), tok in zip(rows, tokens):
            tid = tok["id"]
            if isinstance(tid, tuple):
                key = "multiword_tokens_skipped" if tid[1] == "-" else "empty_nodes_skipped"
                counts[key] = counts.get(key, 0) + 1
                continue
            regular.append((ln, line, tok))
        n = len(regular)
        words, heads, rels, pos, lnos = [], [], [], [], []
        for k, (ln, line, tok) in enumerate(regular, 1):
            if tok["id"] != k:
                raise TreebankError(f"{where}:{ln}: token id {tok['id']!r}, expected {k}")
            words.append(tok["form"])
            heads.append(_head(line.split("\t")[6], n, where, ln))
            rels.append(tok["deprel"])
            pos.append(tok["xpos"] or tok["upos"] or "_")
            lnos.append(ln)
        out.append(_sentence(words, heads, rels, pos, lnos, where))
    return out


def parse_dp(lines: list[str], where: str, counts: dict) -> list[dict]:
    """NLTK ``.dp`` (the dependency_treebank sample): ``word TAG head`` per line (head
    1-based, 0 = root), a blank line between sentences; unlabeled (relation ``"_"``).
    A fourth column, when every line of a file has one, is taken as the relation."""
    out = []
    for block in _blocks(lines):
        n = len(block)
        words, heads, rels, pos, lnos = [], [], [], [], []
        for ln, line in block:
            cols = line.split("\t") if "\t" in line else line.split()
            if len(cols) not in (3, 4):
                raise TreebankError(f"{where}:{ln}: {len(cols)} columns, a .dp line is 'word TAG head'")
            words.append(cols[0])
            pos.append(cols[1])
            heads.append(_head(cols[2], n, where, ln))
            rels.append(cols[3] if len(cols) == 4 else UNLABELED)
            lnos.append(ln)
        out.append(_sentence(words, heads, rels, pos, lnos, where))
    return out


PARSERS = {"conllx": parse_conllx, "conllu": parse_conllu, "dp": parse_dp}
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
