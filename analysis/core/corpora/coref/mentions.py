"""Mention head words, types and agreement features (Clark et al. sec. 4.3 coreference corpora).

Mention head word: the token of the span whose dependency head lies outside the span (the
highest such token in the tree if several; punctuation only as a last resort; for a UD ``flat``
name the last word, as PTB head rules do: ``Lord Byron`` -> ``Byron``); without a tree,
:func:`rule_head`. Mention type from the head's POS (PRP, PRP$, WP, WP$ -> pronoun, NNP, NNPS ->
proper, else nominal), a one-word mention from :data:`PRONOUNS` counts as a pronoun too.
"""

from __future__ import annotations

from analysis.core.corpora.coref.document import CorefDoc, Mention

# Punctuation for mention heads (PTB tags as OntoGUM writes them, with $ and #, which never head a
# mention); not the probes' list of unscored tags (config clark_probes.punct_pos).
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
