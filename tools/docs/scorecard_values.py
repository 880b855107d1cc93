"""What a claim span of tools/docs/scorecard_readme.py shows: the scorecard's rows with their named numbers
(``scorecard.csv`` and, beside it, ``scorecard.terms.csv``: every claim's terms, e.g. ``value``,
``value2``, ``low``, ``p``, at full precision, so no number is read back out of text and no span
names a position in one), a span's pick (``ID[@GROUP|@min|@max][:TERM] [FORMAT]``) and its formatting."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

FORMAT = re.compile(r"(?P<kind>pct|f)(?P<digits>\d*)")
OVER_GROUPS = ("min", "max")  # @min / @max: the smallest / largest of a term over a per-level claim's levels


class SpanError(ValueError):
    """A span or block a page cannot be filled from (unknown claim, no value, bad syntax, a block missing)."""


@dataclass(frozen=True)
class Pick:
    """What a span shows: which claim, which group (a level; min / max over them), which term, in which format."""

    claim_id: str
    group: str | None = None
    term: str | None = None  # None: the value's text (or its group's part), as scorecard.csv writes it
    fmt: str | None = None


def read_scorecard(path: Path) -> dict[str, dict]:
    """The rows of scorecard.csv by claim id, each with ``terms``: its named numbers, (group, term) ->
    value as the scorecard rule wrote them at full precision beside it (``scorecard.terms.csv``:
    claim id, group, term, value)."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        rows = {row["id"]: {**row, "terms": {}} for row in reader}
    if "extension" not in (reader.fieldnames or []):  # else an extension would be counted as a paper claim
        raise SpanError(f"{path} has no column 'extension' (a scorecard of before): rerun the scorecard rule")
    terms = Path(path).with_name(Path(path).stem + ".terms.csv")
    if not terms.exists():
        raise SpanError(f"{terms} not found: rerun the scorecard rule (it writes it beside {Path(path).name})")
    with open(terms, newline="") as f:
        for lineno, row in enumerate(csv.DictReader(f), start=2):
            if row["id"] not in rows:
                raise SpanError(f"{terms}:{lineno}: claim {row['id']!r} is not in {Path(path).name}")
            rows[row["id"]]["terms"][(row["group"], row["term"])] = row["value"]
    return rows


def parse_pick(spec: str, fmt: str | None) -> Pick:
    """``ID[@GROUP][:TERM]`` and FORMAT of a span as a Pick; fails on a malformed one."""
    if "#" in spec:
        raise SpanError(
            f"malformed span {spec!r}: a span names a term, not a position in a text "
            "(ID[@GROUP][:TERM], e.g. :value2 for an order's second value, @min:value over the levels)"
        )
    m = re.fullmatch(r"(?P<id>[^@:]+)(?:@(?P<group>[^:]+))?(?::(?P<term>[A-Za-z_][A-Za-z0-9_]*))?", spec)
    if not m:
        raise SpanError(f"malformed span {spec!r}: expected ID[@GROUP][:TERM]")
    if fmt is not None and not FORMAT.fullmatch(fmt):
        raise SpanError(f"unknown format {fmt!r}: expected pct, pctN or fN")
    if fmt is not None and m["term"] is None:
        raise SpanError(f"span {spec!r} has a format but no term: name one (e.g. {spec}:value {fmt})")
    if m["group"] in OVER_GROUPS and m["term"] is None:
        raise SpanError(f"span {spec!r}: @{m['group']} needs a term (e.g. {spec}:value)")
    return Pick(m["id"], m["group"], m["term"], fmt)


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


def picked_term(row: dict, pick: Pick) -> str:
    """The term a span names, from the row's terms (full precision, as the scorecard rule wrote them):
    of its @GROUP, the smallest / largest over the levels (@min / @max), else the claim's own."""
    terms, cid = row["terms"], pick.claim_id
    levels = list(dict.fromkeys(g for g, t in terms if g and t == pick.term))
    if pick.group in OVER_GROUPS:
        numbers = [terms[(g, pick.term)] for g in levels if is_number(terms[(g, pick.term)])]
        if not numbers:
            raise SpanError(f"claim {cid!r} has no numeric term {pick.term!r} at any level")
        return (min if pick.group == "min" else max)(numbers, key=Decimal)
    key = (pick.group or "", pick.term)
    if key in terms:
        return terms[key]
    known = sorted({t for g, t in terms if g == key[0]})
    if pick.group is None and levels:
        raise SpanError(
            f"term {pick.term!r} of claim {cid!r} is per level ({', '.join(levels)}): pick one with @GROUP, or @min / @max"
        )
    where = f" at {pick.group!r}" if pick.group else ""
    raise SpanError(f"claim {cid!r} has no term {pick.term!r}{where} (terms: {', '.join(known) or 'none'})")


def group_text(our_value: str, pick: Pick) -> str:
    """The text a span without a term shows: the value, or the part of its @GROUP."""
    by_group = groups(our_value)
    if pick.group is None:
        return our_value
    if by_group is None or pick.group not in by_group:
        known = ", ".join(by_group) if by_group else "none: the value is not per group"
        raise SpanError(f"no group {pick.group!r} in {our_value!r} (groups: {known})")
    return by_group[pick.group]


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
    if pick.term is None:
        return group_text(row["our_value"], pick)  # the text as the scorecard shows it
    number = picked_term(row, pick)
    if not is_number(number):
        if pick.fmt:
            raise SpanError(f"term {pick.term!r} of claim {pick.claim_id!r} is no number: {number!r}")
        return number  # a categorical value, as written
    if pick.fmt:
        return formatted(number, pick.fmt)
    # no format: as the scorecard's text writes numbers (integers whole, else 3 significant digits)
    return number if re.fullmatch(r"-?\d+", number) else f"{float(number):.3g}"
