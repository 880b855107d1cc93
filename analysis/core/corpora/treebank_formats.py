"""The line formats of dependency treebanks (readers ``conllx``, ``conllu``, ``dp`` of
:mod:`analysis.core.corpora.dependency`): the lines of one document -> its sentences, each
``{"words", "heads" (0-based, -1 for the root), "rels", "pos"}``; a malformed line (wrong column
count, non-integer or out-of-range head, empty word) or tree (cycle, no root) raises
``TreebankError("<file>:<line>: ...")``. Unlabeled corpora (``.dp``) get the relation ``"_"``.
"""

from __future__ import annotations

from analysis.core.inputs import InputFileError

UNLABELED = "_"


class TreebankError(InputFileError):
    pass


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
