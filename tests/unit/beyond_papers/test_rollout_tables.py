"""The rollout summary on the inputs the three methods share, and the authors' logged run beside it."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.beyond_papers.rollout_tables import authors_log, paired_table, summary_table, with_authors_log

ROOT = Path(__file__).resolve().parents[3]


def per_input():
    """Four inputs a-d with raw and rollout, flow only on b and d (its subsample), one target and layer."""
    rho = {
        "raw": {"a": 0.9, "b": 0.1, "c": 0.9, "d": 0.3},
        "rollout": {"a": 0.8, "b": 0.2, "c": 0.8, "d": 0.0},
        "flow": {"b": 0.5, "d": 0.7},
    }
    rows = [
        {"id": i, "layer": 1, "method": m, "target": "gradient", "spearman": r, "spearman_authors": r + 0.01}
        for m, by_id in rho.items()
        for i, r in by_id.items()
    ]
    return pd.DataFrame(rows)


def test_the_three_methods_are_summarised_on_the_inputs_they_share():
    summary = summary_table(per_input(), 1000, 0)
    common = summary[summary.subset == "common"].set_index("method")
    # on b and d: raw (0.1 + 0.3) / 2, rollout (0.2 + 0.0) / 2, flow (0.5 + 0.7) / 2
    assert common.inputs.tolist() == [2, 2, 2]
    assert common["mean"].tolist() == pytest.approx([0.2, 0.1, 0.6])
    assert common.mean_authors_formula.tolist() == pytest.approx([0.21, 0.11, 0.61])
    # paired: every method's resamples draw the same inputs, and flow = raw + 0.4 on b and d, so
    # flow's interval is raw's moved by 0.4
    raw_ci = common.loc["raw", ["mean_ci95_low", "mean_ci95_high"]].to_numpy(float)
    flow_ci = common.loc["flow", ["mean_ci95_low", "mean_ci95_high"]].to_numpy(float)
    assert raw_ci[0] < raw_ci[1] and flow_ci == pytest.approx(raw_ci + 0.4)
    # raw and rollout again on all four inputs; flow has no more inputs than the common ones
    full = summary[summary.subset == "all"].set_index("method")
    assert full.index.tolist() == ["raw", "rollout"] and full.inputs.tolist() == [4, 4]
    assert full["mean"].tolist() == pytest.approx([0.55, 0.45])
    # the paired table's flow - raw on the same inputs equals the common means' difference
    paired = paired_table(per_input(), 1000, 0).set_index(["first", "second"])
    assert paired.loc[("flow", "raw"), "mean_difference"] == pytest.approx(0.6 - 0.2)
    assert paired.loc[("flow", "raw"), "inputs"] == 2


def test_flow_on_every_input_leaves_only_the_common_rows():
    table = per_input()
    table = table[table.id.isin(["b", "d"])]
    summary = summary_table(table, 100, 0)
    assert set(summary.subset) == {"common"} and len(summary) == 3
    assert summary_table(table.iloc[:0], 100, 0).empty


def test_the_authors_logged_run_beside_the_model():
    log = authors_log(ROOT / "config" / "paper_numbers" / "abnar_zuidema_sst2.csv")
    # their log at layer 6: raw 0.0389, flow 0.1482 (flow - raw = +0.11); rollout = flow through one layer
    at = log.set_index(["layer", "method"])["mean"]
    assert at[6, "flow"] - at[6, "raw"] == pytest.approx(0.1093, abs=1e-4)
    assert at[1, "rollout"] == at[1, "flow"] and set(log.inputs) == {101}
    table = per_input().assign(layer=6)
    summary, paired = with_authors_log(
        summary_table(table, 100, 0), paired_table(table, 100, 0), log, "SST-2", "authors_sst2"
    )
    assert summary.set_index(["subset", "method"]).loc[("common", "flow"), "authors_log_mean"] == at[6, "flow"]
    assert summary.authors_log_inputs.eq(101).all()
    diff = paired.set_index(["first", "second"]).authors_log_difference
    assert diff["flow", "raw"] == pytest.approx(at[6, "flow"] - at[6, "raw"])
    assert diff["rollout", "raw"] == pytest.approx(at[6, "rollout"] - at[6, "raw"])
    # another protocol, another task, or a layer the log does not have: nothing beside
    for task, protocol, layer in (("SST-2", "cls_row", 6), ("RTE", "authors_sst2", 6), ("SST-2", "authors_sst2", 2)):
        other = per_input().assign(layer=layer)
        s, p = with_authors_log(summary_table(other, 100, 0), paired_table(other, 100, 0), log, task, protocol)
        assert s.authors_log_mean.isna().all() and np.isnan(p.authors_log_difference).all()


def test_a_log_without_its_columns_is_refused(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("# a comment\ntask,layer,method,mean\nSST-2,6,raw,0.1\n")
    with pytest.raises(ValueError, match="beyond_papers.rollout.paper_numbers.*protocol"):
        authors_log(path)


def test_the_figure_draws_the_common_rows_and_the_authors_log():
    from analysis.beyond_papers.plots import plot_rollout_spearman
    from analysis.shared.plots import close

    log = authors_log(ROOT / "config" / "paper_numbers" / "abnar_zuidema_sst2.csv")
    table = pd.concat([per_input().assign(layer=layer) for layer in (1, 6)], ignore_index=True)
    summary, _ = with_authors_log(
        summary_table(table, 100, 0), paired_table(table, 100, 0), log, "SST-2", "authors_sst2"
    )
    fig = plot_rollout_spearman(summary, "t")
    ax = fig.axes[0]
    # three methods on their common inputs (n=2), three dotted lines of the authors' log, the zero line
    labels = [line.get_label() for line in ax.get_lines()]
    assert [lab for lab in labels if "(n=2)" in lab] == [
        "raw attention (n=2)",
        "attention rollout (n=2)",
        "attention flow (n=2)",
    ]
    assert sum("authors' logged run (n=101)" in lab for lab in labels) == 3
    assert not any("(n=4)" in lab for lab in labels)  # the subset `all` rows are not drawn
    flow_log = next(line for line in ax.get_lines() if line.get_label().startswith("flow, the authors'"))
    assert flow_log.get_ydata().tolist() == pytest.approx([0.10174346514941328, 0.14824558938848686])
    close(fig)
