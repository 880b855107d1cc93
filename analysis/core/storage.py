"""The one on-disk format for attention maps, and its one reader.

A shard is two files:

- ``shard-<k>.npy``: a 1-D float16 array, the maps of every example one after the other,
  each of shape (layers, heads, n, n) flattened, unpadded (n = that example's length);
- ``shard-<k>.json``: the model's shape and, per example, its id, offset into the array,
  length n, word pieces, ids, token kinds (C/S/P/X/O, see ``models.token_kinds``), the
  index of the word each piece belongs to (-1 for special tokens) and the segment
  (sequence) index of each piece; plus counts of anything split or truncated.

Readers memory-map the array, so no analysis ever holds every map in RAM.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class Example:
    id: str
    tokens: list[str]
    input_ids: list[int]
    kinds: str
    word_ids: list[int]
    seq_ids: list[int]
    attn16: np.ndarray  # (layers, heads, n, n) float16, memory-mapped
    meta: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.tokens)

    @property
    def attn(self) -> np.ndarray:
        """The maps as float32 (a copy), rows renormalised to undo float16 rounding."""
        a = self.attn16.astype(np.float32)
        a /= a.sum(-1, keepdims=True)
        return a

    def mask(self, kind: str) -> np.ndarray:
        return np.frombuffer(self.kinds.encode(), dtype=np.uint8) == ord(kind)


def shard_paths(stem: str | Path) -> tuple[Path, Path]:
    stem = Path(stem)
    return stem.with_suffix(".npy"), stem.with_suffix(".json")


def write_shard(stem, header: dict, examples: list[dict], maps: Iterable[tuple[int, np.ndarray]]) -> None:
    """Write a shard. ``examples`` carry everything but the maps and must have ``n``;
    ``maps`` yields (example index, array (layers, heads, n, n)) in any order."""
    npy, meta = shard_paths(stem)
    n_layers, n_heads = header["n_layers"], header["n_heads"]
    offset = 0
    for ex in examples:
        ex["offset"] = offset
        offset += n_layers * n_heads * ex["n"] ** 2
    tmp_npy = npy.with_name(npy.name + ".part")
    arr = np.lib.format.open_memmap(tmp_npy, mode="w+", dtype=np.float16, shape=(max(offset, 1),))
    seen = np.zeros(len(examples), dtype=bool)
    for i, m in maps:
        ex = examples[i]
        want = (n_layers, n_heads, ex["n"], ex["n"])
        if m.shape != want:
            raise ValueError(f"example {ex['id']}: map of shape {m.shape}, expected {want}")
        arr[ex["offset"] : ex["offset"] + m.size] = m.astype(np.float16).ravel()
        seen[i] = True
    if not seen.all():
        raise ValueError(f"{stem}: {int((~seen).sum())} examples got no attention map")
    arr.flush()
    del arr
    tmp_npy.replace(npy)
    tmp_meta = meta.with_name(meta.name + ".part")
    tmp_meta.write_text(json.dumps({**header, "examples": examples}))
    tmp_meta.replace(meta)


class Shard:
    def __init__(self, path):
        self.npy, self.meta_path = shard_paths(Path(path))
        self.header = json.loads(self.meta_path.read_text())
        self.examples = self.header.pop("examples")
        self._arr = None

    @property
    def n_layers(self) -> int:
        return self.header["n_layers"]

    @property
    def n_heads(self) -> int:
        return self.header["n_heads"]

    def __len__(self) -> int:
        return len(self.examples)

    def __iter__(self) -> Iterator[Example]:
        if self._arr is None:
            self._arr = np.load(self.npy, mmap_mode="r")
        L, H = self.n_layers, self.n_heads
        for ex in self.examples:
            n = ex["n"]
            flat = self._arr[ex["offset"] : ex["offset"] + L * H * n * n]
            yield Example(
                id=ex["id"],
                tokens=ex["tokens"],
                input_ids=ex["input_ids"],
                kinds=ex["kinds"],
                word_ids=ex["word_ids"],
                seq_ids=ex["seq_ids"],
                attn16=flat.reshape(L, H, n, n),
                meta=ex.get("meta", {}),
            )


class Shards:
    """All shards of one model on one corpus, read in order, one example at a time."""

    def __init__(self, paths: Iterable):
        self.shards = [Shard(p) for p in sorted(paths, key=_shard_key)]
        if not self.shards:
            raise ValueError("no attention shards given")
        heads = {(s.n_layers, s.n_heads) for s in self.shards}
        if len(heads) != 1:
            raise ValueError(f"shards disagree on (layers, heads): {sorted(heads)}")
        self.header = self.shards[0].header

    @property
    def n_layers(self) -> int:
        return self.shards[0].n_layers

    @property
    def n_heads(self) -> int:
        return self.shards[0].n_heads

    def __len__(self) -> int:
        return sum(len(s) for s in self.shards)

    def __iter__(self) -> Iterator[Example]:
        for s in self.shards:
            yield from s

    def counts(self) -> dict:
        """Counts of split/truncated inputs summed over shards."""
        total: dict = {}
        for s in self.shards:
            for k, v in s.header.get("counts", {}).items():
                total[k] = total.get(k, 0) + v
        return total


def _shard_key(p) -> tuple:
    name = Path(p).stem
    digits = "".join(c for c in name if c.isdigit())
    return (int(digits) if digits else 0, name)
