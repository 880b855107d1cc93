"""GUM's ``splits.md`` (shared by GUM, GUM-SD and OntoGUM): which documents make each split.

Imported by the dependency and coreference readers; registers no reader."""

from __future__ import annotations

import io
import re

from analysis.core.inputs import read_text


def read_splits(path) -> dict[str, list[str]]:
    """The splits of the ``splits.md`` file at ``path`` (see ``parse_splits``)."""
    with io.StringIO(read_text(path), newline=None) as f:
        return parse_splits(f)


def parse_splits(lines) -> dict[str, list[str]]:
    """``## name`` headings (two or more ``#``; names lower-cased) followed by ``* doc`` bullet
    lists (``*``, ``-`` or ``+``) -> {name: [docs]}; a heading seen twice adds to its list."""
    out: dict[str, list[str]] = {}
    section = None
    for line in lines:
        m = re.match(r"^#{2,}\s+(\S+)", line)
        if m:
            section = m.group(1).strip().lower()
            out.setdefault(section, [])
            continue
        m = re.match(r"^\s*[*\-+]\s+(\S+)", line)
        if m and section is not None:
            out[section].append(m.group(1))
    return out
