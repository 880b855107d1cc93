"""Put the claim scorecard into README.md and the pages of docs/, so no number the scorecard knows
is typed by hand.

Three kinds of generated text, all filled from results/<model>/ (written by rule scorecard):

- the summary block between ``<!-- scorecard:begin -->`` and ``<!-- scorecard:end -->`` (each
  marker alone on its line) becomes results/<model>/scorecard.md; README.md must have it, a page
  of docs/ need not;
- a section block ``<!-- scorecard:section clark4.* !clark4.coref_* -->`` ...
  ``<!-- /scorecard:section -->`` lists, with our value and verdict, the claims whose id matches
  one of the words (shell-style patterns) and none of the words starting with ``!``;
- an inline span ``<!-- claim:ID[@GROUP][#PICK] [FORMAT] -->75.7<!-- /claim -->`` (one line,
  invisible markers when rendered) becomes the claim's our_value (column of scorecard.csv):
  ``@GROUP`` picks the part ``GROUP: ...`` of a per-group value ("SST-2: 0.216; MRPC: 0.3");
  ``#PICK`` picks a number of it: ``#2`` the second (1-based; default the first),
  ``#min`` / ``#max`` the smallest / largest; FORMAT is omitted (the text as written there;
  without ``#PICK`` the whole value or group), ``pct`` (x 100, 1 decimal), ``pctN`` (x 100, N
  decimals) or ``fN`` (N decimals), rounded half up. (our_value has 3 significant digits, so
  rounding it again can land one unit off on a tie: 0.175 -> 0.18 where the table has 0.1749.)

Markers quoted in a `code span` (and block markers not alone at the start of a line) are
documentation, left alone.

Every file is checked before any is written: a problem in one (unknown claim, no value, bad syntax,
README without the summary block) stops the run with ``file:line`` for each, and nothing changes.
Changed files are written atomically (a .part file renamed into place).

    python tools/scorecard_readme.py                       # default model, README.md + docs/*.md in place
    python tools/scorecard_readme.py --check               # exit 1 if any of them is stale, naming file:line
    python tools/scorecard_readme.py --model all-MiniLM-L6-v2 --check docs/clark-coref.md   # one page
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import re
import sys
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from analysis.shared.rule_io import write_text

BEGIN, END = "<!-- scorecard:begin -->", "<!-- scorecard:end -->"
# The summary block's markers, like the section markers, stand alone on their lines.
BLOCK = re.compile(rf"^{re.escape(BEGIN)}$(?P<body>.*?)^{re.escape(END)}$", re.DOTALL | re.MULTILINE)
BLOCK_MARKER = re.compile(rf"^(?:{re.escape(BEGIN)}|{re.escape(END)})$", re.MULTILINE)
SPAN = re.compile(r"<!-- claim:(?P<spec>\S+)(?: (?P<fmt>\S+))? -->(?P<text>.*?)<!-- /claim -->")
SPAN_OPEN = "<!-- claim:"
# Section markers stand alone at the start of a line, so one quoted in prose or `code` is no marker.
SECTION = re.compile(
    r"^<!-- scorecard:section (?P<patterns>[^>\n]+?) -->\n(?P<body>.*?)^<!-- /scorecard:section -->",
    re.DOTALL | re.MULTILINE,
)
SECTION_OPEN = re.compile(r"^<!-- scorecard:section ", re.MULTILINE)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
FORMAT = re.compile(r"(?P<kind>pct|f)(?P<digits>\d*)")


class SpanError(ValueError):
    """A span or block a page cannot be filled from (unknown claim, no value, bad syntax, no summary block)."""


@dataclass(frozen=True)
class Pick:
    """What a span shows: which claim, which part of its our_value, in which format."""

    claim_id: str
    group: str | None = None
    which: str | None = None  # "1", "2", ... (1-based), "min", "max"; None: the whole text / the first number
    fmt: str | None = None


def has_summary(text: str, name: str = "README.md") -> bool:
    """Whether ``text`` holds the summary block; fails on a marker without its partner or a second block."""
    blocks, markers = len(BLOCK.findall(text)), len(BLOCK_MARKER.findall(text))
    if markers != 2 * blocks or blocks > 1:
        raise SpanError(f"{name}: the summary block needs one {BEGIN} and one {END}, each alone on its line")
    return blocks == 1


def splice(readme: str, fragment: str, name: str = "README.md") -> str:
    """README text with the block between the markers replaced by ``fragment``."""
    if not has_summary(readme, name):
        raise SpanError(f"{name} has no {BEGIN} ... {END} block (each marker alone on its line)")
    m = BLOCK.search(readme)
    return f"{readme[: m.start()]}{BEGIN}\n{fragment.rstrip()}\n{END}{readme[m.end() :]}"


def read_scorecard(path: Path) -> dict[str, dict]:
    """The rows of scorecard.csv by claim id."""
    with open(path, newline="") as f:
        return {row["id"]: row for row in csv.DictReader(f)}


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


def picked_text(our_value: str, pick: Pick) -> str:
    """The part of ``our_value`` a span shows, before formatting."""
    text = group_text(our_value, pick)
    if pick.which is None and pick.fmt is None:
        return text
    numbers = NUMBER.findall(text)
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
    return formatted(picked_text(row["our_value"], pick), pick.fmt)


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def in_code(text: str, pos: int) -> bool:
    """Whether ``pos`` lies inside a `code span` of its line: a span quoted there documents the syntax."""
    return text.count("`", text.rfind("\n", 0, pos) + 1, pos) % 2 == 1


def _starts(text: str, sub: str) -> list[int]:
    return [m.start() for m in re.finditer(re.escape(sub), text)]


def fill_spans(readme: str, rows: dict[str, dict], name: str = "README.md") -> tuple[str, list[str]]:
    """README with every claim span filled, and the stale spans as ``name:line: id: old -> new``.

    Every problem (unknown id, no value, malformed span, a span not closed on its line) is collected
    and raised at once as one SpanError, one line each, so a README edit is fixed in one go."""
    errors, stale, out, last = [], [], [], 0
    for lineno, line in enumerate(readme.split("\n"), start=1):
        opened = [pos for pos in _starts(line, SPAN_OPEN) if not in_code(line, pos)]
        if len(opened) != len([m for m in SPAN.finditer(line) if not in_code(line, m.start())]):
            errors.append(f"{name}:{lineno}: a claim span not closed by <!-- /claim --> on its line")
    for m in SPAN.finditer(readme):
        if in_code(readme, m.start()):
            continue
        lineno = line_of(readme, m.start())
        try:
            new = claim_value(parse_pick(m["spec"], m["fmt"]), rows)
        except SpanError as e:
            errors.append(f"{name}:{lineno}: {e}")
            continue
        if new != m["text"]:
            stale.append(f"{name}:{lineno}: {m['spec']}: {m['text']!r} -> {new!r}")
        out += [readme[last : m.start("text")], new]
        last = m.end("text")
    if errors:
        raise SpanError("\n".join(errors))
    return "".join(out) + readme[last:], stale


def section_rows(patterns: list[str], rows: dict[str, dict]) -> list[dict]:
    """The scorecard rows (in file order) whose id matches a pattern and no ``!``-pattern."""
    keep = [p for p in patterns if not p.startswith("!")]
    drop = [p[1:] for p in patterns if p.startswith("!")]

    def chosen(cid: str) -> bool:
        return any(fnmatch.fnmatchcase(cid, p) for p in keep) and not any(fnmatch.fnmatchcase(cid, p) for p in drop)

    return [row for cid, row in rows.items() if chosen(cid)]


def section_block(rows: list[dict], model: str) -> str:
    """One bullet per claim: verdict, id, claim, our value (or why none), the paper's number."""
    lines = [f"Scorecard claims of this section (`{model}`; written by `tools/scorecard_readme.py`):", ""]
    for row in rows:
        ours = row["our_value"] or f"none ({row['reason'] or row['verdict']})"
        control = (
            f" Random-init control: {row['control_value']} ({row['control_verdict']})."
            if row.get("control_verdict")
            else ""
        )
        lines.append(
            f"- **{row['verdict']}** `{row['id']}`: {row['claim']} Ours: {ours}.{control} Paper: {row['paper_value']}."
        )
    return "\n".join(lines) + "\n"


def fill_sections(readme: str, rows: dict[str, dict], model: str, name: str = "README.md") -> tuple[str, list[str]]:
    """README with every section block regenerated, and the stale ones as ``name:line: section ...``."""
    errors, stale = [], []

    def fill(m: re.Match) -> str:
        lineno = line_of(readme, m.start())
        patterns = m["patterns"].split()
        unmatched = [p for p in patterns if not section_rows([p.lstrip("!")], rows)]
        if unmatched:
            errors.append(f"{name}:{lineno}: section block pattern(s) matching no claim: {', '.join(unmatched)}")
            return m[0]
        body = section_block(section_rows(patterns, rows), model)
        if body != m["body"]:
            stale.append(f"{name}:{lineno}: section block {m['patterns']}")
        return f"<!-- scorecard:section {m['patterns']} -->\n{body}<!-- /scorecard:section -->"

    new = SECTION.sub(fill, readme)
    if len(SECTION_OPEN.findall(readme)) != len(SECTION.findall(readme)):
        errors.append(f"{name}: a scorecard:section block not closed by <!-- /scorecard:section -->")
    if errors:
        raise SpanError("\n".join(errors))
    return new, stale


def regenerate(
    readme: str, fragment: str, rows: dict[str, dict], model: str, name: str, needs_summary: bool = True
) -> tuple[str, list[str]]:
    """The page with spans, section blocks and the summary block generated, and what was stale.

    The summary block is spliced where the page has one; a page without it fails only when
    ``needs_summary`` (README.md)."""
    text, stale_spans = fill_spans(readme, rows, name)  # first: its line numbers are the page's own
    text, stale_sections = fill_sections(text, rows, model, name)
    if not (needs_summary or has_summary(readme, name)):
        return text, stale_spans + stale_sections
    new = splice(text, fragment, name)
    stale_summary = (
        []
        if summary(new) == summary(readme)
        else [f"{name}:{line_of(readme, BLOCK.search(readme).start())}: summary block"]
    )
    return new, stale_spans + stale_sections + stale_summary


def summary(readme: str) -> str:
    """The text between the summary block's markers (splice has checked they are there)."""
    return BLOCK.search(readme)["body"]


def default_pages() -> list[Path]:
    """README.md and every page of docs/ (in the current directory)."""
    return [Path("README.md"), *sorted(Path("docs").glob("*.md"))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", nargs="*", type=Path, help="Markdown files to fill (default: README.md and docs/*.md)")
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="model slug under results/")
    ap.add_argument("--check", action="store_true", help="only report whether every page is up to date")
    args = ap.parse_args(argv)
    fragment = Path(f"results/{args.model}/scorecard.md")
    table = Path(f"results/{args.model}/tables/scorecard.csv")
    for path in (fragment, table):
        if not path.exists():
            sys.exit(f"{path} not found: run `snakemake --cores all {fragment}` first")
    pages = args.pages or default_pages()
    rows, summary_text = read_scorecard(table), fragment.read_text()
    errors, results = [], []  # every page is checked before any is written
    for page in pages:
        if not page.is_file():
            errors.append(f"{page}: no such file")
            continue
        old = page.read_text()
        is_readme = page.resolve() == Path("README.md").resolve()  # only README must have the summary block
        try:
            new, stale = regenerate(old, summary_text, rows, args.model, str(page), is_readme)
        except SpanError as e:
            errors.append(str(e))
            continue
        results.append((page, old, new, stale))
    if errors:
        sys.exit("\n".join(errors) + f"\n(values from {table}; nothing written)")
    changed = [(page, new, stale) for page, old, new, stale in results if new != old]
    if args.check:
        for _, _, stale in changed:
            print("\n".join(stale))  # file:line: what, one line each
        names = ", ".join(str(page) for page, _, _ in changed)
        print(
            f"{len(changed)} of {len(results)} page(s) stale against {table}: {names}"
            if changed
            else f"all {len(results)} page(s) up to date against {table}: {', '.join(str(p) for p, *_ in results)}"
        )
        return int(bool(changed))
    for page, new, stale in changed:
        write_text(new, page)
        print(f"{page}: {len(stale)} stale part(s) regenerated")
    print(f"{len(changed)} of {len(results)} page(s) rewritten from {fragment} and {table}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
