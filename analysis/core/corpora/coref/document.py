"""The coreference document model shared by both formats (:mod:`.conll2012`, :mod:`.ontogum`):
mentions, documents, and the coreference cells that mark mentions word by word.

The coreference cell holds ``-`` / ``_`` / nothing (no mention) or bracket parts, optionally
separated by ``|``: ``(12)`` a one-word mention, ``(12`` opens, ``12)`` closes the innermost open mention of
cluster 12; parts may be glued (``(1(2)``). Unbalanced brackets fail with file:line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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


class Brackets:
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
