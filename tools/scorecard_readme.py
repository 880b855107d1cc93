"""Put the claim scorecard into README.md and the pages of docs/, so no number the scorecard knows
is typed by hand.

Four kinds of generated text, all filled from <results>/<model>/ (written by rule scorecard;
``--results``, default ``results``):

- the compact block between ``<!-- scorecard:begin -->`` and ``<!-- scorecard:end -->`` (each
  marker alone on its line): the verdict counts and one short row per claim (id, verdict, our
  value, the paper's number; a cell over 48 characters is cut at a "; ", ", " or space and ends in
  "..."), made here from tables/scorecard.csv. README.md must have it; a page of docs/ may;
- the full block between ``<!-- scorecard:full -->`` and ``<!-- /scorecard:full -->`` (each
  marker alone on its line) becomes <results>/<model>/scorecard.md, the whole table with
  intervals, seeds and the random-init control (docs/scorecard.md has it; no page must);
- a section block ``<!-- scorecard:section clark4.* !clark4.coref_* -->`` ...
  ``<!-- /scorecard:section -->`` lists, with our value and verdict, the claims whose id matches
  one of the words (shell-style patterns) and none of the words starting with ``!``;
- an inline span ``<!-- claim:ID[@GROUP][:TERM] [FORMAT] -->75.7<!-- /claim -->`` (one line,
  invisible markers when rendered): without TERM, the claim's our_value (column of
  scorecard.csv), ``@GROUP`` its part ``GROUP: ...`` of a per-group value ("SST-2: 0.216; MRPC:
  0.3"); with TERM, the claim's named number from tables/scorecard.terms.csv (written beside
  scorecard.csv by rule scorecard, at full precision; ``value``, ``value2``, ``low``, ``p``, ...:
  analysis/scorecard/terms.py), of the level ``@GROUP``, or the smallest / largest over the levels
  (``@min`` / ``@max``). FORMAT (with a term) is omitted (3 significant digits, an integer whole),
  ``pct`` (x 100, 1 decimal), ``pctN`` (x 100, N decimals) or ``fN`` (N decimals), rounded half
  up. A span names a term, never a position in a text (``#2`` is an error).

Markers quoted in a `code span` (and block markers not alone at the start of a line) are
documentation, left alone. The parsing and the generated text are in tools/scorecard_blocks.py.

Every file is checked before any is written: a problem in one (unknown claim, no value, bad syntax,
README without the compact block) stops the run with ``file:line`` for each, and nothing changes.
Changed files are written atomically (a .part file renamed into place).

    python tools/scorecard_readme.py                       # default model, README.md + docs/*.md in place
    python tools/scorecard_readme.py --check               # exit 1 if any of them is stale, naming file:line
    python tools/scorecard_readme.py --model all-MiniLM-L6-v2 --check docs/clark-coref.md   # one page
    python tools/scorecard_readme.py --results ../other-checkout/results --check   # another run's results
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.shared.rule_io import write_text

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/ is no package: its sibling module

from scorecard_blocks import (  # noqa: E402
    COMPACT,
    FULL,
    SpanError,
    compact_block,
    fill_sections,
    fill_spans,
    read_scorecard,
)


def regenerate(
    page: str, full: str, rows: dict[str, dict], model: str, name: str, needs_compact: bool = True
) -> tuple[str, list[str]]:
    """The page with spans, section blocks, the compact and the full block generated, and what was stale.

    A block is spliced where the page has one; a page without the compact block fails only when
    ``needs_compact`` (README.md)."""
    text, stale = fill_spans(page, rows, name)  # first: its line numbers are the page's own
    text, stale_sections = fill_sections(text, rows, model, name)
    stale += stale_sections
    for block, body in ((COMPACT, compact_block(rows, model)), (FULL, full)):
        if not block.count(page, name) and not (needs_compact and block is COMPACT):
            continue
        new = block.splice(text, body, name)  # fails on README without the compact block
        if block.body(new) != block.body(page):
            stale.append(f"{name}:{block.line(page)}: {block.name}")
        text = new
    return text, stale


def default_pages() -> list[Path]:
    """README.md and every page of docs/ (in the current directory)."""
    return [Path("README.md"), *sorted(Path("docs").glob("*.md"))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", nargs="*", type=Path, help="Markdown files to fill (default: README.md and docs/*.md)")
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="model slug under the results folder")
    ap.add_argument("--results", type=Path, default=Path("results"), help="the run's results folder (default results)")
    ap.add_argument("--check", action="store_true", help="only report whether every page is up to date")
    args = ap.parse_args(argv)
    fragment = args.results / args.model / "scorecard.md"
    table = args.results / args.model / "tables" / "scorecard.csv"
    for path in (fragment, table):
        if not path.exists():
            sys.exit(f"{path} not found: run `snakemake --cores all results/{args.model}/scorecard.md` first")
    pages = args.pages or default_pages()
    rows, full = read_scorecard(table), fragment.read_text()
    errors, results = [], []  # every page is checked before any is written
    for page in pages:
        if not page.is_file():
            errors.append(f"{page}: no such file")
            continue
        old = page.read_text()
        is_readme = page.resolve() == Path("README.md").resolve()  # only README must have the compact block
        try:
            new, stale = regenerate(old, full, rows, args.model, str(page), is_readme)
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
