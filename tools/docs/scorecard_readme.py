"""Put the claim scorecard into README.md and the pages of docs/, so no number the scorecard knows
is typed by hand: the compact block (README must have it), the full block, the section blocks and
the inline claim spans, all filled from <results>/<model>/ (written by rule scorecard: scorecard.md,
tables/scorecard.csv and scorecard.terms.csv beside it). The marker syntax of each kind:
tools/docs/README.md; the parsing and the generated text: tools/docs/scorecard_blocks.py.

Every file is checked before any is written: a problem in one (unknown claim, no value, bad syntax,
an old marker, README without the compact block) stops the run with ``file:line`` for each, and
nothing changes. Changed files are written atomically (a .part file renamed into place).
``python -m tools.docs`` runs this beside the other generators when the results folder is there.

    python -m tools.docs.scorecard_readme                       # default model, README.md + docs/*.md in place
    python -m tools.docs.scorecard_readme --check               # exit 1 if any of them is stale, naming file:line
    python -m tools.docs.scorecard_readme --model all-MiniLM-L6-v2 --check docs/clark-coref.md   # one page
    python -m tools.docs.scorecard_readme --results ../other-checkout/results --check   # another run's results
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.shared.rule_io import write_text
from tools.docs.page_block import Skipped
from tools.docs.scorecard_blocks import (
    COMPACT,
    FULL,
    SpanError,
    compact_block,
    fill_sections,
    fill_spans,
    old_markers,
    read_scorecard,
)

MODEL = "all-MiniLM-L6-v2"  # the default run's


def regenerate(
    page: str, full: str, rows: dict[str, dict], model: str, name: str, needs_compact: bool = True
) -> tuple[str, list[str]]:
    """The page with spans, section blocks, the compact and the full block generated, and what was stale.

    A block is spliced where the page has one; a page without the compact block fails only when
    ``needs_compact`` (README.md)."""
    if old := old_markers(page, name):
        raise SpanError("\n".join(old))
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


def default_pages(root: Path) -> list[Path]:
    """README.md and every page of docs/ under ``root``."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def sources(results: Path, model: str) -> tuple[Path, Path]:
    """The run's scorecard.md and tables/scorecard.csv."""
    return results / model / "scorecard.md", results / model / "tables" / "scorecard.csv"


def regenerate_pages(pages: list[Path], root: Path, results: Path, model: str) -> list[tuple[Path, str, list[str]]]:
    """(page, new text, stale parts) of every page that changes, all checked before any is written;
    exits naming ``file:line`` of each problem (pages named relative to ``root``, where README.md
    is the one that must have the compact block)."""
    fragment, table = sources(results, model)
    for path in (fragment, table):
        if not path.exists():
            sys.exit(f"{path} not found: run `snakemake --cores all results/{model}/scorecard.md` first")
    rows, full = read_scorecard(table), fragment.read_text()
    errors, changed = [], []
    for page in pages:
        name = str(page.relative_to(root)) if page.is_relative_to(root) else str(page)
        if not page.is_file():
            errors.append(f"{name}: no such file")
            continue
        old = page.read_text()
        try:
            new, stale = regenerate(old, full, rows, model, name, page.resolve() == (root / "README.md").resolve())
        except SpanError as e:
            errors.append(str(e))
            continue
        if new != old:
            changed.append((page, new, stale))
    if errors:
        sys.exit("\n".join(errors) + f"\n(values from {table}; nothing written)")
    return changed


def generate(root: Path, check: bool, results: Path | None = None, model: str = MODEL) -> list[str]:
    """README.md and docs/ of ``root`` from ``results`` (default ``root``/results) for python -m tools.docs:
    the stale parts (``file:line: what``), written unless ``check``; Skipped without a finished run."""
    results = root / "results" if results is None else results
    missing = [
        str(p.relative_to(root) if p.is_relative_to(root) else p) for p in sources(results, model) if not p.exists()
    ]
    if missing:
        raise Skipped(
            f"no {' or '.join(missing)} (needs a finished run: snakemake --cores all results/{model}/scorecard.md)"
        )
    changed = regenerate_pages(default_pages(root), root, results, model)
    if not check:
        for page, new, _ in changed:
            write_text(new, page)
    return [line for *_, stale in changed for line in stale]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", nargs="*", type=Path, help="Markdown files to fill (default: README.md and docs/*.md)")
    ap.add_argument("--model", default=MODEL, help="model slug under the results folder")
    ap.add_argument("--results", type=Path, default=Path("results"), help="the run's results folder (default results)")
    ap.add_argument("--check", action="store_true", help="only report whether every page is up to date")
    args = ap.parse_args(argv)
    fragment, table = sources(args.results, args.model)
    pages = args.pages or default_pages(Path("."))
    changed = regenerate_pages(pages, Path("."), args.results, args.model)
    if args.check:
        for _, _, stale in changed:
            print("\n".join(stale))  # file:line: what, one line each
        names = ", ".join(str(page) for page, _, _ in changed)
        print(
            f"{len(changed)} of {len(pages)} page(s) stale against {table}: {names}"
            if changed
            else f"all {len(pages)} page(s) up to date against {table}: {', '.join(str(p) for p in pages)}"
        )
        return int(bool(changed))
    for page, new, stale in changed:
        write_text(new, page)
        print(f"{page}: {len(stale)} stale part(s) regenerated")
    print(f"{len(changed)} of {len(pages)} page(s) rewritten from {fragment} and {table}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
