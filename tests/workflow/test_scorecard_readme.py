"""tools/docs/scorecard_readme.py (and its helpers, tools/docs/scorecard_blocks.py): the generated numbers of
README.md and docs/*.md, on hand-made scorecard rows and pages (no workflow run), and the pages
themselves (every span names a real claim, every relative link leads to a file, README stays short)."""

import csv
import fnmatch
import re

import pytest

from analysis.scorecard.claims import claim_files, read_claims
from conftest import ROOT
from tools.docs import scorecard_blocks, scorecard_readme

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def scorecard_rows(**claims):
    """Hand-made scorecard rows: claim id -> (our_value ("" = not applicable), its named numbers as the
    scorecard rule writes them to scorecard.terms.csv: (group, term, value) at full precision)."""
    return {
        cid: {
            "id": cid,
            "claim": f"Claim {cid}.",
            "paper_value": "65",
            "our_value": text,
            "verdict": "holds" if text else "not applicable",
            "reason": "" if text else "no [SEP] sink",
            "terms": {(g, term): v for g, term, v in numbers},
        }
        for cid, (text, numbers) in claims.items()
    }


ROWS = scorecard_rows(
    **{
        # full precision behind the text: spans round the number itself, not its 3-digit text
        "c.coref": ("0.757 > 0.525", [("", "value1", "0.75714"), ("", "value2", "0.52500"), ("", "p", "0.001")]),
        "c.det": ("0.796", [("", "value", "0.7955"), ("", "low", "0.71"), ("", "threshold", "0.75")]),
        "k.share": (
            "SST-2: 0.216; MRPC: 0.3; STS-B: 0.125",
            [("SST-2", "value", "0.21551"), ("MRPC", "value", "0.3"), ("STS-B", "value", "0.125"), ("", "p", "0.2")],
        ),
        "k.kind": ("SST-2: Vertical; RTE: Diagonal", [("SST-2", "value", "Vertical"), ("RTE", "value", "Diagonal")]),
        "s.sooner": (
            "cnn: 0.517 > 0.107; lstm: 0.52 > 0.147",
            [
                ("cnn", "value1", "0.517"),
                ("cnn", "value2", "0.107"),
                ("lstm", "value1", "0.52"),
                ("lstm", "value2", "0.1466"),
            ],
        ),
        "c.sep": ("", []),
        "c.neg": ("0.287 > -0.0667", [("", "value1", "0.287"), ("", "value2", "-0.06667")]),
        # a mean of 3 seeds: the "3" of its text is no value of the claim; its seeds are a term of their own
        "m.seeds": ("0.5 (mean of 3 seeds)", [("", "value", "0.5"), ("", "seeds", "3")]),
        "m.count": ("1234", [("", "value", "1234")]),
    }
)


def span(spec, text):
    return f"<!-- claim:{spec} -->{text}<!-- /claim -->"


def test_blocks_are_spliced():
    blocks = scorecard_blocks
    for block in (blocks.COMPACT, blocks.FULL):
        page = f"intro\n{block.begin}\nold numbers\n{block.end}\nrest\n"
        assert block.splice(page, "| new |\n", "p.md") == f"intro\n{block.begin}\n| new |\n{block.end}\nrest\n"
        with pytest.raises(ValueError, match="p.md has no"):
            block.splice("no markers", "x", "p.md")


@pytest.mark.parametrize(
    "spec, shown",
    [
        ("c.det", "0.796"),  # as written in the csv
        ("c.det:value pct", "79.6"),  # 79.55 at full precision, half up
        ("c.det:value pct0", "80"),
        ("c.det:value f2", "0.80"),
        ("c.det:value f4", "0.7955"),  # more digits than the text has: the full value's
        ("c.det:low pct", "71.0"),  # the interval's lower bound, by name
        ("c.det:threshold", "0.75"),
        ("c.coref", "0.757 > 0.525"),  # the whole value
        ("c.coref:value1 pct", "75.7"),  # the order's first value
        ("c.coref:value2 pct", "52.5"),
        ("c.coref:value2", "0.525"),
        ("c.coref:p", "0.001"),
        ("c.neg:value2 f3", "-0.067"),  # a negative number, rounded half up
        ("c.neg:value2 f1", "-0.1"),
        ("k.share@MRPC:value pct0", "30"),
        ("k.share@STS-B:value pct0", "13"),  # 12.5 rounds half up, not to even
        ("k.share@SST-2", "0.216"),  # the group's part of the text
        ("k.share@min:value pct", "12.5"),  # over the levels
        ("k.share@max:value pct", "30.0"),
        ("k.share:p", "0.2"),  # the claim's own term, beside its levels'
        ("k.kind@RTE", "Diagonal"),
        ("k.kind@RTE:value", "Diagonal"),  # a categorical term, as written
        ("k.kind", "SST-2: Vertical; RTE: Diagonal"),
        ("s.sooner@lstm:value2 pct0", "15"),
        ("s.sooner@lstm:value2", "0.147"),  # no format: 3 significant digits, as the scorecard's text
        ("m.seeds:value pct0", "50"),
        ("m.seeds:seeds", "3"),
        ("m.count:value", "1234"),  # an integer stays whole, as in the text
    ],
)
def test_span_shows_its_part_of_the_value(spec, shown):
    mod = scorecard_blocks
    text, stale = mod.fill_spans(f"a {span(spec, shown)} b\n", ROWS)
    assert (text, stale) == (f"a {span(spec, shown)} b\n", [])


def test_zero_has_no_sign():
    mod = scorecard_blocks
    assert mod.formatted("-0.001", "f2") == "0.00"


def test_stale_spans_are_filled_and_named_by_line():
    mod = scorecard_blocks
    readme = f"title\n\nhead {span('c.coref:value1 pct', '70.0')} vs {span('c.coref:value2 pct', '52.5')}\n"
    text, stale = mod.fill_spans(readme, ROWS, "R.md")
    assert text == f"title\n\nhead {span('c.coref:value1 pct', '75.7')} vs {span('c.coref:value2 pct', '52.5')}\n"
    assert stale == ["R.md:3: c.coref:value1: '70.0' -> '75.7'"]
    assert mod.fill_spans(text, ROWS, "R.md") == (text, [])


@pytest.mark.parametrize(
    "spec, error",
    [
        ("c.nothere:value pct", "R.md:2: unknown claim id 'c.nothere'"),
        ("c.sep", "R.md:2: claim 'c.sep' has no value \\(not applicable: no \\[SEP\\] sink\\)"),
        ("c.coref:value3", "R.md:2: claim 'c.coref' has no term 'value3' \\(terms: p, value1, value2\\)"),
        ("m.seeds:value2", "R.md:2: claim 'm.seeds' has no term 'value2'"),
        ("c.coref#2", "R.md:2: malformed span 'c.coref#2': a span names a term, not a position in a text"),
        ("c.det pct", "R.md:2: span 'c.det' has a format but no term"),
        ("c.det:value pct1x", "R.md:2: unknown format 'pct1x'"),
        (
            "k.share:value pct",
            "R.md:2: term 'value' of claim 'k.share' is per level \\(SST-2, MRPC, STS-B\\): pick one",
        ),
        ("k.share@RTE:value pct", "R.md:2: claim 'k.share' has no term 'value' at 'RTE'"),
        ("k.share@RTE", "R.md:2: no group 'RTE'"),
        ("k.share@min", "R.md:2: span 'k.share@min': @min needs a term"),
        ("c.det@SST-2", "R.md:2: no group 'SST-2' in '0.796' \\(groups: none"),
        ("k.kind@RTE:value pct", "R.md:2: term 'value' of claim 'k.kind' is no number: 'Diagonal'"),
    ],
)
def test_span_errors_name_the_line(spec, error):
    mod = scorecard_blocks
    with pytest.raises(mod.SpanError, match=error):
        mod.fill_spans(f"ok {span('c.det', '0.796')}\nbad {span(spec, '1')}\n", ROWS, "R.md")


def test_markers_quoted_in_code_are_documentation():
    mod = scorecard_blocks
    readme = (
        f"syntax: `{span('c.nothere:value pct', '1')}`, `<!-- claim:` and `<!-- scorecard-section:begin c.* -->`\n"
        f"real {span('c.det', '0')}\n"
    )
    text, stale = mod.fill_spans(readme, ROWS, "R.md")
    assert text == readme.replace(span("c.det", "0"), span("c.det", "0.796"))
    assert stale == ["R.md:2: c.det: '0' -> '0.796'"]
    assert mod.fill_sections(readme, ROWS, "m", "R.md") == (readme, [])


def test_unclosed_span_is_an_error():
    mod = scorecard_blocks
    with pytest.raises(mod.SpanError, match="R.md:2: a claim span not closed"):
        mod.fill_spans("fine\n<!-- claim:c.det -->0.796\n<!-- /claim -->\n", ROWS, "R.md")


def test_section_block_lists_matching_claims():
    mod = scorecard_blocks
    readme = "intro\n<!-- scorecard-section:begin c.* !c.neg -->\nold\n<!-- scorecard-section:end -->\nend\n"
    text, stale = mod.fill_sections(readme, ROWS, "m", "R.md")
    assert stale == ["R.md:2: section block c.* !c.neg"]
    body = text.split("-->\n", 1)[1].split("<!-- scorecard-section:end", 1)[0]
    assert [line.split("`")[1] for line in body.splitlines() if line.startswith("- ")] == ["c.coref", "c.det", "c.sep"]
    assert "- **not applicable** `c.sep`: Claim c.sep. Ours: none (no [SEP] sink). Paper: 65." in body
    assert mod.fill_sections(text, ROWS, "m", "R.md") == (text, [])
    with pytest.raises(mod.SpanError, match="R.md:2: section block pattern\\(s\\) matching no claim: x.\\*, !c.nope"):
        mod.fill_sections(readme.replace("c.* !c.neg", "x.* c.det !c.nope"), ROWS, "m", "R.md")


def write_results(root, model="m", summary="| summary |\n", rows=ROWS, folder="results"):
    """<folder>/<model>/scorecard.md, tables/scorecard.csv and scorecard.terms.csv of ``rows`` under ``root``."""
    tables = root / folder / model / "tables"
    tables.mkdir(parents=True)
    (root / folder / model / "scorecard.md").write_text(summary)
    rows = {cid: {"extension": "False", **row} for cid, row in rows.items()}  # a paper claim unless said
    fields = [k for k in next(iter(rows.values())) if k != "terms"]
    with open(tables / "scorecard.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows({k: row[k] for k in fields} for row in rows.values())
    with open(tables / "scorecard.terms.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "group", "term", "value"])
        writer.writeheader()
        writer.writerows(
            {"id": cid, "group": g, "term": t, "value": v}
            for cid, row in rows.items()
            for (g, t), v in row.get("terms", {}).items()
        )


def compact(rows=ROWS, model="m"):
    return scorecard_blocks.compact_block(rows, model)


def test_check_then_write(tmp_path, monkeypatch, capsys):
    """--check names what is stale and exits 1; a write fixes it (atomically) and --check passes."""
    mod = scorecard_readme
    write_results(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(f"det {span('c.det:value pct', '90.0')}\n{mod.COMPACT.begin}\nold\n{mod.COMPACT.end}\n")
    monkeypatch.chdir(tmp_path)
    assert mod.main(["--model", "m", "--check"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["README.md:1: c.det:value: '90.0' -> '79.6'", "README.md:2: compact scorecard block"]
    assert out[2].startswith("1 of 1 page(s) stale against results/m/tables/scorecard.csv: README.md")
    assert mod.main(["--model", "m"]) == 0
    expected = f"det {span('c.det:value pct', '79.6')}\n{mod.COMPACT.begin}\n{compact()}{mod.COMPACT.end}\n"
    assert readme.read_text() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "results"]  # no .part left
    capsys.readouterr()
    assert mod.main(["--model", "m", "--check"]) == 0
    assert capsys.readouterr().out.startswith("all 1 page(s) up to date")


TINY = {
    row["id"]: row
    for row in [
        {"id": "a.one", "verdict": "holds", "our_value": "0.796", "paper_value": "8-11 94.3 (baseline 51.7)"},
        {
            "id": "a.two",
            "verdict": "holds, also at random init",
            "our_value": "none: 0.323; cnn: 0.14; lstm: 0.18; transformer: 0.213",
            "paper_value": "+46.8 (dobj), +42.6 (det), +41.7 (pobj), +32.8 (poss)",
        },
        {"id": "b.three", "verdict": "not applicable", "our_value": "", "paper_value": "a | b"},
        {  # this project's extension: counted apart from the paper's claims, marked beside its id
            "id": "b.four",
            "extension": "True",
            "verdict": "does not hold",
            "our_value": "0.1",
            "paper_value": "the fraction removed drops sharply for conv and no encoder",
        },
        {"id": "b.five", "verdict": "holds", "our_value": "0.5 >\n0.4", "paper_value": "qualitative"},
    ]
}


def test_compact_block_from_a_tiny_scorecard_csv(tmp_path, monkeypatch):
    """README's compact block from a hand-made scorecard.csv in another results folder (--results):
    verdict counts in the scorecard's order, the paper's claims and the extensions apart, one short
    row per claim, long cells cut at a group, an item or a word; the full block of a docs page is the
    run's scorecard.md, and --check then passes."""
    mod = scorecard_readme
    write_results(tmp_path, summary="| the full table |\n", rows=TINY, folder="run/results")
    (tmp_path / "README.md").write_text(f"# R\n\n{mod.COMPACT.begin}\n{mod.COMPACT.end}\nend\n")
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "scorecard.md"
    page.write_text(f"# S\n\n{mod.FULL.begin}\nold\n{mod.FULL.end}\n")
    monkeypatch.chdir(tmp_path)
    assert mod.main(["--model", "m", "--results", "run/results"]) == 0
    assert (tmp_path / "README.md").read_text().splitlines() == [
        "# R",
        "",
        mod.COMPACT.begin,
        "Claim scorecard of `m` (4 paper claims, 1 extension; written by `tools/docs/scorecard_readme.py` from "
        "`results/m/tables/scorecard.csv`): paper claims: 2 holds; 1 holds, also at random init; "
        "1 not applicable. Extensions (settings the papers did not test): 1 does not hold.",
        "Ours are fractions (0.796 = 79.6%), the papers' numbers as printed there; a cell longer than "
        "48 characters is cut and ends in `...`.",
        "",
        "| claim | verdict | ours | paper's |",
        "|---|---|---|---|",
        "| `a.one` | holds | 0.796 | 8-11 94.3 (baseline 51.7) |",
        "| `a.two` | holds, also at random init | none: 0.323; cnn: 0.14; lstm: 0.18 ... "
        "| +46.8 (dobj), +42.6 (det), +41.7 (pobj) ... |",
        "| `b.three` | not applicable | - | a \\| b |",
        "| `b.four` (extension) | does not hold | 0.1 | the fraction removed drops sharply for conv and ... |",
        "| `b.five` | holds | 0.5 > 0.4 | qualitative |",
        mod.COMPACT.end,
        "end",
    ]
    assert page.read_text() == f"# S\n\n{mod.FULL.begin}\n| the full table |\n{mod.FULL.end}\n"
    assert mod.main(["--model", "m", "--results", "run/results", "--check"]) == 0
    with pytest.raises(SystemExit, match="results/m/scorecard.md not found"):
        mod.main(["--model", "m", "--check"])  # the default folder has no run


def test_shorten_cuts_at_a_boundary_that_keeps_half_the_cell():
    blocks = scorecard_blocks
    assert blocks.shorten("x" * 48) == "x" * 48
    assert blocks.shorten("ab, " + "y" * 60, limit=20) == "ab, " + "y" * 16 + " ..."  # no cut at 2 of 20
    assert blocks.shorten("aaaaaaaaaaaa; bbbbbbbbbbbb; cc", limit=20) == "aaaaaaaaaaaa ..."


def test_docs_pages_are_filled_and_named_by_their_own_lines(tmp_path, monkeypatch, capsys):
    """A stale span, section block or full block of a docs page is reported as docs/<page>:<line>;
    a page without the compact block is fine; the write touches only the stale page; one page can be
    named alone."""
    mod = scorecard_readme
    write_results(tmp_path)
    readme = f"intro {span('c.det:value pct', '79.6')}\n{mod.COMPACT.begin}\n{compact()}{mod.COMPACT.end}\n"
    (tmp_path / "README.md").write_text(readme)
    docs = tmp_path / "docs"
    docs.mkdir()
    page = docs / "syntax.md"
    page.write_text(
        f"# Syntax\n\nquoted: `{mod.COMPACT.begin}`\ndet {span('c.det:value pct', '90.0')}\n"
        "<!-- scorecard-section:begin c.det -->\nold\n<!-- scorecard-section:end -->\n"
        f"{mod.FULL.begin}\nold\n{mod.FULL.end}\n"
    )
    fine = docs / "fine.md"
    fine.write_text(f"# Fine\n\ncoref {span('c.coref:value1 pct', '75.7')}\n")
    monkeypatch.chdir(tmp_path)
    assert mod.main(["--model", "m", "--check"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        "docs/syntax.md:4: c.det:value: '90.0' -> '79.6'",
        "docs/syntax.md:5: section block c.det",
        "docs/syntax.md:8: full scorecard block",
    ]
    assert out[3].startswith("1 of 3 page(s) stale against results/m/tables/scorecard.csv: docs/syntax.md")
    assert mod.main(["--model", "m", "--check", "docs/fine.md"]) == 0  # one page alone
    assert mod.main(["--model", "m"]) == 0
    assert (tmp_path / "README.md").read_text() == readme
    assert fine.read_text() == f"# Fine\n\ncoref {span('c.coref:value1 pct', '75.7')}\n"
    text = page.read_text()
    assert span("c.det:value pct", "79.6") in text and "- **holds** `c.det`" in text
    assert f"{mod.FULL.begin}\n| summary |\n{mod.FULL.end}" in text
    assert sorted(p.name for p in docs.iterdir()) == ["fine.md", "syntax.md"]  # no .part left
    assert mod.main(["--model", "m", "--check"]) == 0


def test_old_markers_are_refused_with_their_new_form():
    """The second grammar of before (``<!-- scorecard:full -->``, ``<!-- /scorecard:section -->``) is
    an error naming the line and the one form that replaced it, not a block silently left stale."""
    page = "# P\n<!-- scorecard:section c.det -->\nold\n<!-- /scorecard:section -->\n<!-- scorecard:full -->\n"
    with pytest.raises(scorecard_blocks.SpanError) as e:
        scorecard_readme.regenerate(page, "| s |\n", ROWS, "m", "docs/p.md", needs_compact=False)
    assert str(e.value).splitlines() == [
        "docs/p.md:2: old marker '<!-- scorecard:section c.det -->': now scorecard-section:begin PATTERNS / :end",
        "docs/p.md:4: old marker '<!-- /scorecard:section -->': now scorecard-section:begin PATTERNS / :end",
        "docs/p.md:5: old marker '<!-- scorecard:full -->': now scorecard-full:begin / :end",
    ]


def test_tools_docs_runs_the_scorecard_when_the_results_are_there(tmp_path, capsys):
    """python -m tools.docs fills README's compact block from a results folder when it has one
    (--results), names the stale part under --check, and then finds it up to date."""
    from tools.docs.__main__ import main

    write_results(tmp_path, folder="run")
    (tmp_path / "README.md").write_text(f"# R\n{scorecard_readme.COMPACT.begin}\nold\n{scorecard_readme.COMPACT.end}\n")
    args = ["--root", str(tmp_path), "--results", str(tmp_path / "run"), "--model", "m"]
    assert main([*args, "--check"]) == 1
    out = capsys.readouterr().out
    assert (
        "scorecard (README.md and docs/*.md from results/<model>/): stale\n  README.md:2: compact scorecard block"
        in out
    )
    main(args)  # writes; the other generators' pages are absent here: errors of their own
    assert "scorecard (README.md and docs/*.md from results/<model>/): written" in capsys.readouterr().out
    assert compact() in (tmp_path / "README.md").read_text()
    main([*args, "--check"])
    assert "scorecard (README.md and docs/*.md from results/<model>/): up to date" in capsys.readouterr().out


def test_readme_without_the_compact_block_fails_and_nothing_is_written(tmp_path, monkeypatch):
    mod = scorecard_readme
    write_results(tmp_path)
    full = f"{mod.FULL.begin}\nx\n{mod.FULL.end}\n"  # the full block is no stand-in for the compact one
    (tmp_path / "README.md").write_text(f"no block here, only `{mod.COMPACT.begin}` quoted\n{full}")
    (tmp_path / "docs").mkdir()
    stale = f"# Page\n\ndet {span('c.det:value pct', '90.0')}\n"
    (tmp_path / "docs" / "page.md").write_text(stale)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match=f"README.md has no {re.escape(mod.COMPACT.begin)}"):
        mod.main(["--model", "m"])
    assert (tmp_path / "docs" / "page.md").read_text() == stale  # checked before any write
    with pytest.raises(SystemExit, match="README.md has no"):
        mod.main(["--model", "m", "--check"])


def test_block_markers_stand_alone_on_their_lines():
    mod = scorecard_readme
    for block in (mod.COMPACT, mod.FULL):
        assert not block.count(f"quoted `{block.begin}` and `{block.end}`\n", "p.md")
        assert block.count(f"a\n{block.begin}\nx\n{block.end}\nb\n", "p.md") == 1
        with pytest.raises(mod.SpanError, match=f"p.md: the {block.name} needs one"):
            block.count(f"a\n{block.begin}\nx\n", "p.md")
        with pytest.raises(mod.SpanError, match=f"p.md: the {block.name} needs one"):
            block.count(f"{block.begin}\n{block.end}\n{block.begin}\n{block.end}\n", "p.md")
    text, stale = mod.regenerate("# Page\n", "| s |\n", ROWS, "m", "docs/p.md", needs_compact=False)
    assert (text, stale) == ("# Page\n", [])


def test_pages_spans_name_real_claims():
    """Every claim span and section pattern of README.md and docs/*.md names a claim of
    config/claims/; README holds the compact block, docs/scorecard.md the full one, and
    the pages the spans and section blocks."""
    mod = scorecard_blocks
    ids = {c["id"] for c in read_claims(claim_files())}
    assert mod.COMPACT.count((ROOT / "README.md").read_text(), "README.md") == 1
    assert mod.FULL.count((ROOT / "docs" / "scorecard.md").read_text(), "docs/scorecard.md") == 1
    spans, patterns = [], []
    for page in PAGES:
        text = page.read_text()
        found = [m for m in mod.SPAN.finditer(text) if not mod.in_code(text, m.start())]
        spans += [(page.name, mod.parse_pick(m["spec"], m["fmt"]).claim_id) for m in found]
        patterns += [(page.name, p.lstrip("!")) for m in mod.SECTION.finditer(text) for p in m["patterns"].split()]
        assert len(mod.SECTION_OPEN.findall(text)) == len(mod.SECTION.findall(text)), page.name
    assert spans, "no claim spans in README.md or docs/"
    assert patterns, "no scorecard section blocks in README.md or docs/"
    assert [(name, cid) for name, cid in spans if cid not in ids] == []
    assert [(name, p) for name, p in patterns if not fnmatch.filter(ids, p)] == []


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_pages_links_lead_somewhere():
    """Every relative link of README.md and docs/*.md names a file that exists, and a #part a heading of it."""
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, part = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.name}: {target}")
            elif part and dest.suffix == ".md":
                headings = re.findall(r"^#+ (.+)$", dest.read_text(), re.MULTILINE)
                if part not in {anchor(h) for h in headings}:
                    broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def test_readme_is_short_and_every_page_has_a_title():
    """README stays under 250 lines (its word budget: test_docs_budget.py); every page has a title."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    assert len(PAGES) > 10
    for page in PAGES:
        assert page.read_text().startswith("# "), f"{page.name}: no # title on its first line"


def test_one_seed_and_point_only_are_marked_in_the_generated_views():
    blocks = scorecard_blocks
    row = {"id": "a.b", "verdict": "holds", "our_value": "0.5", "paper_value": "1", "claim": "c", "reason": ""}
    assert blocks.basis_mark({**row, "seeds": "1"}) == " (1 seed)"
    assert blocks.basis_mark({**row, "seeds": "0", "basis": "point only"}) == " (point only)"
    assert blocks.basis_mark({**row, "seeds": "3", "basis": "bootstrap"}) == ""
    section = blocks.section_block([{**row, "seeds": "1", "control_verdict": ""}], "m")
    assert "- **holds** (1 seed) `a.b`:" in section
    compact = blocks.compact_block(
        {
            "a.b": {**row, "seeds": "1", "basis": "bootstrap", "p_value": "0.01", "bh": "True", "about": "x"},
            "a.c": {
                **row,
                "id": "a.c",
                "verdict": "inconclusive (multiplicity)",
                "p_value": "0.04",
                "levels": "1 of 2",
            },
        },
        "m",
    )
    assert "| `a.b` | holds (1 seed) | 0.5 | 1 |" in compact
    assert "over the 2 paper claims with a p and, apart, the 0 extensions with a p decides" in compact
    assert "no discovery (inconclusive (multiplicity)): 1 of the paper claims, 0 of the extensions" in compact
    # a per-level claim that holds on fewer levels than it names says so
    assert "| `a.c` | inconclusive (multiplicity) (holds on 1 of 2 levels) |" in compact
    assert "inconclusive (seed)" not in compact  # said only where a verdict reads so


def test_the_compact_block_counts_the_verdicts_the_seed_reference_undecided():
    row = {"id": "a.b", "verdict": "inconclusive (seed)", "our_value": "0.5", "paper_value": "1", "claim": "c"}
    compact = scorecard_blocks.compact_block(
        {"a.b": {**row, "seeds": "1", "basis": "bootstrap", "p_value": "0.2"}}, "m"
    )
    assert (
        "1 firm on one training seed are undecided once widened by the seed reference (inconclusive (seed));" in compact
    )
    assert "| `a.b` | inconclusive (seed) (1 seed) | 0.5 | 1 |" in compact and "1 inconclusive (seed)" in compact
