"""Pattern shares corrected for the classifier's confusion (adjusted classify-and-count), on answers
computed by hand."""

import numpy as np
import pandas as pd
import pytest

from analysis.kovaleva.patterns.adjusted import (
    adjusted_replicates,
    adjusted_shares,
    adjusted_table,
    confusion_counts,
    misclassification,
)

AB = ("A", "B")
# truly A: 8 of 10 classified A; truly B: 1 of 10 classified A
OOF = pd.DataFrame(
    {
        "true_label": ["A"] * 10 + ["B"] * 10,
        "predicted_label": ["A"] * 8 + ["B"] * 2 + ["A"] * 1 + ["B"] * 9,
        "input_id": [f"i{n // 2}" for n in range(20)],  # 2 labelled maps an input
    }
)


def test_misclassification_rates_from_the_out_of_fold_predictions():
    counts = confusion_counts(OOF, AB).sum(0).reshape(2, 2)
    assert counts.tolist() == [[8, 2], [1, 9]]
    m, labelled = misclassification(counts)
    assert m.tolist() == [[0.8, 0.2], [0.1, 0.9]] and labelled.all()
    # a class with no hand label keeps a correct classifier's row, and is reported
    m, labelled = misclassification(np.array([[8, 2], [0, 0]]))
    assert m.tolist() == [[0.8, 0.2], [0.0, 1.0]] and labelled.tolist() == [True, False]


def test_adjusted_shares_invert_the_confusion():
    m = np.array([[0.8, 0.2], [0.1, 0.9]])
    # true shares (0.5, 0.5) are classified as q = M^T p = (0.45, 0.55); the correction gives them back
    assert adjusted_shares(np.array([0.45, 0.55]), m) == pytest.approx([0.5, 0.5])
    # true (0.2, 0.8): q = (0.8 * 0.2 + 0.1 * 0.8, 0.2 * 0.2 + 0.9 * 0.8) = (0.24, 0.76)
    assert adjusted_shares(np.array([0.24, 0.76]), m) == pytest.approx([0.2, 0.8])
    # q below what any true share gives (0.05 < 0.1, the share of B classified A): the simplex's edge
    assert adjusted_shares(np.array([0.05, 0.95]), m) == pytest.approx([0.0, 1.0], abs=1e-6)
    # a perfect classifier changes nothing
    assert adjusted_shares(np.array([0.3, 0.7]), np.eye(2)) == pytest.approx([0.3, 0.7])


def test_adjusted_table_groups_and_keeps_row_order():
    shares = pd.DataFrame(
        {"task": ["t", "t", "u", "u"], "label": ["B", "A", "A", "B"], "share": [0.55, 0.45, 0.24, 0.76]}
    )
    got = adjusted_table(shares, np.array([[0.8, 0.2], [0.1, 0.9]]), AB, ["task"])
    assert got.tolist() == pytest.approx([0.5, 0.5, 0.2, 0.8])
    with pytest.raises(ValueError, match="expected one row per class"):
        adjusted_table(shares.iloc[:3], np.eye(2), AB, ["task"])


def test_replicates_resample_the_labelled_maps_by_input():
    boot = pd.DataFrame(
        {
            "variant": "finetuned",
            "task": "t",
            "label": list(AB) * 50,
            "share": [0.45, 0.55] * 50,
            "replicate": np.repeat(np.arange(50), 2),
        }
    )
    got = adjusted_replicates(boot, OOF, AB, resamples=50, seed=0)
    again = adjusted_replicates(boot, OOF, AB, resamples=50, seed=0)
    assert got.equals(again)  # seeded
    pairs = got.to_numpy().reshape(50, 2)
    assert pairs.sum(1) == pytest.approx(np.ones(50))
    # the classified shares are the same in every replicate: the spread is the labelled maps' alone
    assert pairs[:, 0].std() > 0.01 and abs(np.median(pairs[:, 0]) - 0.5) < 0.1
    with pytest.raises(ValueError, match="labels outside"):
        adjusted_replicates(boot, OOF.assign(true_label="C"), AB, resamples=50, seed=0)
