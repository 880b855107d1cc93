"""The prepared-input format shared by every corpus: JSON lines, one example a line.

Each record has ``id`` (str), ``words`` (a list of one or two word lists: the sequences the
model sees, e.g. ``[[A words], [B words]]`` for ``[CLS] A [SEP] B [SEP]``) and optional
``meta`` (a dict carried through to the attention shards untouched).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def write_jsonl(path, records) -> int:
    path = Path(path)
    tmp = path.with_name(path.name + ".part")
    n = 0
    with tmp.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
            n += 1
    tmp.replace(path)
    return n


def read_jsonl(path) -> list[dict]:
    out = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({err.msg})") from None
            words = rec.get("words")
            if (
                "id" not in rec
                or not isinstance(words, list)
                or not 1 <= len(words) <= 2
                or not all(isinstance(w, list) and w and all(isinstance(x, str) and x for x in w) for w in words)
            ):
                raise ValueError(f"{path}:{lineno}: a record needs 'id' and 'words' = one or two non-empty word lists")
            out.append(rec)
    return out


def seeded_subset(items: list, n: int | None, seed: int) -> list:
    """A seeded random sample of ``n`` of ``items``, kept in their order (all of them when
    ``n`` is None or not below ``len(items)``)."""
    if n is None or int(n) >= len(items):
        return list(items)
    pick = np.sort(np.random.default_rng(seed).choice(len(items), size=int(n), replace=False))
    return [items[i] for i in pick]


class InputFileError(ValueError):
    """A malformed input file; the message names ``file:line``."""


def decode_utf8(data: bytes, where: str) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark dropped); bytes that are not UTF-8 fail
    with ``where:line`` and the byte, never with a bare UnicodeDecodeError."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        col = err.start - data.rfind(b"\n", 0, err.start)
        raise InputFileError(
            f"{where}:{line}: not UTF-8 text (byte 0x{data[err.start]:02x} at column {col}); "
            "convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)"
        ) from None
    return text.removeprefix("\ufeff")


def read_text(path) -> str:
    """The UTF-8 text of ``path`` (see :func:`decode_utf8`)."""
    return decode_utf8(Path(path).read_bytes(), str(path))
