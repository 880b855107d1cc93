"""The claim scorecard: claim checks on hand-made tables, the claims file itself, the pages
(tools/docs/scorecard_readme.py, which writes it into README.md and docs/: test_scorecard_readme.py)."""

import re

import numpy as np
import pandas as pd
import pytest

from analysis.overview.compare import best_per_relation, scorecard_matrix, stack
from analysis.scorecard.claims import claim_files, read_claims, scorecard
from analysis.scorecard.evaluate import (
    ALSO_RANDOM,
    INCONCLUSIVE,
    ClaimError,
    distinct_texts,
    evaluate_claim,
    replicate_values,
    tables_read,
    value,
    with_depth,
)
from analysis.scorecard.pages import scorecard_html, scorecard_markdown
from analysis.scorecard.run import Run

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
    out = evaluate_claim(claim(check), Run({"t": with_depth(change)}))
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
    assert evaluate_claim(claim(order), Run(tables)).verdict == "holds"
    assert evaluate_claim(claim(order), Run(tables)).our_value == "0.7 > 0.6"
    assert evaluate_claim(claim({**order, "margin": 0.2}), Run(tables)).verdict == "does not hold"
    no_sink = {"by_layer": with_depth(BY_LAYER.assign(sep=0.05))}
    out = evaluate_claim(claim(order, applies_if=SEP_SINK), Run(no_sink))
    assert (out.verdict, out.reason) == ("not applicable", "no [SEP] sink (measured: 0.05)")
    assert evaluate_claim(claim(order), Run({})).verdict == "not run"
    out = evaluate_claim(claim(order), Run({}, not_selected=frozenset({"by_layer"})))
    assert "not selected" in out.reason


def test_a_where_matching_no_row_names_the_claim_unless_optional():
    tables = {"by_layer": BY_LAYER}
    rows_missing = {"value": {"table": "by_layer", "column": "sep", "where": {"layer": 9}}, "op": ">", "threshold": 0}
    with pytest.raises(ClaimError, match=r"claim x: no row of by_layer matches \{'layer': 9\}.*optional"):
        evaluate_claim(claim(rows_missing), Run(tables))
    out = evaluate_claim({**claim(rows_missing), "optional": "layer 9 exists in deep models only"}, Run(tables))
    assert (out.verdict, out.reason) == (
        "not run",
        "no row of by_layer matches {'layer': 9}: layer 9 exists in deep models only",
    )


def test_ops_mean_what_they_say_and_an_argmax_tie_decides_nothing():
    tables = {"by_layer": BY_LAYER}  # max cls 0.6, max sep 0.7
    at = lambda op: claim({"value": {"table": "by_layer", "column": "cls", "agg": "max"}, "op": op, "threshold": 0.6})  # noqa: E731
    assert [evaluate_claim(at(op), Run(tables)).verdict for op in (">=", "<=", ">", "<", "==")] == [
        "holds",
        "holds",
        "does not hold",
        "does not hold",
        "holds",
    ]
    # the largest of two tied rows is no single label: the argmax is a tie, which no == holds
    tied = {"by_layer": pd.DataFrame({"label": ["a", "b", "c"], "share": [0.4, 0.4, 0.2]})}
    check = {"value": {"table": "by_layer", "column": "share", "agg": "argmax:label"}, "op": "==", "threshold": "a"}
    out = evaluate_claim(claim(check), Run(tied))
    assert (out.verdict, out.our_value) == ("does not hold", "tie: a / b")
    # a member of a where list that matches no row (an encoder this run did not train) is said, not dropped silently
    listed = {"value": {"table": "by_layer", "column": "cls", "where": {"layer": [1, 9]}, "agg": "max"}}
    out = evaluate_claim(claim({**listed, "op": ">", "threshold": 0}), Run(tables))
    assert (out.verdict, out.reason) == ("holds", "no row: layer = 9")


def test_values_that_print_alike_get_more_digits():
    assert distinct_texts([0.056523, 0.056481]) == ["0.05652", "0.05648"]
    assert distinct_texts([0.0565, 0.0565]) == ["0.0565", "0.0565"]  # equal: nothing to tell apart
    assert distinct_texts([0.5, 0.25]) == ["0.5", "0.25"]


def test_the_claims_files():
    claims = read_claims(claim_files())
    assert len(claims) >= 30
    papers = {c["paper"].split(" et al")[0].split(" 20")[0] for c in claims}
    assert {"Clark", "Kovaleva", "Serrano & Smith", "Jain & Wallace"} <= papers
    for c in claims:
        assert tables_read(c), c["id"]
    # with no table at all every claim is "not run", with its table named
    card = scorecard(claims, Run({}))
    assert set(card["verdict"]) == {"not run"}
    assert card["reason"].str.startswith("table ").all()


def test_pages_and_matrix():
    card = scorecard(
        [claim({"value": {"table": "by_layer", "column": "sep", "agg": "max"}, "op": ">", "threshold": 0.5})],
        Run({"by_layer": BY_LAYER}),
    )
    assert card.loc[0, "our_value"] == "0.7"
    assert "| **holds** |" in scorecard_markdown(card, "m")
    assert "<td>0.7</td>" in scorecard_html(card, "m")
    stacked = pd.concat([card.assign(model="a"), card.assign(model="b", verdict="not run")])
    m = scorecard_matrix(stacked)
    assert m.loc["x (point only)"].tolist() == ["holds", "not run"]  # what the verdict rests on, in the matrix too


def test_random_init_control_verdicts():
    """A claim that reads maps is judged on the control too: holding for both is no support."""
    sep_high = {"value": {"table": "by_layer", "column": "sep", "agg": "max"}, "op": ">", "threshold": 0.5}
    claims = [
        claim(sep_high, id="maps", reads_maps=True, control="learned"),
        claim(sep_high, id="maps_control_fails", reads_maps=True, control="learned"),
        claim(sep_high, id="no_maps"),
    ]
    control_holds = {"by_layer": BY_LAYER}  # max sep 0.7 > 0.5
    card = scorecard(claims[:1] + claims[2:], Run({"by_layer": BY_LAYER}), [Run(control_holds)]).set_index("id")
    assert card.loc["maps", "verdict"] == ALSO_RANDOM
    assert card.loc["maps", ["control_value", "control_verdict"]].tolist() == ["0.7", "holds"]
    # a claim that reads no maps is not judged on the control
    assert card.loc["no_maps", "verdict"] == "holds" and card.loc["no_maps", "control_verdict"] == ""
    uniform = {"by_layer": BY_LAYER.assign(sep=0.25)}  # a random model's flat maps: max sep 0.25
    card = scorecard(claims[1:2], Run({"by_layer": BY_LAYER}), [Run(uniform)]).set_index("id")
    assert card.loc["maps_control_fails", ["verdict", "control_verdict"]].tolist() == ["holds", "does not hold"]
    # without a control (overview.random_init_control: false) nothing changes
    card = scorecard(claims[:1], Run({"by_layer": BY_LAYER}))
    assert card.loc[0, "verdict"] == "holds" and card.loc[0, "control_verdict"] == ""
    # the pages say what the control is, and show its verdict
    card = scorecard(claims[:1], Run({"by_layer": BY_LAYER}), [Run(control_holds)])
    md = scorecard_markdown(card, "m")
    assert f"**{ALSO_RANDOM}**" in md and "| 0.7 (holds; +0 (point only)) |" in md and "random-init copy" in md
    assert "random-init copy" not in scorecard_markdown(scorecard(claims[:1], Run({"by_layer": BY_LAYER})), "m")


def test_reads_maps_and_trained_come_from_the_tables(registry, tmp_path):
    """A claim is judged on the control when a table of its check is read off the maps (a premise's
    does not count), and its family is its check's tables'; a table no rule declares fails."""
    from analysis.scorecard.registry import derive

    entry = {"rule": "r", "unit": "u", "cluster": None, "replicates": True, "finetuned_maps": False}
    reg = {
        "maps.{corpus}": {**entry, "reads_maps": True, "family": None},
        "probe": {**entry, "reads_maps": False, "family": "probes"},
        "tuned": {**entry, "reads_maps": False, "finetuned_maps": True, "family": "finetune"},
    }
    on = lambda *stems: {"id": "c.x", "check": {"greater": [{"table": s, "column": "v"} for s in stems]}}  # noqa: E731
    assert derive(on("maps.gum", "maps.ewt"), reg).items() >= {"reads_maps": True, "trained": None}.items()
    assert derive(on("probe", "probe"), reg).items() >= {"reads_maps": False, "trained": "probes"}.items()
    premise = {**on("probe", "probe"), "applies_if": {"value": {"table": "maps.x", "column": "v"}}}
    assert derive(premise, reg)["reads_maps"] is False
    assert derive(on("tuned"), reg).items() >= {"reads_maps": False, "finetuned_maps": True}.items()
    assert derive(on("maps.gum"), reg)["finetuned_maps"] is False
    # clustered: a table it reads resamples clusters (shown beside its interval)
    reg["maps.{corpus}"]["cluster"] = "document"
    assert derive(on("maps.gum"), reg)["clustered"] is True and derive(on("probe"), reg)["clustered"] is False
    with pytest.raises(ValueError, match="claim c.x reads table 'nowhere', which no rule declares"):
        derive(on("probe", "nowhere"), reg)
    # the shipped claims: every table they read is declared, the map claims are the Clark ones
    claims = read_claims(claim_files(), registry)
    assert {c["id"].split(".")[0] for c in claims if c["reads_maps"]} == {"clark3", "clark4", "clark6"}
    assert {c["id"] for c in claims if c["finetuned_maps"]} == {
        "kovaleva.last_layers_change",
        "kovaleva.sep_dominates_finetuned",
        "kovaleva.sst2_sep_strongest",
        "kovaleva.heterogeneous_share",
        "kovaleva.vertical_common",
    }


def test_every_declared_table_is_its_rules_output(workflow):
    """Each registry entry names the rule that writes the table, and the replicate table beside it
    where it says the rule writes one."""
    import re

    # the declared outputs, with the wildcards' constraints taken out: {model,a|b} -> {model}
    outputs = {r.name: {re.sub(r"\{(\w+),[^}]*\}", r"{\1}", str(f)) for f in r.output} for r in workflow.rules}
    for stem, entry in workflow.globals["CLAIM_TABLES"].items():
        made = outputs[entry["rule"]]
        assert f"results/{{model}}/tables/{stem}.csv" in made, stem
        assert (f"results/{{model}}/tables/{stem}.boot.csv" in made) == entry["replicates"], stem


def test_every_claimed_table_is_asked_for_by_its_section(workflow):
    """The scorecard reads the claimed tables that the sections' aggregate rules ask for: a table its
    rule makes but no section asks for would leave its claims 'not run' (with the default config,
    every claim's table and its replicates are asked for)."""
    from analysis.scorecard.registry import lookup

    g = workflow.globals
    made, model = g["section_targets"](), g["CONFIGURED"][0]
    for stem in g["claimed"]():
        assert f"results/{model}/tables/{stem}.csv" in made, stem
        if lookup(g["CLAIM_TABLES"], stem)["replicates"]:
            assert f"results/{model}/tables/{stem}.boot.csv" in made, stem


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


def test_compare_panels_draw(tmp_path):
    """Every compare panel draws from hand-made stacked tables of two models of different depth."""
    from analysis.overview import compare
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
    from analysis.overview.compare import coref_systems

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
    from analysis.overview.explorer import shard_share, spread_indices

    assert [shard_share(8, 4, k) for k in range(4)] == [2, 2, 2, 2]
    assert [shard_share(10, 4, k) for k in range(4)] == [3, 3, 2, 2]  # 10 = 3 + 3 + 2 + 2
    assert [shard_share(2, 4, k) for k in range(4)] == [1, 1, 0, 0]
    assert spread_indices(5, 3) == [0, 2, 4] and spread_indices(3, 5) == [0, 1, 2]


def boot_of(values, **columns):
    """A replicate table: one row per replicate with the given values (and constant columns)."""
    return pd.DataFrame({"replicate": range(len(values)), "v": values, "resampled_units": np.inf, **columns})


def test_interval_verdicts_at_the_threshold_edges():
    """holds / does not hold only when >= 97.5% of the replicates agree (one side of the 95% interval)."""
    c = claim({"value": {"table": "t", "column": "v"}, "op": ">", "threshold": 0.75})
    tables = {"t": pd.DataFrame({"v": [0.8]})}
    # 40 replicates, all above 0.75: holds, interval [2.5th, 97.5th percentile]
    firm = evaluate_claim(c, Run(tables, {"t": boot_of(np.linspace(0.76, 0.84, 40))}))
    assert (firm.verdict, firm.replicates) == ("holds", 40)
    lo, hi = np.quantile(np.linspace(0.76, 0.84, 40), [0.025, 0.975])
    assert firm.interval == f"[{lo:.3g}, {hi:.3g}]"
    # 39 of 40 above (97.5%): still holds; 38 of 40 (95%): inconclusive, naming the interval
    assert evaluate_claim(c, Run(tables, {"t": boot_of([0.7] + [0.8] * 39)})).verdict == "holds"
    out = evaluate_claim(c, Run(tables, {"t": boot_of([0.7, 0.7] + [0.8] * 38)}))
    assert out.verdict == INCONCLUSIVE and "does not decide it" in out.reason
    # a point below the threshold with every replicate below: does not hold
    below = {"t": pd.DataFrame({"v": [0.6]})}
    assert evaluate_claim(c, Run(below, {"t": boot_of([0.6] * 40)})).verdict == "does not hold"
    # no replicates: judged on the point value, and the interval column says why there is none
    out = evaluate_claim(c, Run(tables))
    assert out.verdict == "holds" and out.interval == "none (no replicates of t)" and out.replicates == 0


def test_a_value_on_its_threshold_is_never_firm():
    c = claim({"value": {"table": "t", "column": "v"}, "op": ">=", "threshold": 0.5})
    out = evaluate_claim(c, Run({"t": pd.DataFrame({"v": [0.5]})}, {"t": boot_of([0.4] * 20 + [0.6] * 20)}))
    assert out.verdict == INCONCLUSIVE  # the point is on the threshold (holds under >=), half the replicates fail
    out = evaluate_claim(c, Run({"t": pd.DataFrame({"v": [0.5]})}, {"t": boot_of([0.5] * 40)}))
    assert out.verdict == "holds"


def test_orderings_need_every_pairwise_difference_on_one_side():
    c = claim(
        {"greater": [{"table": "t", "column": "a"}, {"table": "t", "column": "b"}, {"table": "t", "column": "c"}]}
    )
    tables = {"t": pd.DataFrame({"a": [0.7], "b": [0.5], "c": [0.3]})}
    n = 40
    clear = boot_of([0] * n, a=np.full(n, 0.7), b=np.linspace(0.45, 0.55, n), c=np.full(n, 0.3))
    assert evaluate_claim(c, Run(tables, {"t": clear})).verdict == "holds"
    # b - c straddles 0 in the replicates (b from 0.2 to 0.4, c = 0.3): inconclusive
    close = clear.assign(b=np.linspace(0.2, 0.4, n))
    out = evaluate_claim(c, Run(tables, {"t": close}))
    assert out.verdict == INCONCLUSIVE and out.interval.count("[") == 3
    # the point order fails and the failing pair is firmly reversed: does not hold
    reversed_ = {"t": pd.DataFrame({"a": [0.7], "b": [0.2], "c": [0.3]})}
    assert evaluate_claim(c, Run(reversed_, {"t": clear.assign(b=0.2)})).verdict == "does not hold"


def test_per_level_intervals_and_replicates_by_group():
    c = claim({"value": {"table": "t", "column": "v", "agg": "max"}, "op": ">", "threshold": 0.5, "per": "task"})
    tables = {"t": pd.DataFrame({"task": ["A", "A", "B"], "v": [0.9, 0.1, 0.8]})}
    reps = np.arange(40)
    # max over each task's rows per replicate: A firmly above, B straddling 0.5
    boot = pd.DataFrame(
        {
            "replicate": np.repeat(reps, 3),
            "task": ["A", "A", "B"] * 40,
            "v": np.ravel([[0.9, 0.1, 0.3 + 0.01 * r] for r in reps]),
            "resampled_units": np.inf,
        }
    )
    out = evaluate_claim(c, Run(tables, {"t": boot}))
    assert out.verdict == INCONCLUSIVE and out.interval.startswith("A: [0.9, 0.9]; B: [")
    firm_b = boot.assign(v=np.where(boot["task"] == "B", 0.8, boot["v"]))
    assert evaluate_claim(c, Run(tables, {"t": firm_b})).verdict == "holds"
    # one level firmly failing decides "does not hold" even beside an undecided one
    c_fail = {**c, "check": {**c["check"], "threshold": 0.95}}
    assert evaluate_claim(c_fail, Run(tables, {"t": boot})).verdict == "does not hold"


def test_replicate_values_match_the_point_value_on_each_replicate():
    """The vectorised per-replicate value equals value() on that replicate's rows, for every agg."""
    rng = np.random.default_rng(0)
    boot = pd.DataFrame(
        {
            "replicate": np.repeat(range(5), 8),
            "layer": np.tile([1, 1, 2, 2, 3, 3, 4, 4], 5),
            "x": rng.random(40),
            "y": rng.random(40),
        }
    )
    boot = with_depth(boot)
    specs = [
        {"table": "t", "column": "x", "agg": agg}
        for agg in ("max", "min", "mean", "median", "sum", "count", "argmax:layer", "argmin:layer")
    ]
    specs += [
        {"table": "t", "column": "x - y", "where": {"layer": {">=": 2}}, "agg": "mean"},
        {"table": "t", "column": "x", "query": "x > y", "agg": "count"},
        {"table": "t", "column": "x", "group_by": ["layer"], "agg": "argmax:layer"},
        {"table": "t", "column": "x", "group_by": ["layer"], "where": {"layer": {"<=": 2}}, "agg": "max"},
    ]
    for spec in specs:
        reps = replicate_values(spec, {"t": boot})
        for b in range(5):
            one = boot[boot["replicate"] == b].drop(columns="replicate").reset_index(drop=True)
            assert reps[b] == pytest.approx(value(spec, {"t": one})), (spec, b)


def test_tutek_claims_on_hand_made_tables():
    """tutek.permutation_fragile (accuracy drop of tying / mlm vs base), tutek.adversary_costlier
    (mlm's TVD against base's at fixed JSD levels, read only where both curves are resolved there),
    its extensions on tying and residual, and tutek.single_token_sharp (lone-token spread), as the
    file writes them."""
    claims = {c["id"]: c for c in read_claims(claim_files())}
    models = ["base", "concat", "residual", "tying", "mlm"]

    def tables(drop, tvd, spread, resolved=(1, 1, 1, 1, 1)):
        perm = pd.DataFrame({"model": models, "accuracy_drop_under_permutation": drop})
        # the same TVD at both levels; resolved as given at 0.5, always at 0.3
        adv = pd.DataFrame(
            {
                "model": models * 2,
                "jsd_level": [0.3] * 5 + [0.5] * 5,
                "tvd_at_jsd_level": list(tvd) * 2,
                "resolved": [1] * 5 + list(resolved),
            }
        )
        single = pd.DataFrame({"model": models, "median_single_std": spread})
        return {
            "staying_true_permutation.summary": perm,
            "staying_true_adversary.summary": adv,
            "staying_true_single_token.summary": single,
        }

    # concat / residual do not count for the permutation claim (the smaller of tying and mlm must
    # beat base); the adversary claim is mlm's, tying and residual have rows of their own
    t = tables([0.02, 0.0, 0.0, 0.12, 0.05], [0.15, 0.1, 0.1, 0.14, 0.16], [0.2, 0.3, 0.25, 0.21, 0.22])
    ids = ("tutek.permutation_fragile", "tutek.adversary_costlier", "tutek.adversary_costlier_tying")
    got = {i: evaluate_claim(claims[i], Run(t)) for i in ids}
    assert [(o.verdict, o.our_value) for o in got.values()] == [
        ("holds", "0.05 > 0.02"),
        ("holds", "0.3: 0.16 > 0.15; 0.5: 0.16 > 0.15"),
        ("does not hold", "0.3: 0.14 vs 0.15; 0.5: 0.14 vs 0.15"),
    ]
    assert claims["tutek.adversary_costlier_tying"]["extension"] and not claims["tutek.adversary_costlier"].get(
        "extension"
    )
    assert evaluate_claim(claims["tutek.adversary_costlier_residual"], Run(t)).verdict == "does not hold"
    # mlm's curve is not resolved at 0.5 (an adversary far from the level, or not converged): no verdict
    unresolved = tables([0.02] * 5, [0.15, 0.1, 0.1, 0.2, 0.16], [0.2] * 5, resolved=(1, 1, 1, 1, 0))
    got = evaluate_claim(claims["tutek.adversary_costlier"], Run(unresolved))
    assert got.verdict == "inconclusive" and got.reason.startswith("curve not resolved at the level")
    # ... nor where base's is not; tying's unresolved curve does not matter to mlm's claim
    assert (
        evaluate_claim(
            claims["tutek.adversary_costlier"],
            Run(tables([0.02] * 5, [0.15, 0.1, 0.1, 0.2, 0.16], [0.2] * 5, resolved=(0, 1, 1, 1, 1))),
        ).verdict
        == "inconclusive"
    )
    other = tables([0.02] * 5, [0.15, 0.1, 0.1, 0.2, 0.16], [0.2] * 5, resolved=(1, 1, 1, 0, 1))
    assert evaluate_claim(claims["tutek.adversary_costlier"], Run(other)).verdict == "holds"
    assert evaluate_claim(claims["tutek.adversary_costlier_tying"], Run(other)).verdict == "inconclusive"
    assert evaluate_claim(claims["tutek.single_token_sharp"], Run(t)).our_value == "0.21 > 0.2"
    # mlm's drop equal to base's: a tie never holds; one regularised model below base breaks the spread claim
    t = tables([0.05, 0.0, 0.0, 0.12, 0.05], [0.15, 0.1, 0.1, 0.2, 0.14], [0.2, 0.3, 0.19, 0.21, 0.22])
    for i in ("tutek.permutation_fragile", "tutek.adversary_costlier", "tutek.single_token_sharp"):
        assert evaluate_claim(claims[i], Run(t)).verdict == "does not hold", i


def test_every_verdict_has_a_colour_and_a_mark(tmp_path):
    from analysis.scorecard.evaluate import VERDICTS
    from analysis.scorecard.pages import VERDICT_COLOURS, VERDICT_MARKS, plot_scorecard
    from analysis.shared.plots import close

    assert set(VERDICT_COLOURS) == set(VERDICT_MARKS) == set(VERDICTS)
    matrix = pd.DataFrame({"m": list(VERDICTS), "random-init control": ["holds", *[""] * (len(VERDICTS) - 1)]})
    fig = plot_scorecard(matrix.set_axis([f"c{i}" for i in range(len(VERDICTS))]), "t")
    assert [t.get_text() for t in fig.axes[0].texts][: len(VERDICTS)] == [VERDICT_MARKS[v] for v in VERDICTS]
    close(fig)


def test_the_figure_shows_values_and_intervals(tmp_path):
    from analysis.scorecard.pages import NOTE_CHARS, plot_scorecard, value_notes

    card = pd.DataFrame(
        {
            "id": ["a", "b", "c"],
            "our_value": ["0.713", "x" * 80, ""],
            "interval": ["[0.676, 0.752]", "[1, 2]", ""],
            "replicates": [1000, 1000, 0],
            "seeds": [0, 3, 1],
        }
    )
    notes = value_notes(card)
    assert notes["a"] == "0.713  [0.676, 0.752]"
    assert len(notes["b"]) == NOTE_CHARS and notes["b"].endswith("... (3 seeds)")  # the seeds are never cut off
    assert notes["c"] == "(1 seed)"  # no value (e.g. not applicable): the trainings it would rest on
    matrix = pd.DataFrame({"m": ["holds", "inconclusive", "not applicable"]}, index=["a", "b", "c"])
    fig = plot_scorecard(matrix, "t", notes)
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert "0.713  [0.676, 0.752]" in texts and "ours  [95% interval]" in texts


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda c: c["check"].update(op="=>"), "claims/0/check/op: '=>' is not one of"),
        (lambda c: c["check"]["value"].update(agg="maxx"), "claims/0/check/value/agg: 'maxx' is not valid"),
        (lambda c: c["check"]["value"].update(colum="v"), "claims/0/check/value: Additional properties"),
        (lambda c: c.update(reads_maps=True), "claims/0: Additional properties are not allowed ('reads_maps'"),
        (lambda c: c.pop("figure"), "claims/0: 'figure' is a required property"),
        (lambda c: c["check"].update(interval="basics"), "claims/0/check/interval: 'basics' is not one of"),
        # a basic interval reflects one value: an order has none to reflect
        (
            lambda c: c.update(check={"greater": [{"table": "t", "column": "v"}] * 2, "interval": "basic"}),
            "claims/0/check: {'greater': [{'column': 'v', 'table': 't'}, {'column': 'v', 'table': 't'}], "
            "'interval': 'basic'} is not valid under any of the given schemas",
        ),
    ],
)
def test_the_claims_file_is_closed(tmp_path, change, message):
    import yaml

    claim = {"id": "c.x", "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k"}
    claim |= {"figure": "f", "check": {"value": {"table": "t", "column": "v", "agg": "max"}, "op": ">", "threshold": 0}}
    change(claim)
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [claim]}))
    with pytest.raises(ValueError, match=re.escape(f"{path}: {message}")):
        read_claims(path)
