"""The word budget of the prose, beside the 300-line one of the code: hand-written words (those
outside generated blocks and claim spans) of README.md, of each page of docs/ and of docs/ in all.
A total, so that moving text from page to page does not count as cutting it."""

import re

import pytest

from conftest import ROOT
from tools.docs.page_block import BLOCK

README_BUDGET = 1_200
PAGE_BUDGET = 1_500
TOTAL_BUDGET = 20_000

# Pages still over PAGE_BUDGET, each with its hand-written count when it was listed as a ceiling:
# the page may shrink but not grow; once it is within PAGE_BUDGET, take it off the list.
OVER_BUDGET: dict[str, int] = {}
# docs/ in all; it was over TOTAL_BUDGET when the budget test came in (lowered as pages were cut).
# Within it now: keep it at TOTAL_BUDGET.
TOTAL_CEILING = TOTAL_BUDGET

# What the generators write (python -m tools.docs): blocks between two marker lines, and inline claim spans.
GENERATED = [BLOCK, re.compile(r"<!-- claim:[^>\n]*-->.*?<!-- /claim -->")]

PAGES = sorted((ROOT / "docs").glob("*.md"))


def hand_written_words(text: str) -> int:
    for pattern in GENERATED:
        text = pattern.sub(" ", text)
    return len(text.split())


def test_generated_parts_are_not_counted():
    page = (
        "# Title\n\nTwo words <!-- claim:a.b pct -->12.5<!-- /claim --> here.\n"
        "<!-- families:begin -->\n| many | generated | words |\n<!-- families:end -->\n"
        "<!-- scorecard-section:begin a.* -->\n- **holds** `a.b`: generated.\n<!-- scorecard-section:end -->\n"
        "Quoted `<!-- families:begin -->` markers count.\n"
    )
    kept = "# Title Two words here. Quoted `<!-- families:begin -->` markers count."
    assert hand_written_words(page) == len(kept.split())


def test_readme_within_budget():
    words = hand_written_words((ROOT / "README.md").read_text())
    assert words <= README_BUDGET, f"README.md: {words} hand-written words > {README_BUDGET}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_page_within_budget(page):
    words = hand_written_words(page.read_text())
    ceiling = OVER_BUDGET.get(page.name, PAGE_BUDGET)
    assert words <= ceiling, f"docs/{page.name}: {words} hand-written words > {ceiling}"
    if page.name in OVER_BUDGET:
        assert words > PAGE_BUDGET, f"docs/{page.name} is within {PAGE_BUDGET} words: take it off OVER_BUDGET"


def test_docs_total_within_budget():
    assert set(OVER_BUDGET) <= {p.name for p in PAGES}, "OVER_BUDGET names a page docs/ does not have"
    counts = {p.name: hand_written_words(p.read_text()) for p in PAGES}
    total = sum(counts.values())
    largest = ", ".join(f"{name} {n}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1])[:5])
    assert total <= TOTAL_CEILING, f"docs/: {total} hand-written words > {TOTAL_CEILING} (largest: {largest})"
    if TOTAL_CEILING > TOTAL_BUDGET:
        assert total > TOTAL_BUDGET, f"docs/ is within {TOTAL_BUDGET} words: set TOTAL_CEILING = TOTAL_BUDGET"
