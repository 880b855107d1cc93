"""Hewitt & Liang's control task for the probes (analysis/clark/probes/control_task.py) and the
selectivity table, by hand."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from analysis.clark.probes.control_task import FIRST, LAST, ROOT, behaviours, control_heads
from analysis.clark.probes.settings import ProbeSettings
from analysis.clark.probes.tables import selectivity_table
from analysis.clark.probes.training import run_probe, split_batches, train_probes
from tests.unit.clark.probes.test_probes import toy_sentences


def test_control_heads_follow_the_word_type_and_never_the_word_itself():
    behaviour = {"the": FIRST, "cat": LAST, "dog": ROOT}
    # The: the first word is itself -> root; cat -> the last word (unit 4); the -> unit 1; dog -> root
    assert control_heads(["The", "cat", "the", "dog"], behaviour).tolist() == [0, 4, 1, 0]
    # a last word told to attach to the last word attaches to the root
    assert control_heads(["dog", "cat"], behaviour).tolist() == [0, 0]


def test_behaviours_are_seeded_per_type_whatever_the_order():
    sents = toy_sentences(6, seed=3)
    once = behaviours(sents, seed=0)
    assert once == behaviours(sents[::-1], seed=0)
    assert set(once) == {w.lower() for s in sents for w in s.words}
    assert set(once.values()) <= {ROOT, FIRST, LAST}
    rng = np.random.default_rng(0)
    assert list(once.values()) == rng.integers(0, 3, len(once)).tolist()  # drawn over the sorted types


def test_train_probes_adds_the_control_task_rows_trained_alike():
    sents = {"train": toy_sentences(20, seed=1), "dev": toy_sentences(8, seed=2)}
    lr = {"attention-only": [0.1], "attention-and-words": [0.05], "word-vectors MLP + distance": [0.05]}
    settings = dict(lrs=lr, epochs=2, batch_size=8, heldout_fraction=0.25, seed=0, mlp_hidden=8)
    probes = ProbeSettings(**settings, control_task=("attention-only",))
    results, curves, _, per_sentence = train_probes(sents, dim=4, probes=probes)
    assert [r["probe"] for r in results][-2:] == ["word-vectors MLP + distance", "attention-only, control task"]
    assert "attention-only, control task" in {c["probe"] for c in curves} and len(per_sentence) == 5
    # the same probe, learning rates and seed on the sentences with the control heads
    behaviour = behaviours(sents["train"] + sents["dev"], 0)
    control = {k: [replace(s, heads=control_heads(s.words, behaviour)) for s in v] for k, v in sents.items()}
    from analysis.clark.probes.models import AttnProbe

    again = run_probe(
        "attention-only, control task", lambda: AttnProbe(3), split_batches(control, 0.25, 0, 8), [0.1], 2, 0
    )
    assert again[0] == results[-1]
    with pytest.raises(ValueError, match="clark_probes.control_task"):
        train_probes(sents, dim=4, probes=ProbeSettings(**settings, control_task=("right-branching",)))


def test_selectivity_is_the_uas_minus_the_control_task_accuracy():
    table = pd.DataFrame({"probe": ["a", "b", "a, control task"], "uas": [0.7, 0.5, 0.4]})
    out = selectivity_table(table)
    assert out["probe"].tolist() == ["a"]  # b has no control-task row
    assert out[["uas", "control_task_uas"]].iloc[0].tolist() == [0.7, 0.4]
    assert out["selectivity"].iloc[0] == pytest.approx(0.3)
    boot = pd.concat([table.assign(replicate=r, uas=table["uas"] + r / 10) for r in (0, 1)])
    reps = selectivity_table(boot, by=("replicate",))
    assert reps["replicate"].tolist() == [0, 1] and reps["selectivity"].tolist() == pytest.approx([0.3, 0.3])


def test_the_figure_draws_the_control_task_in_grey_and_leaves_its_curves_out():
    from analysis.clark.probes.plots import plot_probes
    from analysis.shared.plots import close

    table = pd.DataFrame({"probe": ["a", "a, control task"], "uas": [0.6, 0.3], "paper_uas": [61, np.nan]})
    curves = pd.DataFrame({"probe": ["a", "a, control task"], "lr": 0.1, "epoch": 1, "heldout_uas": [0.5, 0.2]})
    fig = plot_probes(table, curves, "m", "dev", 10, 5)
    widths = {round(p.get_width()) for p in fig.axes[0].patches}
    assert widths == {60, 30} and len(fig.axes[1].get_lines()) == 1  # the control task's curve is not drawn
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()][-1] == "control task (Hewitt & Liang 2019)"
    close(fig)


def test_relabelled_batches_are_those_of_the_sentences_with_the_new_heads():
    import torch

    from analysis.clark.probes.training import relabelled

    sents = {"train": toy_sentences(12, seed=4), "dev": toy_sentences(5, seed=5)}
    behaviour = behaviours(sents["train"] + sents["dev"], 0)
    new = {k: [replace(s, heads=control_heads(s.words, behaviour)) for s in v] for k, v in sents.items()}
    got = relabelled(split_batches(sents, 0.25, 0, 4), sents, lambda s: control_heads(s.words, behaviour), 0.25, 0)
    want = split_batches(new, 0.25, 0, 4)
    for part in ("fit", "heldout", "dev"):
        assert len(got[part]) == len(want[part])
        for a, b in zip(got[part], want[part]):
            assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
