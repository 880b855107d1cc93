"""The claim scorecard: claim checks on hand-made tables, the claims file itself, the pages."""

import functools
import sys

import numpy as np
import pandas as pd
import pytest

from analysis.scorecard.claims import read_claims, scorecard
from analysis.scorecard.compare import best_per_relation, scorecard_matrix, stack
from analysis.scorecard.evaluate import evaluate_claim, tables_read, value, with_depth
from analysis.scorecard.pages import scorecard_html, scorecard_markdown
from conftest import ROOT

BY_LAYER = with_depth(
    pd.DataFrame(
        {
            "layer": [1, 2, 3, 4],
            "cls": [0.6, 0.3, 0.1, 0.1],
            "sep": [0.01, 0.6, 0.7, 0.1],
            "punct": [0.0, 0.1, 0.2, 0.3],
        }
    )
)
SEP_SINK = {
    "value": {"table": "by_layer", "column": "sep", "agg": "max"},
    "op": ">=",
    "threshold": 0.2,
    "reason": "no [SEP] sink",
}


def claim(check, **kw):
    return {
        "id": "x",
        "paper": "p",
        "where": "w",
        "claim": "c",
        "paper_value": "1",
        "criterion": "k",
        "figure": "f",
        "check": check,
        **kw,
    }


def test_depth_columns_make_claims_depth_free():
    assert BY_LAYER["relative_depth"].tolist() == [0.25, 0.5, 0.75, 1.0]
    assert BY_LAYER["layers_from_end"].tolist() == [3, 2, 1, 0]


def test_values_by_hand():
    tables = {"by_layer": BY_LAYER}
    assert value({"table": "by_layer", "column": "sep", "agg": "max"}, tables) == 0.7
    # first half of the layers: (0.6 + 0.3) / 2
    assert value(
        {"table": "by_layer", "column": "cls", "where": {"relative_depth": {"<=": 0.5}}, "agg": "mean"}, tables
    ) == pytest.approx(0.45)
    assert value({"table": "by_layer", "column": "sep", "agg": "argmax:layer"}, tables) == 3
    assert value({"table": "by_layer", "column": "cls - sep", "where": {"layer": 1}}, tables) == pytest.approx(0.59)
    assert value({"table": "by_layer", "column": "cls", "query": "sep > cls", "agg": "count"}, tables) == 2
    assert value({"table": "by_layer", "column": "cls", "query": "sep > 0.9", "agg": "count"}, tables) == 0


def test_grouped_argmin_per_task():
    change = pd.DataFrame(
        {
            "task": ["A"] * 6 + ["B"] * 6,
            "layer": [1, 1, 2, 2, 3, 3] * 2,
            "head": [1, 2] * 6,
            # A: layer means 0.95, 0.9, 0.6 -> last layer; B: 0.5, 0.9, 0.95 -> first layer
            "cosine": [1.0, 0.9, 0.9, 0.9, 0.7, 0.5, 0.5, 0.5, 0.9, 0.9, 0.9, 1.0],
        }
    )
    check = {
        "per": "task",
        "value": {"table": "t", "column": "cosine", "group_by": ["layer"], "agg": "argmin:layers_from_end"},
        "op": "<=",
        "threshold": 1,
    }
    out = evaluate_claim(claim(check), {"t": with_depth(change)})
    assert out.verdict == "does not hold"
    assert out.our_value == "A: 0; B: 2"


def test_verdicts():
    tables = {"by_layer": BY_LAYER}
    order = {
        "greater": [
            {"table": "by_layer", "column": "sep", "agg": "max"},
            {"table": "by_layer", "column": "cls", "agg": "max"},
        ]
    }
    assert evaluate_claim(claim(order), tables).verdict == "holds"
    assert evaluate_claim(claim(order), tables).our_value == "0.7 > 0.6"
    assert evaluate_claim(claim({**order, "margin": 0.2}), tables).verdict == "does not hold"
    no_sink = {"by_layer": with_depth(BY_LAYER.assign(sep=0.05))}
    out = evaluate_claim(claim(order, applies_if=SEP_SINK), no_sink)
    assert (out.verdict, out.reason) == ("not applicable", "no [SEP] sink (measured: 0.05)")
    assert evaluate_claim(claim(order), {}).verdict == "not run"
    out = evaluate_claim(claim(order), {}, not_selected={"by_layer"})
    assert "not selected" in out.reason
    rows_missing = {"value": {"table": "by_layer", "column": "sep", "where": {"layer": 9}}, "op": ">", "threshold": 0}
    assert evaluate_claim(claim(rows_missing), tables).verdict == "not applicable"


def test_the_claims_file():
    claims = read_claims(ROOT / "config" / "paper_claims.yaml")
    assert len(claims) >= 30
    papers = {c["paper"].split(" et al")[0].split(" 20")[0] for c in claims}
    assert {"Clark", "Kovaleva", "Serrano & Smith", "Jain & Wallace"} <= papers
    for c in claims:
        assert tables_read(c), c["id"]
    # with no table at all every claim is "not run", with its table named
    card = scorecard(claims, {})
    assert set(card["verdict"]) == {"not run"}
    assert card["reason"].str.startswith("table ").all()


def test_pages_and_matrix():
    card = scorecard(
        [claim({"value": {"table": "by_layer", "column": "sep", "agg": "max"}, "op": ">", "threshold": 0.5})],
        {"by_layer": BY_LAYER},
    )
    assert card.loc[0, "our_value"] == "0.7"
    assert "| **holds** |" in scorecard_markdown(card, "m")
    assert "<td>0.7</td>" in scorecard_html(card, "m")
    stacked = pd.concat([card.assign(model="a"), card.assign(model="b", verdict="not run")])
    m = scorecard_matrix(stacked)
    assert m.loc["x"].tolist() == ["holds", "not run"]


def test_compare_helpers():
    t = stack(
        {"deep": pd.DataFrame({"layer": [1, 2, 3, 4], "v": 1.0}), "shallow": pd.DataFrame({"layer": [1, 2], "v": 2.0})}
    )
    assert t.columns[0] == "model"
    assert np.allclose(t["relative_depth"], [0.25, 0.5, 0.75, 1.0, 0.5, 1.0])
    dep = pd.DataFrame(
        {
            "model": "m",
            "relation": ["det", "det", "All (no root)"],
            "accuracy": [0.5, 0.7, 0.3],
            "baseline_accuracy": 0.4,
            "n": 10,
        }
    )
    assert best_per_relation(dep).to_dict("records") == [
        {"model": "m", "relation": "det", "accuracy": 0.7, "baseline_accuracy": 0.4, "n": 10}
    ]


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


def test_check_then_write(tmp_path, monkeypatch, capsys):
    """--check names what is stale and exits 1; a write fixes it (atomically) and --check passes."""
    import csv

    mod = readme_tool()
    tables = tmp_path / "results" / "m" / "tables"
    tables.mkdir(parents=True)
    (tmp_path / "results" / "m" / "scorecard.md").write_text("| summary |\n")
    with open(tables / "scorecard.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(ROWS["c.det"]))
        writer.writeheader()
        writer.writerows(ROWS.values())
    readme = tmp_path / "README.md"
    readme.write_text(f"det {span('c.det pct', '90.0')}\n{mod.BEGIN}\nold\n{mod.END}\n")
    monkeypatch.chdir(tmp_path)
    assert mod.main(["--model", "m", "--check"]) == 1
    out = capsys.readouterr().out
    assert "stale: README.md:1: c.det: '90.0' -> '79.6'" in out and "stale: README.md:2: summary block" in out
    assert mod.main(["--model", "m"]) == 0
    assert readme.read_text() == f"det {span('c.det pct', '79.6')}\n{mod.BEGIN}\n| summary |\n{mod.END}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "results"]  # no .part left
    assert mod.main(["--model", "m", "--check"]) == 0


def test_readme_spans_name_real_claims():
    """Every claim span and section pattern of README.md names a claim of config/paper_claims.yaml."""
    import fnmatch

    mod = readme_tool()
    readme = (ROOT / "README.md").read_text()
    ids = {c["id"] for c in read_claims(ROOT / "config" / "paper_claims.yaml")}
    spans = [m for m in mod.SPAN.finditer(readme) if not mod.in_code(readme, m.start())]
    assert spans, "README.md has no claim spans"
    picks = [mod.parse_pick(m["spec"], m["fmt"]) for m in spans]
    assert sorted({p.claim_id for p in picks} - ids) == []
    patterns = [p.lstrip("!") for m in mod.SECTION.finditer(readme) for p in m["patterns"].split()]
    assert patterns, "README.md has no scorecard section blocks"
    assert len(mod.SECTION_OPEN.findall(readme)) == len(mod.SECTION.findall(readme))
    assert [p for p in patterns if not fnmatch.filter(ids, p)] == []


def test_compare_panels_draw(tmp_path):
    """Every compare panel draws from hand-made stacked tables of two models of different depth."""
    from analysis.scorecard import compare
    from analysis.shared.rule_io import save_figure

    by_layer = stack(
        {
            "deep": pd.DataFrame(
                {
                    "layer": [1, 2, 3, 4],
                    "cls": 0.3,
                    "sep": 0.2,
                    "punct": 0.1,
                    "entropy": 2.0,
                    "uniform_entropy": 4.0,
                    "entropy_cls": 1.0,
                    "uniform_entropy_cls": 4.0,
                }
            ),
            "shallow": pd.DataFrame(
                {
                    "layer": [1, 2],
                    "cls": 0.5,
                    "sep": 0.1,
                    "punct": 0.05,
                    "entropy": 3.0,
                    "uniform_entropy": 4.0,
                    "entropy_cls": 2.0,
                    "uniform_entropy_cls": 4.0,
                }
            ),
        }
    )
    dep = pd.DataFrame(
        {
            "model": ["deep", "shallow"] * 2,
            "relation": ["det", "det", "nsubj", "nsubj"],
            "accuracy": [0.8, 0.6, 0.5, 0.4],
            "baseline_accuracy": 0.3,
            "n": 40,
        }
    )
    coref = pd.DataFrame(
        {
            "model": ["deep", "shallow"] * 2,
            "label": ["best head", "best head", "nearest", "nearest"],
            "accuracy": [0.7, 0.6, 0.3, 0.3],
        }
    )
    probes = pd.DataFrame({"model": ["deep", "shallow"], "probe": "attention-only", "uas": [0.6, 0.5]})
    figs = [
        compare.plot_compare_special_tokens(by_layer),
        compare.plot_compare_entropy(by_layer),
        compare.plot_compare_dep_heads(dep, "gum_sd_dev"),
        compare.plot_compare_coref(coref),
        compare.plot_compare_probes(probes),
    ]
    for k, fig in enumerate(figs):
        save_figure(fig, tmp_path / f"{k}.png")
        assert (tmp_path / f"{k}.png").stat().st_size > 5000


def test_coref_systems_share_labels_across_models():
    from analysis.scorecard.compare import coref_systems

    coref = pd.DataFrame(
        {
            "model": ["a", "a", "b"],
            "system": ["best_head", "nearest", "best_head"],
            "label": ["head 3-5", "nearest mention", "head 1-2"],
            "mention_type": "all",
            "accuracy": [0.7, 0.4, 0.5],
            "n": 10,
        }
    )
    t = coref_systems(coref)
    assert t["label"].tolist() == ["best head", "nearest mention", "best head"]
    assert t["head"].tolist() == ["head 3-5", "nearest mention", "head 1-2"]


def test_explorer_examples_are_shared_between_shards():
    from analysis.scorecard.explorer import shard_share, spread_indices

    assert [shard_share(8, 4, k) for k in range(4)] == [2, 2, 2, 2]
    assert [shard_share(10, 4, k) for k in range(4)] == [3, 3, 2, 2]  # 10 = 3 + 3 + 2 + 2
    assert [shard_share(2, 4, k) for k in range(4)] == [1, 1, 0, 0]
    assert spread_indices(5, 3) == [0, 2, 4] and spread_indices(3, 5) == [0, 1, 2]
