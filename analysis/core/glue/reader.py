"""GLUE files (source ``glue``) as prepared-input records (the tasks: ``analysis.core.glue.tasks``).

Files are ``<raw_dir>/<TASK>/{train,dev}.tsv`` as GLUE's download script writes them:

- tab-separated, **no quoting** (sentences contain bare ``"``; a csv reader with default
  quoting would merge rows), UTF-8; MRPC's header starts with a byte-order mark;
- CoLA has no header line (4 columns: source, label, original label, sentence) and its dev
  file lacks the final newline;
- a row with too few columns, an empty sentence or a label that is not one of the task's
  labels raises ``GlueFormatError`` naming ``file:line``.

Records are prepared-input records (``analysis.core.inputs``): ``words`` = whitespace-split
sentence(s), ``meta`` = {task, split, line, label}; ``label`` is the class index (int) or
the similarity score (float, STS-B). Splitting on whitespace does not change what a BERT
(word-piece) tokenizer produces, which splits on whitespace and punctuation anyway.
"""

from __future__ import annotations

import io
from pathlib import Path

from analysis.core.glue.tasks import Task, get_task
from analysis.core.inputs import InputFileError, read_text, seeded_subset


class GlueFormatError(InputFileError):
    """A malformed GLUE file (the message names file:line)."""


def task_path(raw_dir, task: str, split: str) -> Path:
    t = get_task(task)
    if split not in t.splits:
        raise ValueError(f"GLUE {task} has no {split!r} split here (has {t.splits})")
    return Path(raw_dir) / task / f"{split}.tsv"


def read_split(raw_dir, task: str, split: str, limit: int | None = None, seed: int | None = None) -> list[dict]:
    """Every row of ``<raw_dir>/<task>/<split>.tsv`` as a record (file order). With ``limit``,
    the first ``limit`` rows, or ``limit`` rows drawn at random (seeded, kept in file order)
    when ``seed`` is given. Ids are ``<task>-<split>-<row>`` (row = 0-based data row)."""
    t = get_task(task)
    path = task_path(raw_dir, task, split)
    need = max(*t.sentence_cols, t.label_col) + 1
    out: list[dict] = []
    with io.StringIO(read_text(path), newline="") as f:  # no byte-order mark (MRPC has one)
        for lineno, raw in enumerate(f, 1):
            if t.header and lineno == 1:
                continue
            line = raw.rstrip("\r\n")
            if not line.strip():
                raise GlueFormatError(f"{path}:{lineno}: empty line")
            parts = line.split("\t")
            if len(parts) < need:
                raise GlueFormatError(f"{path}:{lineno}: {len(parts)} tab-separated columns, {task} needs {need}")
            words = [parts[c].split() for c in t.sentence_cols]
            if not all(words):
                raise GlueFormatError(f"{path}:{lineno}: empty sentence")
            label = _parse_label(t, parts[t.label_col].strip(), path, lineno)
            row = len(out)
            out.append(
                {
                    "id": f"{task}-{split}-{row}",
                    "words": words,
                    "meta": {"task": task, "split": split, "line": lineno, "label": label},
                }
            )
    if not out:
        raise GlueFormatError(f"{path}: no data rows")
    return select_rows(out, limit, seed)


def select_rows(rows: list[dict], limit: int | None, seed: int | None) -> list[dict]:
    """``rows`` (all when ``limit`` is None), else the first ``limit`` (``seed`` None) or a seeded
    random subset of ``limit`` rows in file order: pick from rows already read."""
    if limit is None or limit >= len(rows):
        return rows
    return rows[:limit] if seed is None else seeded_subset(rows, limit, seed)


def _parse_label(t: Task, value: str, path, lineno: int):
    if t.labels is None:
        try:
            return float(value)
        except ValueError:
            raise GlueFormatError(f"{path}:{lineno}: score {value!r} is not a number") from None
    if value not in t.labels:
        raise GlueFormatError(f"{path}:{lineno}: label {value!r} is not one of {t.labels}")
    return t.labels.index(value)
