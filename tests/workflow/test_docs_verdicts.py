"""No prose in README.md or docs/*.md contradicts a generated verdict: a sentence written by hand
that names one claim id in backticks and one verdict ("`clark3.cls_early` does not hold") must say
the verdict the full block of docs/scorecard.md has for that claim (the generated text itself:
every block between <!-- <name>:begin --> and <!-- <name>:end --> and the inline spans, is left out of the scan)."""

import re

from conftest import ROOT
from tools.docs.page_block import BLOCK

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FULL = re.compile(r"^<!-- scorecard-full:begin -->\n(?P<body>.*?)^<!-- scorecard-full:end -->", re.S | re.M)
# a row of the full block: | claim in words (`id`) | paper | paper's | ours | interval | **verdict** | control |
# an extension's id is marked "(`id`; extension)"
FULL_ROW = re.compile(
    r"^\|.*?\(`(?P<id>[a-z0-9_]+\.[a-z0-9_]+)`(?:; extension)?\) \|.*?\| \*\*(?P<verdict>[^*|]+)\*\* \|", re.M
)
GENERATED = [
    BLOCK,  # every generated block (compact, full, section, calibration, ...), in the one marker form
    re.compile(r"^```.*?^```", re.S | re.M),  # code, not prose
]
SPAN = re.compile(r"<!-- claim:\S+(?: \S+)? -->.*?<!-- /claim -->")
SENTENCE_END = re.compile(r"(?<=[.;])\s+|\s\|\s")  # after ". " or "; ", and between table cells
CLAIM_ID = re.compile(r"`(?P<id>[a-z0-9_]+\.[a-z0-9_]+)(?:[@#][^`]*)?`")
# verdict words, the longest first; "do not hold" (plural) reads as "does not hold"
VERDICT_WORDS = re.compile(
    r"\b(?P<w>holds, also at random init|also at random init|does not hold|do not hold|not applicable"
    r"|inconclusive \(multiplicity\)|inconclusive \(seed\)|inconclusive|holds)(?:\b|(?<=\)))"
)
NEAR = 40  # characters after the id in which its verdict is looked for
CANONICAL = {
    "also at random init": "holds, also at random init",
    "holds, also at random init": "holds, also at random init",
    "do not hold": "does not hold",
}


def generated_verdicts(page: str) -> dict[str, str]:
    """Claim id -> verdict, read from the full block of a page (docs/scorecard.md)."""
    block = FULL.search(page)
    assert block, "no full block (<!-- scorecard-full:begin --> ... <!-- scorecard-full:end -->)"
    return {m["id"]: m["verdict"].strip() for m in FULL_ROW.finditer(block["body"])}


def _blank(match: re.Match) -> str:
    """The generated text replaced by its newlines, so that line numbers stay."""
    return "\n" * match.group(0).count("\n")


def prose(page: str) -> str:
    """``page`` without its generated text (blocks blanked, inline spans removed) and code blocks."""
    for block in GENERATED:
        page = block.sub(_blank, page)
    return SPAN.sub("", page)


def contradictions(page: str, verdicts: dict[str, str], name: str) -> list[str]:
    """``name:line: ...`` for each sentence (or table cell) of ``page``'s prose that names one known claim id and one
    verdict after it other than the generated one. Sentences naming several ids or several verdicts
    are skipped: which verdict goes with which id is not for a regex to guess."""
    found = []
    for number, line in enumerate(prose(page).splitlines(), start=1):
        for sentence in SENTENCE_END.split(line):
            named = [m for m in CLAIM_ID.finditer(sentence) if m["id"] in verdicts]
            ids = {m["id"] for m in named}
            if len(ids) != 1:
                continue
            # the verdict said of the claim follows its id closely ("`id` does not hold", "`id` (0.34)
            # became `inconclusive`"); one before it belongs to a clause the line cut off ("... not
            # applicable) to 19 / 5 ...: `id`"), one further on mostly to another subject ("... when
            # the control holds")
            after = sentence[named[0].end() : named[0].end() + NEAR]
            said = {CANONICAL.get(m["w"], m["w"]) for m in VERDICT_WORDS.finditer(after)}
            if len(said) != 1:
                continue
            (claim,), (verdict,) = ids, said
            if verdict != verdicts[claim]:
                found.append(f"{name}:{number}: says `{claim}` {verdict}, the scorecard: {verdicts[claim]}")
    return found


def test_checker_on_a_hand_made_page():
    card = "\n".join(
        [
            "<!-- scorecard-full:begin -->",
            "| claim | paper | paper's | ours | interval | verdict | control |",
            "|---|---|---|---|---|---|---|",
            "| Early heads attend to [CLS]. (`clark3.cls_early`) | Clark | 0.5 | 0.1 | [0, 1] | **does not hold** | - |",
            "| Heads attend broadly. (`clark3.early_broad`) | Clark | 3 | 4 | [3, 5] "
            "| **holds, also at random init** | 4 (holds) |",
            "| Extension: with a transformer too. (`serrano.x_transformers`; extension) | S | not tested | 0.2 | [0, 1] "
            "| **does not hold** | |",
            "<!-- scorecard-full:end -->",
        ]
    )
    verdicts = generated_verdicts(card)
    assert verdicts == {
        "clark3.cls_early": "does not hold",
        "clark3.early_broad": "holds, also at random init",
        "serrano.x_transformers": "does not hold",
    }
    page = "\n".join(
        [
            "# A page",
            "On this model `clark3.cls_early` holds. The early layers attend broadly.",  # contradicts
            "`clark3.early_broad` holds, also at random init, as expected.",  # agrees
            "`clark3.cls_early` does not hold on the default run.",  # agrees
            "`clark3.cls_early` and `clark3.early_broad` hold or not: skipped (two ids).",
            "From 20 holds to 19 for `clark3.cls_early` (a verdict word before the id: skipped).",
            "`clark3.cls_early` is a claim on the early layers whose control holds (too far: skipped).",
            "<!-- scorecard-section:begin clark3.* -->",
            "- **holds**: `clark3.cls_early` (generated, not prose)",
            "<!-- scorecard-section:end -->",
            "`clark3.early_broad` is <!-- claim:clark3.early_broad -->4<!-- /claim --> (no verdict word).",
        ]
    )
    assert contradictions(page, verdicts, "page.md") == [
        "page.md:2: says `clark3.cls_early` holds, the scorecard: does not hold"
    ]


def test_no_prose_contradicts_a_generated_verdict():
    verdicts = generated_verdicts((ROOT / "docs" / "scorecard.md").read_text())
    assert len(verdicts) >= 40, f"only {len(verdicts)} claims read from the full block of docs/scorecard.md"
    found = []
    for path in PAGES:
        found += contradictions(path.read_text(), verdicts, str(path.relative_to(ROOT)))
    assert not found, "prose contradicts the generated verdicts:\n" + "\n".join(found)
