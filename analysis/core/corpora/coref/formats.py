"""The two coreference input formats, read into one document model (:class:`.document.CorefDoc`):

- **CoNLL-2012** (OntoNotes ``*_conll``): 12 or more whitespace-separated columns per token
  (document id, part, word index in its sentence, word, POS, parse bit, lemma, frameset,
  sense, speaker, named entity, predicate arguments..., coreference LAST);
  ``#begin document (<id>); part <n>`` / ``#end document`` lines; a blank line ends a sentence.
  No dependency tree: mention heads come from the head rule (:func:`.mentions.rule_head`).
- **OntoGUM** (``ontogum/conll/<doc>.conll``): 3 tab-separated columns (index, word, coreference),
  one ``# begin document`` per file, no sentence breaks. Sentence boundaries, PTB POS tags
  and the dependency tree come from the matching ``ontogum/conllu/<doc>.conllu`` (words are
  aligned one to one; multi-word token ranges and empty nodes of the ``.conllu`` are skipped).
"""

from __future__ import annotations

import re
from pathlib import Path

from analysis.core.corpora.coref.document import Brackets, CorefDoc

# ---------------------------------------------------------------------------- CoNLL-2012

_BEGIN = re.compile(r"^#\s*begin document\s*(?:\((?P<paren>[^)]*)\)|(?P<bare>\S*))\s*;?\s*(?:part\s+(?P<part>\d+))?")
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
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n").rstrip("\r")
            where = f"{path}:{lineno}"
            if line.startswith("#begin document") or line.startswith("# begin document"):
                if cur is not None:
                    raise ValueError(f"{where}: '#begin document' inside document {cur['id']!r} (no '#end document')")
                cur = _open_conll2012(line, path)
                continue
            if line.startswith("#end document") or line.startswith("# end document"):
                if cur is None:
                    raise ValueError(f"{where}: '#end document' without '#begin document'")
                docs.append(_close_conll2012(cur, lineno, path))
                cur = None
                continue
            if line.startswith("#"):
                continue
            if not line.strip():
                if cur is not None and len(cur["words"]) > cur["sent_start"]:
                    cur["sents"].append((cur["sent_start"], len(cur["words"])))
                    cur["sent_start"] = len(cur["words"])
                continue
            if cur is None:
                raise ValueError(f"{where}: token line outside '#begin document' ... '#end document'")
            _add_conll2012_token(cur, line.split(), where, lineno)
    if cur is not None:
        raise ValueError(f"{path}:{lineno}: file ends inside document {cur['id']!r} (no '#end document')")
    return docs


def _open_conll2012(line: str, path: str) -> dict:
    """The document being read, from its ``#begin document`` line."""
    m = _BEGIN.match(line)
    doc_id = (m.group("paren") or m.group("bare") or Path(path).name).strip()
    if m.group("part") is not None:
        doc_id = f"{doc_id}/part_{int(m.group('part')):03d}"
    return {
        "id": doc_id,
        "words": [],
        "pos": [],
        "sents": [],
        "sent_start": 0,
        "brackets": Brackets(path),
        "ncols": None,
    }


def _add_conll2012_token(cur: dict, cols: list[str], where: str, lineno: int) -> None:
    """One token line (its columns), checked, added to the document being read."""
    if len(cols) < 12:
        raise ValueError(f"{where}: {len(cols)} columns; CoNLL-2012 lines have 12 or more")
    if cur["ncols"] is None:
        cur["ncols"] = len(cols)
    elif len(cols) != cur["ncols"]:
        raise ValueError(f"{where}: {len(cols)} columns, earlier lines of this document have {cur['ncols']}")
    try:
        idx = int(cols[2])
    except ValueError:
        raise ValueError(f"{where}: word index {cols[2]!r} is not an integer") from None
    if idx != len(cur["words"]) - cur["sent_start"]:
        raise ValueError(f"{where}: word index {idx}, expected {len(cur['words']) - cur['sent_start']}")
    cur["brackets"].add(len(cur["words"]), cols[-1], lineno)
    cur["words"].append(_PTB_ESCAPES.get(cols[3], cols[3]))
    cur["pos"].append(None if cols[4] in ("-", "_", "XX") else cols[4])


def _close_conll2012(cur, lineno, path) -> CorefDoc:
    if len(cur["words"]) > cur["sent_start"]:
        cur["sents"].append((cur["sent_start"], len(cur["words"])))
    return CorefDoc(
        id=cur["id"],
        words=cur["words"],
        sentences=cur["sents"],
        mentions=cur["brackets"].finish(lineno),
        pos=cur["pos"],
        path=path,
    )


# ---------------------------------------------------------------------------- OntoGUM


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

    with open(path, encoding="utf-8") as f:
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
    with open(conll_path, encoding="utf-8") as f:
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
