"""CoNLL-2012 (OntoNotes ``*_conll``) files, read into the document model (:class:`.document.CorefDoc`).

Per token line, whitespace-separated: 11 fixed columns (document id, part, word index in its
sentence, word, POS, parse bit, lemma, frameset, sense, speaker, named entity), one
predicate-argument column per predicate OF THE SENTENCE (so the column count varies from sentence
to sentence, never within one), coreference LAST. ``#begin document (<id>); part <n>`` /
``#end document`` lines; a blank line ends a sentence. No dependency tree: mention heads come from
the head rule (:func:`.mentions.rule_head`).

Variants of public files, all read (and counted in the document's ``counts``):

- the coreference cell is ``-`` or ``_`` (no mention), or EMPTY: the line ends with a tab after
  the last column, or that empty field was stripped, so the line has one column fewer than the
  other lines of its sentence (or only the 11 fixed columns): ``coref_cells_empty``;
- no POS tags (``-``, ``_`` or ``XX``): mention types then come from a pronoun lexicon and
  capitalisation (counted per mention by :mod:`.windows`: ``mention_types_from_words``).

A truly malformed line (column counts differing otherwise, a last column that is no coreference
cell, a bad word index, unbalanced brackets) fails with file:line.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from analysis.core.corpora.coref.document import Brackets, CorefDoc
from analysis.core.inputs import InputFileError, read_text

FIXED_COLUMNS = 11  # document id ... named entity, before the predicate arguments
_BEGIN = re.compile(r"^#\s*begin document\s*(?:\((?P<paren>[^)]*)\)|(?P<bare>\S*))\s*;?\s*(?:part\s+(?P<part>\d+))?")
_CELL = re.compile(r"[-_]|[()\d|]*")  # '-', '_', empty, or bracketed integer cluster ids
_MENTION = re.compile(r"\(\d+|\d+\)")
_NO_POS = ("-", "_", "XX")
_PTB_ESCAPES = {
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
    "/.": ".",
    "/?": "?",
    "/-": "-",
}


def read_conll2012(path) -> list[CorefDoc]:
    """Every document (part) of a CoNLL-2012 ``*_conll`` file."""
    path = str(path)
    docs: list[CorefDoc] = []
    cur = None
    lineno = 0
    with io.StringIO(read_text(path), newline="") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n").rstrip("\r")
            where = f"{path}:{lineno}"
            if line.startswith("#begin document") or line.startswith("# begin document"):
                if cur is not None:
                    raise ValueError(f"{where}: '#begin document' inside document {cur['id']!r} (no '#end document')")
                cur = _open(line, path)
            elif line.startswith("#end document") or line.startswith("# end document"):
                if cur is None:
                    raise ValueError(f"{where}: '#end document' without '#begin document'")
                docs.append(_close(cur, lineno, path))
                cur = None
            elif line.startswith("#"):
                continue
            elif not line.strip():
                if cur is not None:
                    _end_sentence(cur, path)
            elif cur is None:
                raise ValueError(f"{where}: token line outside '#begin document' ... '#end document'")
            else:
                cur["pending"].append((lineno, line))
    if cur is not None:
        raise ValueError(f"{path}:{lineno}: file ends inside document {cur['id']!r} (no '#end document')")
    if not docs:
        raise InputFileError(f"{path}: no document ('#begin document' ... '#end document'); an empty file?")
    return docs


def sentence_cells(lines: list[tuple[int, str]], path: str) -> tuple[list[tuple[int, list[str], str]], int]:
    """The token lines of one sentence as (line number, columns before the coreference cell, cell),
    and how many cells were empty. An empty cell: the line ends with a tab after its last column,
    or it has one column fewer than the sentence's other lines, or only the 11 fixed columns."""
    rows = []
    for lineno, line in lines:
        cols = line.split()
        if line.endswith("\t"):
            if _MENTION.search(cols[-1]) and _CELL.fullmatch(cols[-1]):
                raise ValueError(f"{path}:{lineno}: a tab after the coreference cell {cols[-1]!r}; ambiguous")
            rows.append((lineno, cols, None))  # None: empty cell, as written
        else:
            rows.append((lineno, cols[:-1], cols[-1]))
    width = max(FIXED_COLUMNS, *(len(before) for _, before, _ in rows))
    out, empty = [], 0
    for lineno, before, cell in rows:
        if cell is not None and len(before) == width - 1:  # the empty field was stripped
            before, cell = [*before, cell], None
        if len(before) != width:
            n = len(before) + (cell is not None)
            raise ValueError(
                f"{path}:{lineno}: {n} columns where this sentence's lines have {width + 1} ({FIXED_COLUMNS} "
                "fixed, one per predicate of the sentence, coreference last; one fewer = an empty coreference cell)"
            )
        if cell is None:
            empty += 1
        elif not _CELL.fullmatch(cell):
            raise ValueError(
                f"{path}:{lineno}: last column {cell!r} is not a coreference cell "
                "(-, _, empty, or bracketed integer cluster ids)"
            )
        out.append((lineno, before, cell or ""))
    return out, empty


def _open(line: str, path: str) -> dict:
    """The document being read, from its ``#begin document`` line."""
    m = _BEGIN.match(line)
    doc_id = (m.group("paren") or m.group("bare") or Path(path).name).strip()
    if m.group("part") is not None:
        doc_id = f"{doc_id}/part_{int(m.group('part')):03d}"
    return {"id": doc_id, "words": [], "pos": [], "sents": [], "pending": [], "brackets": Brackets(path), "empty": 0}


def _end_sentence(cur: dict, path: str) -> None:
    """The sentence's buffered token lines, checked, added to the document being read."""
    if not cur["pending"]:
        return
    rows, empty = sentence_cells(cur["pending"], path)
    cur["pending"], cur["empty"] = [], cur["empty"] + empty
    start = len(cur["words"])
    for lineno, cols, cell in rows:
        try:
            idx = int(cols[2])
        except ValueError:
            raise ValueError(f"{path}:{lineno}: word index {cols[2]!r} is not an integer") from None
        if idx != len(cur["words"]) - start:
            raise ValueError(f"{path}:{lineno}: word index {idx}, expected {len(cur['words']) - start}")
        cur["brackets"].add(len(cur["words"]), cell, lineno)
        cur["words"].append(_PTB_ESCAPES.get(cols[3], cols[3]))
        cur["pos"].append(None if cols[4] in _NO_POS else cols[4])
    cur["sents"].append((start, len(cur["words"])))


def _close(cur: dict, lineno: int, path: str) -> CorefDoc:
    _end_sentence(cur, path)
    return CorefDoc(
        id=cur["id"],
        words=cur["words"],
        sentences=cur["sents"],
        mentions=cur["brackets"].finish(lineno),
        pos=cur["pos"],
        path=path,
        counts={"coref_cells_empty": cur["empty"]},
    )
