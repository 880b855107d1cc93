"""The one on-disk format for attention maps, and its one reader.

A shard is two files:

- ``shard-<k>.npy``: a 1-D float16 array, the maps of every example one after the other,
  each of shape (layers, heads, n, n) flattened, unpadded (n = that example's length);
- ``shard-<k>.json``: the model's shape and, per example, its id, offset into the array,
  length n, word pieces, ids, token kinds (C/S/P/X/O, see ``models.token_kinds``), the
  index of the word each piece belongs to (-1 for special tokens) and the segment
  (sequence) index of each piece; plus counts of anything split or truncated and the
  precision the maps were computed in (``precision``). One JSON object, written with the
  header on its first line and one example per line after it.

Readers stream: the header is read whole, each example's record and maps only when the
example is reached, into fresh arrays (not memory-mapped: the pages of a mapping stay in
the reader's resident memory once touched, so a mapped shard read to the end costs its
whole size in RAM).
"""

from __future__ import annotations

import json
import os
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
    attn16: np.ndarray  # (layers, heads, n, n) float16, this example's only (read when reached)
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

    def head_map(self, layer: int, head: int) -> np.ndarray:
        """One head's map, ``layer`` and ``head`` 1-indexed: the same values as
        ``attn[layer - 1, head - 1]`` without copying every head's map."""
        a = self.attn16[layer - 1, head - 1].astype(np.float32)
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
    seen = np.zeros(len(examples), dtype=bool)
    with open(tmp_npy, "wb") as f:
        # the maps are written with pwrite, not through a mapping (whose pages would stay in
        # the writer's resident memory)
        header_npy = {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float16)), "fortran_order": False}
        np.lib.format.write_array_header_1_0(f, {**header_npy, "shape": (max(offset, 1),)})
        start = f.tell()
        f.truncate(start + 2 * max(offset, 1))
        for i, m in maps:
            ex = examples[i]
            want = (n_layers, n_heads, ex["n"], ex["n"])
            if m.shape != want:
                raise ValueError(f"example {ex['id']}: map of shape {m.shape}, expected {want}")
            os.pwrite(f.fileno(), np.ascontiguousarray(m, dtype=np.float16).data, start + 2 * ex["offset"])
            seen[i] = True
    if not seen.all():
        raise ValueError(f"{stem}: {int((~seen).sum())} examples got no attention map")
    tmp_npy.replace(npy)
    tmp_meta = meta.with_name(meta.name + ".part")
    with open(tmp_meta, "w") as f:
        _write_meta(f, header, examples)
    tmp_meta.replace(meta)


def _write_meta(f, header: dict, examples: list[dict]) -> None:
    """The header as one JSON object whose ``examples`` array holds one example per line, so
    that readers can take the examples one at a time (the file is plain JSON all the same)."""
    head = json.dumps({**header, "examples": []})
    f.write(head[: -len("]}")] + "\n")
    for k, ex in enumerate(examples):
        f.write(json.dumps(ex) + (",\n" if k < len(examples) - 1 else "\n"))
    f.write("]}\n")


class Shard:
    """One shard: the header in memory; examples and their maps read one at a time."""

    def __init__(self, path):
        self.npy, self.meta_path = shard_paths(Path(path))
        with open(self.meta_path) as f:
            first = f.readline().rstrip("\n")
            if first.endswith(EXAMPLES_OPEN):  # one example per line: streamed
                self.header, self._examples = json.loads(first + "]}"), None
            else:  # a shard written in one line (before examples were streamed)
                self.header = json.loads(first + f.read())
                self._examples = self.header["examples"]
        self.header.pop("examples")
        self._len = None

    @property
    def n_layers(self) -> int:
        return self.header["n_layers"]

    @property
    def n_heads(self) -> int:
        return self.header["n_heads"]

    def __len__(self) -> int:
        if self._len is None:
            self._len = sum(1 for _ in self.metadata())
        return self._len

    def metadata(self) -> Iterator[dict]:
        """Every example's record (id, n, tokens, offset, ...), one at a time."""
        if self._examples is not None:
            yield from self._examples
            return
        with open(self.meta_path) as f:
            f.readline()
            for line in f:
                line = line.rstrip("\n")
                if line == "]}":
                    return
                yield json.loads(line.rstrip(","))
        raise ValueError(f"{self.meta_path}: cut short (no closing ']}}')")

    def __iter__(self) -> Iterator[Example]:
        L, H = self.n_layers, self.n_heads
        with open(self.npy, "rb") as f:
            start = _data_start(f, self.npy)
            for ex in self.metadata():
                n = ex["n"]
                attn16 = np.empty((L, H, n, n), dtype=np.float16)
                f.seek(start + ex["offset"] * attn16.itemsize)
                if f.readinto(attn16.data) != attn16.nbytes:
                    raise ValueError(f"{self.npy}: example {ex['id']} runs past the end of the file")
                yield Example(
                    id=ex["id"],
                    tokens=ex["tokens"],
                    input_ids=ex["input_ids"],
                    kinds=ex["kinds"],
                    word_ids=ex["word_ids"],
                    seq_ids=ex["seq_ids"],
                    attn16=attn16,
                    meta=ex.get("meta", {}),
                )


EXAMPLES_OPEN = '"examples": ['


def _data_start(f, path) -> int:
    """Byte offset of the data of the .npy file open as ``f`` (checked: 1-D float16, C order)."""
    version = np.lib.format.read_magic(f)
    read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    shape, fortran, dtype = read_header(f)
    if len(shape) != 1 or fortran or dtype != np.float16:
        raise ValueError(f"{path}: not a shard array (shape {shape}, dtype {dtype})")
    return f.tell()


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
