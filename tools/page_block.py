"""One generated block of a docs page, between two marker lines: written from its source, or checked
(the ``--check`` of the tools that write one: tools/config_reference.py, tools/families_table.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path


def update_block(page: Path, name: str, text: str, check: bool, command: str) -> int:
    """Put ``text`` between ``<!-- {name}:begin -->`` and ``<!-- {name}:end -->`` of ``page`` (each
    marker alone on its line, one block); with ``check``, write nothing and return 1 if it would
    change, naming ``command`` that rewrites it."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    block = re.compile(rf"^{re.escape(begin)}\n.*?^{re.escape(end)}$", re.M | re.S)
    old = page.read_text()
    if len(block.findall(old)) != 1:
        sys.exit(f"{page.name}: needs one block {begin} ... {end}, each marker alone on its line")
    new = block.sub(lambda _: f"{begin}\n{text}\n{end}", old)
    if new == old:
        return 0
    if check:
        print(f"{page.name}: the {name} block is stale: {command}")
        return 1
    page.write_text(new)
    return 0
