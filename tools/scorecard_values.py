"""What a claim span of tools/scorecard_readme.py shows: the scorecard's rows with their numbers
(``scorecard.csv`` and, beside it, ``scorecard.values.csv``: every number of a claim's value at full
precision, so none is read back out of text), a span's pick (``ID[@GROUP][#N|#min|#max] [FORMAT]``)
and its formatting."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

FORMAT = re.compile(r"(?P<kind>pct|f)(?P<digits>\d*)")


class SpanError(ValueError):
    """A span or block a page cannot be filled from (unknown claim, no value, bad syntax, a block missing)."""


@dataclass(frozen=True)
class Pick:
    """What a span shows: which claim, which part of its our_value, in which format."""

    claim_id: str
    group: str | None = None
    which: str | None = None  # "1", "2", ... (1-based), "min", "max"; None: the whole text / the first number
    fmt: str | None = None


def read_scorecard(path: Path) -> dict[str, dict]:
    """The rows of scorecard.csv by claim id, each with ``values``: the numbers its our_value shows,
    as the scorecard rule wrote them at full precision beside it (``scorecard.values.csv``: claim id,
    group, position, value), so no number is read back out of the 3-digit text."""
    with open(path, newline="") as f:
        rows = {row["id"]: {**row, "values": []} for row in csv.DictReader(f)}
    values = Path(path).with_name(Path(path).stem + ".values.csv")
    if not values.exists():
        raise SpanError(f"{values} not found: rerun the scorecard rule (it writes it beside {Path(path).name})")
    with open(values, newline="") as f:
        for lineno, row in enumerate(csv.DictReader(f), start=2):
            if row["id"] not in rows:
                raise SpanError(f"{values}:{lineno}: claim {row['id']!r} is not in {Path(path).name}")
            rows[row["id"]]["values"].append(row)
    return rows


def parse_pick(spec: str, fmt: str | None) -> Pick:
    """``ID[@GROUP][#PICK]`` and FORMAT of a span as a Pick; fails on a malformed one."""
    m = re.fullmatch(r"(?P<id>[^@#]+)(?:@(?P<group>[^#]+))?(?:#(?P<which>\d+|min|max))?", spec)
    if not m or (m["which"] or "").startswith("0"):
        raise SpanError(f"malformed span {spec!r}: expected ID[@GROUP][#N|#min|#max] with N from 1")
    if fmt is not None and not FORMAT.fullmatch(fmt):
        raise SpanError(f"unknown format {fmt!r}: expected pct, pctN or fN")
    return Pick(m["id"], m["group"], m["which"], fmt)


def groups(our_value: str) -> dict[str, str] | None:
    """The parts of a per-group value ("SST-2: 0.216; MRPC: 0.3") by group, or None for a plain value."""
    parts = [part.partition(": ") for part in our_value.split("; ")]
    if not all(sep for _, sep, _ in parts):
        return None
    return {label: text for label, _, text in parts}


def is_number(text: str) -> bool:
    try:
        Decimal(text)
    except ArithmeticError:
        return False
    return Decimal(text).is_finite()


def picked_number(row: dict, pick: Pick) -> str:
    """The number a span with ``#N`` / ``#min`` / ``#max`` or a format picks, from the row's values
    (full precision, as the scorecard rule wrote them): of its @GROUP, else of the whole value (a
    per-group value: only #min / #max over every group)."""
    text = group_text(row["our_value"], pick)  # checks the group and the per-group rule
    chosen = [v for v in row["values"] if pick.group is None or v["group"] == pick.group]
    numbers = [v["value"] for v in chosen if is_number(v["value"])]
    if not numbers:
        raise SpanError(f"no number in {text!r}")
    if pick.which in ("min", "max"):
        return (min if pick.which == "min" else max)(numbers, key=Decimal)
    index = int(pick.which or 1)
    if index > len(numbers):
        raise SpanError(f"#{index} asked, but {text!r} has {len(numbers)} number(s)")
    return numbers[index - 1]


def group_text(our_value: str, pick: Pick) -> str:
    """The text the span picks from: the value, the part of its @GROUP, or (#min/#max over a
    per-group value) every group's part, labels left out so "SST-2" never reads as -2."""
    by_group = groups(our_value)
    if pick.group is not None:
        if by_group is None or pick.group not in by_group:
            known = ", ".join(by_group) if by_group else "none: the value is not per group"
            raise SpanError(f"no group {pick.group!r} in {our_value!r} (groups: {known})")
        return by_group[pick.group]
    if by_group is None or (pick.which is None and pick.fmt is None):
        return our_value
    if pick.which in ("min", "max"):
        return "; ".join(by_group.values())
    raise SpanError(f"{our_value!r} is per group ({', '.join(by_group)}): pick one with @GROUP, or #min / #max")


def formatted(number: str, fmt: str | None) -> str:
    """``number`` (text of a decimal number) in ``fmt``: None = as is, pct[N] = x 100, fN = N decimals."""
    if fmt is None:
        return number
    m = FORMAT.fullmatch(fmt)
    value = Decimal(number) * (100 if m["kind"] == "pct" else 1)
    digits = int(m["digits"] or (1 if m["kind"] == "pct" else 0))
    rounded = value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return format(abs(rounded) if rounded == 0 else rounded, "f")  # no "-0.0"


def claim_value(pick: Pick, rows: dict[str, dict]) -> str:
    """The text a span of ``pick`` shows; fails on an unknown claim or one without a value."""
    row = rows.get(pick.claim_id)
    if row is None:
        raise SpanError(f"unknown claim id {pick.claim_id!r}")
    if not row["our_value"]:
        raise SpanError(f"claim {pick.claim_id!r} has no value ({row['verdict']}: {row.get('reason') or '-'})")
    if pick.which is None and pick.fmt is None:
        return group_text(row["our_value"], pick)  # the text as the scorecard shows it
    number = picked_number(row, pick)
    if pick.fmt:
        return formatted(number, pick.fmt)
    # no format: as the scorecard's text writes numbers (integers whole, else 3 significant digits)
    return number if re.fullmatch(r"-?\d+", number) else f"{float(number):.3g}"
