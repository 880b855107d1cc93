"""OntoGUM (``ontogum/conll/<doc>.conll``), read into the document model (:class:`.document.CorefDoc`):
3 tab-separated columns (index, word, coreference), one ``# begin document`` per file, no sentence
breaks. Sentence boundaries, PTB POS tags and the dependency tree come from the matching
``ontogum/conllu/<doc>.conllu`` (words are aligned one to one; multi-word token ranges and empty
nodes of the ``.conllu`` are skipped). CoNLL-2012 files: :mod:`.conll2012`.
"""

from __future__ import annotations

import io
from pathlib import Path

from analysis.core.corpora.coref.document import Brackets, CorefDoc
from analysis.core.inputs import read_text


def read_conllu_tokens(path) -> tuple[list[dict], list[tuple[int, int]]]:
    """Word tokens of a ``.conllu`` file (ranges and empty nodes skipped) and sentence ranges.

    Each token: form, xpos, upos, head (document index, -1 root), deprel, line."""
    path = str(path)
    toks: list[dict] = []
    sents: list[tuple[int, int]] = []
    start = 0

    def end_sentence():
        nonlocal start
        if len(toks) > start:
            sents.append((start, len(toks)))
            start = len(toks)

    with io.StringIO(read_text(path), newline=None) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n").rstrip("\r")
            if not line.strip():
                end_sentence()
                continue
            if line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) != 10:
                raise ValueError(f"{path}:{lineno}: {len(cols)} tab-separated columns, CoNLL-U has 10")
            if "-" in cols[0] or "." in cols[0]:
                continue  # multi-word token range or empty node
            try:
                tid, head = int(cols[0]), int(cols[6])
            except ValueError:
                raise ValueError(f"{path}:{lineno}: non-integer ID {cols[0]!r} or HEAD {cols[6]!r}") from None
            n_in_sent = len(toks) - start
            if tid != n_in_sent + 1:
                raise ValueError(f"{path}:{lineno}: token ID {tid}, expected {n_in_sent + 1}")
            toks.append(
                {
                    "form": cols[1],
                    "upos": cols[3],
                    "xpos": None if cols[4] == "_" else cols[4],
                    "head": head,
                    "deprel": cols[7],
                    "line": lineno,
                    "sent_start": start,
                }
            )
    end_sentence()
    _heads_to_document(toks, sents, path)
    return toks, sents


def _heads_to_document(toks: list[dict], sents: list[tuple[int, int]], path: str) -> None:
    """Sentence-relative heads (1-based, 0 root) -> document indices (-1 root), checked, in place."""
    end_of = dict(sents)
    for t in toks:
        s, e = t["sent_start"], end_of[t["sent_start"]]
        if t["head"] == 0:
            t["head"] = -1
        elif not 1 <= t["head"] <= e - s:
            raise ValueError(f"{path}:{t['line']}: HEAD {t['head']} outside its sentence of {e - s} words")
        else:
            t["head"] = s + t["head"] - 1


def read_ontogum(conll_path, conllu_path, strict: bool = True) -> CorefDoc:
    """One OntoGUM document: 3-column coreference file + its ``.conllu``.

    Quirk of the upstream files: a ``|`` word is empty in the 3-column file (the converter
    used ``|`` as a separator); an empty word takes the ``.conllu`` form, counted as
    ``words_restored_from_conllu``. ``strict=False`` drops unbalanced brackets (counted as
    ``unbalanced_brackets_skipped``) instead of failing."""
    conll_path, conllu_path = str(conll_path), str(conllu_path)
    toks, sents = read_conllu_tokens(conllu_path)
    words: list[str] = []
    brackets = Brackets(conll_path, strict)
    quirks = {"words_restored_from_conllu": 0}
    begun = ended = False
    lineno = 0
    with io.StringIO(read_text(conll_path), newline=None) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n").rstrip("\r")
            where = f"{conll_path}:{lineno}"
            if line.startswith("# begin document") or line.startswith("#begin document"):
                if begun:
                    raise ValueError(f"{where}: a second '# begin document'; OntoGUM has one document per file")
                begun = True
                continue
            if line.startswith("# end document") or line.startswith("#end document"):
                ended = True
                continue
            if not line.strip() or line.startswith("#"):
                continue
            if not begun or ended:
                raise ValueError(f"{where}: token line outside '# begin document' ... '# end document'")
            cols = line.split("\t")
            _check_ontogum_word(cols, words, toks, where, conllu_path, quirks)
            brackets.add(len(words), cols[2], lineno)
            words.append(cols[1])
    if not begun:
        raise ValueError(f"{conll_path}:1: no '# begin document' line")
    if len(words) != len(toks):
        raise ValueError(f"{conll_path}:{lineno}: {len(words)} words but {conllu_path} has {len(toks)}")
    mentions = brackets.finish(lineno)
    quirks["unbalanced_brackets_skipped"] = brackets.skipped
    return CorefDoc(
        id=Path(conll_path).stem,
        words=words,
        sentences=sents,
        mentions=mentions,
        pos=[t["xpos"] for t in toks],
        heads=[t["head"] for t in toks],
        deprels=[t["deprel"] for t in toks],
        path=conll_path,
        counts=quirks,
    )


def _check_ontogum_word(cols: list[str], words: list[str], toks: list[dict], where: str, conllu_path: str, quirks):
    """Check one 3-column line against the ``.conllu`` token it aligns with; an empty word
    (the upstream ``|`` quirk) takes the ``.conllu`` form, in ``cols``, counted."""
    if len(cols) != 3:
        raise ValueError(f"{where}: {len(cols)} tab-separated columns; OntoGUM coreference files have 3")
    if cols[0] != str(len(words)):
        raise ValueError(f"{where}: index {cols[0]!r}, expected {len(words)}")
    i = len(words)
    if i >= len(toks):
        raise ValueError(f"{where}: word {cols[1]!r} beyond the {len(toks)} words of {conllu_path}")
    if cols[1] == "":
        cols[1] = toks[i]["form"]
        quirks["words_restored_from_conllu"] += 1
    if toks[i]["form"] != cols[1]:
        raise ValueError(f"{where}: word {cols[1]!r} but {conllu_path}:{toks[i]['line']} has {toks[i]['form']!r}")
