"""Coreference corpora (Clark et al. sec. 4.3): CoNLL-2012 ``*_conll`` files and OntoGUM.

Two input formats, one document model (:class:`CorefDoc`):

- **CoNLL-2012** (OntoNotes ``*_conll``): 12 or more whitespace-separated columns per token
  (document id, part, word index in its sentence, word, POS, parse bit, lemma, frameset,
  sense, speaker, named entity, predicate arguments..., coreference LAST);
  ``#begin document (<id>); part <n>`` / ``#end document`` lines; a blank line ends a sentence.
  No dependency tree: mention heads come from the head rule (:func:`rule_head`).
- **OntoGUM** (``ontogum/conll/<doc>.conll``): 3 tab-separated columns (index, word, coreference),
  one ``# begin document`` per file, no sentence breaks. Sentence boundaries, PTB POS tags
  and the dependency tree come from the matching ``ontogum/conllu/<doc>.conllu`` (words are
  aligned one to one; multi-word token ranges and empty nodes of the ``.conllu`` are skipped).

The coreference cell holds ``-`` / ``_`` or bracket parts, optionally separated by ``|``:
``(12)`` a one-word mention, ``(12`` opens, ``12)`` closes the innermost open mention of
cluster 12; parts may be glued (``(1(2)``). Unbalanced brackets fail with file:line.

Mention head word: the token of the span whose dependency head lies outside the span (the
highest such token in the tree if several; punctuation only as a last resort; for a UD ``flat``
name the last word, as PTB head rules do: ``Lord Byron`` -> ``Byron``); without a tree,
:func:`rule_head`. Mention type from the head's POS (PRP, PRP$, WP, WP$ -> pronoun, NNP, NNPS ->
proper, else nominal), a one-word mention from :data:`PRONOUNS` counts as a pronoun too.

Documents are cut into windows of at most ``max_len`` word pieces (special tokens included)
made of whole sentences (a sentence longer than a window is cut at word boundaries, counted);
a window starts ``stride`` pieces after the previous one's start (snapped back to a sentence
start, at least one sentence on). A mention is evaluated in the EARLIEST window that holds it
whole, i.e. the one with the most left context; it is scorable only when one of its antecedents
lies in that window too. Everything that cannot be scored is counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from analysis.core.corpora import reader

# ---------------------------------------------------------------------------- document model


@dataclass
class Mention:
    start: int  # first word (document index)
    end: int  # last word, inclusive
    cluster: str
    where: str = ""  # file:line where it was opened

    @property
    def key(self) -> tuple[int, int]:
        """Document order: by start, the longer (outer) mention first."""
        return (self.start, -self.end)


def precedes(a_start: int, a_end: int, m_start: int, m_end: int) -> bool:
    """Mention a precedes mention m: it starts earlier and does not contain m
    (so a mention never has an enclosing mention as antecedent)."""
    return a_start < m_start and a_end < m_end


@dataclass
class CorefDoc:
    id: str
    words: list[str]
    sentences: list[tuple[int, int]]  # [start, end) word ranges
    mentions: list[Mention]
    pos: list[str | None] = field(default_factory=list)  # PTB tags or None
    heads: list[int | None] | None = None  # document index of the head word, -1 for a root
    deprels: list[str] | None = None
    path: str = ""
    counts: dict = field(default_factory=dict)  # quirks met while reading (repairs, skipped brackets)


# ---------------------------------------------------------------------------- coreference cells

_PART = re.compile(r"\(([^()|\s]+)\)|\(([^()|\s]+)|([^()|\s]+)\)")


def parse_coref_cell(cell: str, where: str = "") -> list[tuple[str, str]]:
    """``'(3|(12'`` -> ``[('open', '3'), ('open', '12')]``; kinds: one (single word), open, close."""
    cell = cell.strip()
    if cell in ("-", "_", ""):
        return []
    out, pos = [], 0
    while pos < len(cell):
        if cell[pos] == "|":
            pos += 1
            continue
        m = _PART.match(cell, pos)
        if not m:
            raise ValueError(f"{where}: cannot parse coreference cell {cell!r} at {cell[pos:]!r}")
        one, opened, closed = m.groups()
        out.append(("one", one) if one is not None else ("open", opened) if opened is not None else ("close", closed))
        pos = m.end()
    return out


class _Brackets:
    """Turns the per-word coreference cells of one document into mentions."""

    def __init__(self, path: str, strict: bool = True):
        self.path = path
        self.strict = strict
        self.skipped = 0  # unbalanced brackets dropped (strict=False only)
        self.open: dict[str, list[tuple[int, str]]] = {}
        self.mentions: list[Mention] = []

    def add(self, word_index: int, cell: str, lineno: int) -> None:
        where = f"{self.path}:{lineno}"
        for kind, cid in parse_coref_cell(cell, where):
            if kind == "one":
                self.mentions.append(Mention(word_index, word_index, cid, where))
            elif kind == "open":
                self.open.setdefault(cid, []).append((word_index, where))
            else:
                stack = self.open.get(cid)
                if not stack and not self.strict:
                    self.skipped += 1
                    continue
                if not stack:
                    raise ValueError(f"{where}: closing bracket '{cid})' with no open mention of cluster {cid}")
                start, opened_at = stack.pop()
                self.mentions.append(Mention(start, word_index, cid, opened_at))

    def finish(self, end_line: int) -> list[Mention]:
        for cid, stack in self.open.items():
            if stack and not self.strict:
                self.skipped += len(stack)
            elif stack:
                raise ValueError(
                    f"{stack[0][1]}: mention of cluster {cid} opened here is never closed "
                    f"(document ends at {self.path}:{end_line})"
                )
        return sorted(self.mentions, key=lambda m: (m.key, m.cluster))


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
                m = _BEGIN.match(line)
                doc_id = (m.group("paren") or m.group("bare") or Path(path).name).strip()
                if m.group("part") is not None:
                    doc_id = f"{doc_id}/part_{int(m.group('part')):03d}"
                cur = {
                    "id": doc_id,
                    "words": [],
                    "pos": [],
                    "sents": [],
                    "sent_start": 0,
                    "brackets": _Brackets(path),
                    "ncols": None,
                }
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
            cols = line.split()
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
    if cur is not None:
        raise ValueError(f"{path}:{lineno}: file ends inside document {cur['id']!r} (no '#end document')")
    return docs


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
    end_of = dict(sents)
    for t in toks:  # sentence-relative heads -> document indices, checked
        s, e = t["sent_start"], end_of[t["sent_start"]]
        if t["head"] == 0:
            t["head"] = -1
        elif not 1 <= t["head"] <= e - s:
            raise ValueError(f"{path}:{t['line']}: HEAD {t['head']} outside its sentence of {e - s} words")
        else:
            t["head"] = s + t["head"] - 1
    return toks, sents


def read_ontogum(conll_path, conllu_path, strict: bool = True) -> CorefDoc:
    """One OntoGUM document: 3-column coreference file + its ``.conllu``.

    Quirk of the upstream files: a ``|`` word is empty in the 3-column file (the converter
    used ``|`` as a separator); an empty word takes the ``.conllu`` form, counted as
    ``words_restored_from_conllu``. ``strict=False`` drops unbalanced brackets (counted as
    ``unbalanced_brackets_skipped``) instead of failing."""
    conll_path, conllu_path = str(conll_path), str(conllu_path)
    toks, sents = read_conllu_tokens(conllu_path)
    words: list[str] = []
    brackets = _Brackets(conll_path, strict)
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
                raise ValueError(
                    f"{where}: word {cols[1]!r} but {conllu_path}:{toks[i]['line']} has {toks[i]['form']!r}"
                )
            brackets.add(i, cols[2], lineno)
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


def read_splits(path) -> dict[str, list[str]]:
    """``## name`` headings followed by ``* DOC`` items (GUM's splits.md)."""
    splits: dict[str, list[str]] = {}
    cur = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^##\s+(\S+)", line)
            if m:
                cur = splits.setdefault(m.group(1), [])
                continue
            m = re.match(r"^\s*[*-]\s+(\S+)", line)
            if m and cur is not None:
                cur.append(m.group(1))
    return splits


# ---------------------------------------------------------------------------- heads and types

PUNCT_POS = {",", ".", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP", "$", "#"}
# the head rule cuts a mention before the first of these (after its first word)
STOP_POS = {"IN", "TO", "WDT", "WP", "WP$", "WRB", ",", ":", "-LRB-", "HYPH"}
STOP_WORDS = {
    "of",
    "in",
    "on",
    "at",
    "for",
    "with",
    "from",
    "by",
    "to",
    "about",
    "into",
    "that",
    "which",
    "who",
    "whom",
    "whose",
    "where",
    "when",
    ",",
    "(",
    ":",
    "--",
    ";",
}
PRONOUN_POS = {"PRP", "PRP$", "WP", "WP$"}
PROPER_POS = {"NNP", "NNPS"}

# word -> (number, gender, person); None = unknown / either
PRONOUN_FEATURES: dict[str, tuple[str | None, str | None, int]] = {}
for _words, _feat in [
    ("i me my mine myself", ("sg", None, 1)),
    ("we us our ours ourselves", ("pl", None, 1)),
    ("you your yours", (None, None, 2)),
    ("yourself", ("sg", None, 2)),
    ("yourselves", ("pl", None, 2)),
    ("he him his himself", ("sg", "m", 3)),
    ("she her hers herself", ("sg", "f", 3)),
    ("it its itself", ("sg", "n", 3)),
    ("they them their theirs themselves", ("pl", None, 3)),
    ("this that", ("sg", "n", 3)),
    ("these those", ("pl", "n", 3)),
]:
    for _w in _words.split():
        PRONOUN_FEATURES[_w] = _feat
PRONOUNS = frozenset(PRONOUN_FEATURES)
MALE_WORDS = frozenset(
    "man men boy boys father fathers son sons brother brothers husband king prince mr. mr "
    "sir lord uncle nephew grandfather gentleman emperor".split()
)
FEMALE_WORDS = frozenset(
    "woman women girl girls mother mothers daughter daughters sister sisters wife queen "
    "princess mrs. mrs ms. ms miss lady aunt niece grandmother".split()
)


def rule_head(words: list[str], pos: list[str | None]) -> int:
    """Head of a mention without a tree (index into ``words``): cut the span before the first
    preposition / wh-word / comma after its first word (by POS, or by :data:`STOP_WORDS` where
    POS is unknown); in what is left, the rightmost noun, pronoun or number; else the rightmost
    non-punctuation word; else the last word. ``the school of Dr. Glennie`` -> ``school``."""
    cut = len(words)
    for i in range(1, len(words)):
        p = pos[i] if i < len(pos) else None
        if (p in STOP_POS) if p is not None else (words[i].lower() in STOP_WORDS):
            cut = i
            break
    prefix = range(cut)
    for i in reversed(prefix):
        p = pos[i] if i < len(pos) else None
        if p is not None and (p.startswith("NN") or p in PRONOUN_POS or p == "CD"):
            return i
    for i in reversed(prefix):
        p = pos[i] if i < len(pos) else None
        if (p not in PUNCT_POS) if p is not None else any(c.isalnum() for c in words[i]):
            return i
    return len(words) - 1


def _is_punct(doc: CorefDoc, i: int) -> bool:
    if doc.deprels is not None and doc.deprels[i] == "punct":
        return True
    p = doc.pos[i] if doc.pos else None
    return p in PUNCT_POS if p is not None else not any(c.isalnum() for c in doc.words[i])


def _depth(heads: list[int | None], i: int, where: str) -> int:
    d, seen = 0, set()
    while heads[i] is not None and heads[i] >= 0:
        if i in seen:
            raise ValueError(f"{where}: the dependency tree has a cycle through word {i}")
        seen.add(i)
        i = heads[i]
        d += 1
    return d


def mention_head(doc: CorefDoc, m: Mention) -> int:
    """Document index of the head word of mention ``m`` (tree if any, else :func:`rule_head`)."""
    span = range(m.start, m.end + 1)
    if doc.heads is not None and all(doc.heads[i] is not None for i in span):
        outside = [i for i in span if not m.start <= doc.heads[i] <= m.end]
        content = [i for i in outside if not _is_punct(doc, i)] or outside
        if content:
            h = min(content, key=lambda i: (_depth(doc.heads, i, m.where), i))
            # UD heads multi-word names on their FIRST word (flat); PTB/Stanford head rules, as used
            # for CoNLL-2012 in the paper, take the last one: "Trinity College" -> College
            flat = [
                i for i in span if doc.heads[i] == h and i > h and (doc.deprels or [""] * (i + 1))[i].startswith("flat")
            ]
            return max(flat) if flat else h
    pos = [doc.pos[i] if doc.pos else None for i in span]
    return m.start + rule_head(doc.words[m.start : m.end + 1], pos)


def mention_type(doc: CorefDoc, m: Mention, head: int) -> str:
    """pronoun | proper | nominal, from the head's POS (or word lists where POS is unknown)."""
    p = doc.pos[head] if doc.pos else None
    w = doc.words[head]
    if p in PRONOUN_POS or (m.start == m.end and w.lower() in PRONOUNS):
        return "pronoun"
    if p is not None:
        return "proper" if p in PROPER_POS else "nominal"
    if w.lower() in PRONOUNS:
        return "pronoun"
    sentence_initial = any(s == head for s, _ in doc.sentences)
    return "proper" if w[:1].isupper() and not sentence_initial else "nominal"


def mention_features(doc: CorefDoc, head: int, mtype: str) -> tuple[str | None, str | None, int]:
    """(number, gender, person) for the agreement sieve; None = unknown."""
    w = doc.words[head].lower()
    if mtype == "pronoun" and w in PRONOUN_FEATURES:
        return PRONOUN_FEATURES[w]
    p = doc.pos[head] if doc.pos else None
    number = "pl" if p in ("NNS", "NNPS") else "sg" if p in ("NN", "NNP") else None
    gender = "m" if w in MALE_WORDS else "f" if w in FEMALE_WORDS else None
    return number, gender, 3


# ---------------------------------------------------------------------------- windows


def word_pieces(tokenizer, sentences: list[list[str]]) -> list[np.ndarray]:
    """Number of word pieces of every word, per sentence."""
    if not sentences:
        return []
    enc = tokenizer(sentences, is_split_into_words=True, add_special_tokens=False)
    out = []
    for k, words in enumerate(sentences):
        ids = [w for w in enc.word_ids(k) if w is not None]
        out.append(np.bincount(ids, minlength=len(words)))
    return out


def make_windows(units: list[tuple[int, int, int]], budget: int, stride: int) -> list[tuple[int, int]]:
    """Windows over ``units`` = (start word, end word, pieces), each at most ``budget`` pieces.

    The next window starts at the last unit beginning at most ``stride`` pieces after the
    current start (at least one unit on); returns [start word, end word) per window."""
    if not units:
        return []
    if stride < 1:
        raise ValueError(f"stride must be >= 1 word piece, got {stride}")
    offsets = np.concatenate([[0], np.cumsum([u[2] for u in units])])
    out, i, n = [], 0, len(units)
    while True:
        j = i
        while j < n and offsets[j + 1] - offsets[i] <= budget:
            j += 1
        if j == i:
            raise ValueError(f"a unit of {units[i][2]} pieces does not fit a window of {budget}")
        out.append((units[i][0], units[j - 1][1]))
        if j == n:
            return out
        k = i + 1
        while k + 1 <= j and offsets[k + 1] - offsets[i] <= stride:
            k += 1
        i = k


def doc_units(doc: CorefDoc, pieces: list[np.ndarray], budget: int, counts: dict) -> list[tuple[int, int, int]]:
    """Sentences as window units; a sentence over ``budget`` pieces is cut at word boundaries."""
    units = []
    for (s, e), p in zip(doc.sentences, pieces):
        if p.max(initial=0) > budget:
            raise ValueError(
                f"{doc.path}: document {doc.id}: word {doc.words[s + int(p.argmax())]!r} has "
                f"{int(p.max())} word pieces > {budget}"
            )
        if p.sum() <= budget:
            units.append((s, e, int(p.sum())))
            continue
        counts["long_sentences_cut"] = counts.get("long_sentences_cut", 0) + 1
        a, used = s, 0
        for i, n in enumerate(p):
            if used + n > budget:
                units.append((a, s + i, used))
                a, used = s + i, 0
            used += int(n)
        units.append((a, e, used))
    return units


MENTION_TYPES = ("pronoun", "proper", "nominal")


def doc_records(doc: CorefDoc, tokenizer, max_len: int, stride: int | None, counts: dict) -> list[dict]:
    """Window records of one document, with mention annotations (window word indices) in meta."""
    budget = max_len - tokenizer.num_special_tokens_to_add(pair=False)
    stride = stride or max(budget // 2, 1)
    pieces = word_pieces(tokenizer, [doc.words[s:e] for s, e in doc.sentences])
    windows = make_windows(doc_units(doc, pieces, budget, counts), budget, stride)
    ms = sorted(doc.mentions, key=lambda m: (m.key, m.cluster))
    heads = [mention_head(doc, m) for m in ms]
    types = [mention_type(doc, m, h) for m, h in zip(ms, heads)]
    feats = [mention_features(doc, h, t) for h, t in zip(heads, types)]
    # antecedents: earlier mentions (document order) of the same cluster
    antecedents: list[list[int]] = []
    for k, m in enumerate(ms):
        antecedents.append(
            [a for a in range(k) if ms[a].cluster == m.cluster and precedes(ms[a].start, ms[a].end, m.start, m.end)]
        )

    def inside(w, m):
        return windows[w][0] <= m.start and m.end < windows[w][1]

    home = [next((w for w in range(len(windows)) if inside(w, m)), None) for m in ms]
    scored_in: dict[int, int] = {}
    c = counts
    c["documents"] = c.get("documents", 0) + 1
    c["words"] = c.get("words", 0) + len(doc.words)
    c["sentences"] = c.get("sentences", 0) + len(doc.sentences)
    c["windows"] = c.get("windows", 0) + len(windows)
    for k, v in doc.counts.items():
        c[k] = c.get(k, 0) + v
    c["mentions"] = c.get("mentions", 0) + len(ms)
    c["clusters"] = c.get("clusters", 0) + len({m.cluster for m in ms})
    for k, m in enumerate(ms):
        c[f"mentions_{types[k]}"] = c.get(f"mentions_{types[k]}", 0) + 1
        if home[k] is None:
            c["mentions_in_no_window"] = c.get("mentions_in_no_window", 0) + 1
        if not antecedents[k]:
            continue
        c["anaphors"] = c.get("anaphors", 0) + 1
        for a in antecedents[k]:
            shared = any(inside(w, ms[a]) and inside(w, m) for w in range(len(windows)))
            key = "pairs_in_one_window" if shared else "pairs_across_windows"
            c[key] = c.get(key, 0) + 1
        if home[k] is not None and any(inside(home[k], ms[a]) for a in antecedents[k]):
            scored_in[k] = home[k]
            c["anaphors_scorable"] = c.get("anaphors_scorable", 0) + 1
        else:
            c["anaphors_not_scorable_across_windows"] = c.get("anaphors_not_scorable_across_windows", 0) + 1
    records = []
    for w, (a, b) in enumerate(windows):
        mentions = []
        for k, m in enumerate(ms):
            if not inside(w, m):
                continue
            number, gender, person = feats[k]
            mentions.append(
                {
                    "start": m.start - a,
                    "end": m.end - a,
                    "head": heads[k] - a,
                    "type": types[k],
                    "cluster": m.cluster,
                    "text": " ".join(doc.words[m.start : m.end + 1]),
                    "head_word": doc.words[heads[k]],
                    "number": number,
                    "gender": gender,
                    "person": person,
                    "scored": scored_in.get(k) == w,
                }
            )
        records.append(
            {
                "id": f"{doc.id}#w{w:03d}",
                "words": [doc.words[a:b]],
                "meta": {"doc": doc.id, "window": w, "word_offset": a, "words": doc.words[a:b], "mentions": mentions},
            }
        )
    return records


def records_for(docs: list[CorefDoc], tokenizer, max_len: int, stride: int | None) -> tuple[list[dict], dict]:
    budget = max_len - tokenizer.num_special_tokens_to_add(pair=False)
    counts: dict = {"max_len": max_len, "stride": stride or max(budget // 2, 1)}
    records = []
    for d in docs:
        records.extend(doc_records(d, tokenizer, max_len, stride, counts))
    for k in (
        "anaphors",
        "anaphors_scorable",
        "anaphors_not_scorable_across_windows",
        "pairs_in_one_window",
        "pairs_across_windows",
        "long_sentences_cut",
        "mentions_in_no_window",
    ):
        counts.setdefault(k, 0)
    return records, counts


# ---------------------------------------------------------------------------- registered readers


@reader("conll2012")
def prepare_conll2012(
    raw_dir,
    tokenizer,
    pattern: str = "**/*_conll",
    max_docs: int | None = None,
    max_len: int = 128,
    stride: int | None = None,
    **_,
):
    """CoNLL-2012 ``*_conll`` files under the source folder (``pattern``, a glob), every part a document."""
    files = sorted(Path(raw_dir).glob(pattern))
    if not files:
        raise ValueError(f"{raw_dir}: no files match {pattern!r}")
    docs = [d for f in files for d in read_conll2012(f)]
    n_all = len(docs)
    docs = docs[:max_docs] if max_docs else docs
    records, counts = records_for(docs, tokenizer, max_len, stride)
    counts.update(files=len(files), documents_available=n_all, documents_used=len(docs))
    return records, counts


@reader("ontogum")
def prepare_ontogum(
    raw_dir,
    tokenizer,
    split: str = "dev",
    max_docs: int | None = None,
    max_len: int = 128,
    stride: int | None = None,
    splits_file: str = "splits.md",
    unbalanced: str = "error",
    **_,
):
    """OntoGUM documents of ``split`` (from splits.md; 'all' = every file), in split order.

    ``unbalanced``: error (default) | skip (drop unbalanced brackets, counted; one upstream
    test2 file, GENTLE_poetry_road, has a stray ``3)``)."""
    if unbalanced not in ("error", "skip"):
        raise ValueError(f"unbalanced must be 'error' or 'skip', got {unbalanced!r}")
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
    used = names[:max_docs] if max_docs else names
    docs = [
        read_ontogum(raw / "conll" / f"{n}.conll", raw / "conllu" / f"{n}.conllu", unbalanced == "error") for n in used
    ]
    records, counts = records_for(docs, tokenizer, max_len, stride)
    counts.update(
        split=split,
        documents_in_split=len(names) + len(missing),
        documents_missing_from_source=len(missing),
        missing=missing,
        documents_available=len(names),
        documents_used=len(used),
    )
    return records, counts
