"""The one marker form of every generated block of README.md and docs/: ``<!-- <name>:begin -->``
... ``<!-- <name>:end -->``, each marker alone on its line (a section block names its claims after
``begin``); written from its source, or checked (``--check``). The one inline form, the claim span,
is tools/docs/scorecard_blocks.py's."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from analysis.shared.rule_io import write_text

# any generated block, whatever its name: what a word count or a prose scan leaves out
BLOCK = re.compile(
    r"^<!-- (?P<name>[\w-]+):begin(?: (?P<args>[^\n]*?))? -->$\n(?P<body>.*?)^<!-- (?P=name):end -->$", re.M | re.S
)


class Skipped(Exception):
    """A generator that cannot run here (its source is absent, e.g. no finished results folder): why."""


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def splice(old: str, name: str, text: str, shown: str) -> str:
    """``old`` with ``text`` between its one pair of ``name`` markers; exits naming ``shown`` without one."""
    begin, end = markers(name)
    block = re.compile(rf"^{re.escape(begin)}\n.*?^{re.escape(end)}$", re.M | re.S)
    if len(block.findall(old)) != 1:
        sys.exit(f"{shown}: needs one block {begin} ... {end}, each marker alone on its line")
    return block.sub(lambda _: f"{begin}\n{text}\n{end}", old)


def refresh(page: Path, name: str, text: str, check: bool, shown: str | None = None) -> list[str]:
    """Put ``text`` into ``page``'s ``name`` block; the stale part as ``["<shown>: <name> block"]``
    (written atomically unless ``check``), or [] when the page is up to date."""
    shown = shown or str(page)
    if not page.is_file():
        sys.exit(f"{shown}: no such file")
    old = page.read_text()
    new = splice(old, name, text, shown)
    if new == old:
        return []
    if not check:
        write_text(new, page)
    return [f"{shown}: {name} block"]


def update_block(page: Path, name: str, text: str, check: bool, command: str) -> int:
    """:func:`refresh` for a tool's own ``--check``: 1, naming ``command`` that rewrites it, when stale."""
    stale = refresh(page, name, text, check)
    if stale and check:
        print(f"{stale[0]} is stale: {command}")
        return 1
    return 0
