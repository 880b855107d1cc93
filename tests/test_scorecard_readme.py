"""tools/scorecard_readme.py: the generated numbers of README.md and docs/*.md, on hand-made
scorecard rows and pages (no workflow run), and the pages themselves (every span names a real claim,
every relative link leads to a file, README stays short)."""

import csv
import fnmatch
import functools
import re
import sys

import pytest

from analysis.scorecard.claims import read_claims
from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@functools.cache
def readme_tool():
    """tools/scorecard_readme.py as a module (tools/ is not a package; its dataclass needs it in sys.modules)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("scorecard_readme", ROOT / "tools" / "scorecard_readme.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def scorecard_rows(**values):
    """Hand-made scorecard rows: claim id -> our_value ("" = not applicable)."""
    return {
        cid: {
            "id": cid,
            "claim": f"Claim {cid}.",
            "paper_value": "65",
            "our_value": v,
            "verdict": "holds" if v else "not applicable",
            "reason": "" if v else "no [SEP] sink",
        }
        for cid, v in values.items()
    }


ROWS = scorecard_rows(
    **{
        "c.coref": "0.757 > 0.525",
        "c.det": "0.796",
        "k.share": "SST-2: 0.216; MRPC: 0.3; STS-B: 0.125",
        "k.kind": "SST-2: Vertical; RTE: Diagonal",
        "s.sooner": "cnn: 0.517 > 0.107; lstm: 0.52 > 0.147",
        "c.sep": "",
        "c.neg": "0.287 > -0.0667",
    }
)


def span(spec, text):
    return f"<!-- claim:{spec} -->{text}<!-- /claim -->"


def test_readme_block_is_spliced():
    mod = readme_tool()
    readme = f"intro\n{mod.BEGIN}\nold numbers\n{mod.END}\nrest\n"
    assert mod.splice(readme, "| new |\n") == f"intro\n{mod.BEGIN}\n| new |\n{mod.END}\nrest\n"
    with pytest.raises(ValueError, match="no"):
        mod.splice("no markers", "x")


@pytest.mark.parametrize(
    "spec, shown",
    [
        ("c.det", "0.796"),  # as written in the csv
        ("c.det pct", "79.6"),
        ("c.det pct0", "80"),
        ("c.det f2", "0.80"),
        ("c.coref", "0.757 > 0.525"),  # the whole value
        ("c.coref pct", "75.7"),  # the first number
        ("c.coref#2 pct", "52.5"),
        ("c.coref#2", "0.525"),
        ("c.neg#2 f3", "-0.067"),  # a negative number, rounded half up
        ("c.neg#2 f1", "-0.1"),
        ("k.share@MRPC pct0", "30"),
        ("k.share@STS-B pct0", "13"),  # 12.5 rounds half up, not to even
        ("k.share@SST-2", "0.216"),  # the group label's "-2" is never a number
        ("k.share#min pct", "12.5"),
        ("k.share#max pct", "30.0"),
        ("k.kind@RTE", "Diagonal"),
        ("k.kind", "SST-2: Vertical; RTE: Diagonal"),
        ("s.sooner@lstm#2 pct0", "15"),
    ],
)
def test_span_shows_its_part_of_the_value(spec, shown):
    mod = readme_tool()
    text, stale = mod.fill_spans(f"a {span(spec, shown)} b\n", ROWS)
    assert (text, stale) == (f"a {span(spec, shown)} b\n", [])


def test_zero_has_no_sign():
    mod = readme_tool()
    assert mod.formatted("-0.001", "f2") == "0.00"


def test_stale_spans_are_filled_and_named_by_line():
    mod = readme_tool()
    readme = f"title\n\nhead {span('c.coref pct', '70.0')} vs {span('c.coref#2 pct', '52.5')}\n"
    text, stale = mod.fill_spans(readme, ROWS, "R.md")
    assert text == f"title\n\nhead {span('c.coref pct', '75.7')} vs {span('c.coref#2 pct', '52.5')}\n"
    assert stale == ["R.md:3: c.coref: '70.0' -> '75.7'"]
    assert mod.fill_spans(text, ROWS, "R.md") == (text, [])


@pytest.mark.parametrize(
    "spec, error",
    [
        ("c.nothere pct", "R.md:2: unknown claim id 'c.nothere'"),
        ("c.sep", "R.md:2: claim 'c.sep' has no value \\(not applicable: no \\[SEP\\] sink\\)"),
        ("c.coref#3", "R.md:2: #3 asked, but '0.757 > 0.525' has 2 number"),
        ("c.coref#0", "R.md:2: malformed span"),
        ("c.det pct1x", "R.md:2: unknown format 'pct1x'"),
        ("k.share pct", "R.md:2: .* is per group \\(SST-2, MRPC, STS-B\\): pick one with @GROUP"),
        ("k.share@RTE pct", "R.md:2: no group 'RTE'"),
        ("c.det@SST-2", "R.md:2: no group 'SST-2' in '0.796' \\(groups: none"),
        ("k.kind@RTE pct", "R.md:2: no number in 'Diagonal'"),
    ],
)
def test_span_errors_name_the_line(spec, error):
    mod = readme_tool()
    with pytest.raises(mod.SpanError, match=error):
        mod.fill_spans(f"ok {span('c.det', '0.796')}\nbad {span(spec, '1')}\n", ROWS, "R.md")


def test_markers_quoted_in_code_are_documentation():
    mod = readme_tool()
    readme = (
        f"syntax: `{span('c.nothere pct', '1')}`, `<!-- claim:` and `<!-- scorecard:section c.* -->`\n"
        f"real {span('c.det', '0')}\n"
    )
    text, stale = mod.fill_spans(readme, ROWS, "R.md")
    assert text == readme.replace(span("c.det", "0"), span("c.det", "0.796"))
    assert stale == ["R.md:2: c.det: '0' -> '0.796'"]
    assert mod.fill_sections(readme, ROWS, "m", "R.md") == (readme, [])


def test_unclosed_span_is_an_error():
    mod = readme_tool()
    with pytest.raises(mod.SpanError, match="R.md:2: a claim span not closed"):
        mod.fill_spans("fine\n<!-- claim:c.det -->0.796\n<!-- /claim -->\n", ROWS, "R.md")


def test_section_block_lists_matching_claims():
    mod = readme_tool()
    readme = "intro\n<!-- scorecard:section c.* !c.neg -->\nold\n<!-- /scorecard:section -->\nend\n"
    text, stale = mod.fill_sections(readme, ROWS, "m", "R.md")
    assert stale == ["R.md:2: section block c.* !c.neg"]
    body = text.split("-->\n", 1)[1].split("<!-- /scorecard:section", 1)[0]
    assert [line.split("`")[1] for line in body.splitlines() if line.startswith("- ")] == ["c.coref", "c.det", "c.sep"]
    assert "- **not applicable** `c.sep`: Claim c.sep. Ours: none (no [SEP] sink). Paper: 65." in body
    assert mod.fill_sections(text, ROWS, "m", "R.md") == (text, [])
    with pytest.raises(mod.SpanError, match="R.md:2: section block pattern\\(s\\) matching no claim: x.\\*, !c.nope"):
        mod.fill_sections(readme.replace("c.* !c.neg", "x.* c.det !c.nope"), ROWS, "m", "R.md")


def write_results(root, model="m", summary="| summary |\n"):
    """results/<model>/scorecard.md and tables/scorecard.csv of ROWS under ``root``."""
    tables = root / "results" / model / "tables"
    tables.mkdir(parents=True)
    (root / "results" / model / "scorecard.md").write_text(summary)
    with open(tables / "scorecard.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(ROWS["c.det"]))
        writer.writeheader()
        writer.writerows(ROWS.values())


def test_check_then_write(tmp_path, monkeypatch, capsys):
    """--check names what is stale and exits 1; a write fixes it (atomically) and --check passes."""
    mod = readme_tool()
    write_results(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(f"det {span('c.det pct', '90.0')}\n{mod.BEGIN}\nold\n{mod.END}\n")
    monkeypatch.chdir(tmp_path)
    assert mod.main(["--model", "m", "--check"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["README.md:1: c.det: '90.0' -> '79.6'", "README.md:2: summary block"]
    assert out[2].startswith("1 of 1 page(s) stale against results/m/tables/scorecard.csv: README.md")
    assert mod.main(["--model", "m"]) == 0
    assert readme.read_text() == f"det {span('c.det pct', '79.6')}\n{mod.BEGIN}\n| summary |\n{mod.END}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "results"]  # no .part left
    capsys.readouterr()
    assert mod.main(["--model", "m", "--check"]) == 0
    assert capsys.readouterr().out.startswith("all 1 page(s) up to date")


def test_docs_pages_are_filled_and_named_by_their_own_lines(tmp_path, monkeypatch, capsys):
    """A stale span or section block of a docs page is reported as docs/<page>:<line>; a page without
    the summary block is fine; the write touches only the stale page; one page can be named alone."""
    mod = readme_tool()
    write_results(tmp_path)
    readme = f"intro {span('c.det pct', '79.6')}\n{mod.BEGIN}\n| summary |\n{mod.END}\n"
    (tmp_path / "README.md").write_text(readme)
    docs = tmp_path / "docs"
    docs.mkdir()
    page = docs / "syntax.md"
    page.write_text(
        f"# Syntax\n\nquoted: `{mod.BEGIN}`\ndet {span('c.det pct', '90.0')}\n"
        "<!-- scorecard:section c.det -->\nold\n<!-- /scorecard:section -->\n"
    )
    fine = docs / "fine.md"
    fine.write_text(f"# Fine\n\ncoref {span('c.coref pct', '75.7')}\n")
    monkeypatch.chdir(tmp_path)
    assert mod.main(["--model", "m", "--check"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["docs/syntax.md:4: c.det: '90.0' -> '79.6'", "docs/syntax.md:5: section block c.det"]
    assert out[2].startswith("1 of 3 page(s) stale against results/m/tables/scorecard.csv: docs/syntax.md")
    assert mod.main(["--model", "m", "--check", "docs/fine.md"]) == 0  # one page alone
    assert mod.main(["--model", "m"]) == 0
    assert (tmp_path / "README.md").read_text() == readme
    assert fine.read_text() == f"# Fine\n\ncoref {span('c.coref pct', '75.7')}\n"
    assert span("c.det pct", "79.6") in page.read_text() and "- **holds** `c.det`" in page.read_text()
    assert sorted(p.name for p in docs.iterdir()) == ["fine.md", "syntax.md"]  # no .part left
    assert mod.main(["--model", "m", "--check"]) == 0


def test_readme_without_the_summary_block_fails_and_nothing_is_written(tmp_path, monkeypatch):
    mod = readme_tool()
    write_results(tmp_path)
    (tmp_path / "README.md").write_text(f"no block here, only `{mod.BEGIN}` quoted\n")
    (tmp_path / "docs").mkdir()
    stale = f"# Page\n\ndet {span('c.det pct', '90.0')}\n"
    (tmp_path / "docs" / "page.md").write_text(stale)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit, match=f"README.md has no {re.escape(mod.BEGIN)}"):
        mod.main(["--model", "m"])
    assert (tmp_path / "docs" / "page.md").read_text() == stale  # checked before any write
    with pytest.raises(SystemExit, match="README.md has no"):
        mod.main(["--model", "m", "--check"])


def test_summary_markers_stand_alone_on_their_lines():
    mod = readme_tool()
    assert not mod.has_summary(f"quoted `{mod.BEGIN}` and `{mod.END}`\n", "p.md")
    assert mod.has_summary(f"a\n{mod.BEGIN}\nx\n{mod.END}\nb\n", "p.md")
    with pytest.raises(mod.SpanError, match="p.md: the summary block needs one"):
        mod.has_summary(f"a\n{mod.BEGIN}\nx\n", "p.md")
    with pytest.raises(mod.SpanError, match="p.md: the summary block needs one"):
        mod.has_summary(f"{mod.BEGIN}\n{mod.END}\n{mod.BEGIN}\n{mod.END}\n", "p.md")
    text, stale = mod.regenerate("# Page\n", "| s |\n", ROWS, "m", "docs/p.md", needs_summary=False)
    assert (text, stale) == ("# Page\n", [])


def test_pages_spans_name_real_claims():
    """Every claim span and section pattern of README.md and docs/*.md names a claim of
    config/paper_claims.yaml; README holds the summary block, and the pages the spans and blocks."""
    mod = readme_tool()
    ids = {c["id"] for c in read_claims(ROOT / "config" / "paper_claims.yaml")}
    assert mod.has_summary((ROOT / "README.md").read_text())
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
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250
    assert len(PAGES) > 10
    for page in PAGES:
        assert page.read_text().startswith("# "), f"{page.name}: no # title on its first line"
