"""Pattern types (Kovaleva Fig. 1-2): features, classifier, labelled-set bookkeeping, on
hand-made maps whose answers are obvious."""

import numpy as np
import pandas as pd
import pytest

from analysis.kovaleva import patterns as P

# [CLS] a a a [SEP] b b b [SEP]
KINDS = "COOOSOOOS"
SEQ = [-1, 0, 0, 0, -1, 1, 1, 1, -1]
N = len(KINDS)


def vertical(n=N, kinds=KINDS):
    """Every row: half on [CLS], half on the last [SEP]."""
    a = np.zeros((n, n))
    a[:, 0] = 0.5
    a[:, n - 1] = 0.5
    return a


def diagonal(n=N):
    """Every token attends to the previous one (the first to itself)."""
    a = np.zeros((n, n))
    a[0, 0] = 1
    a[np.arange(1, n), np.arange(n - 1)] = 1
    return a


def block(kinds=KINDS, seq=SEQ):
    """Non-special tokens: uniform over the non-special tokens of their own segment;
    special tokens: uniform over everything."""
    n = len(kinds)
    seq = np.asarray(seq)
    a = np.full((n, n), 1.0 / n)
    for i in range(n):
        if seq[i] >= 0:
            same = seq == seq[i]
            a[i] = same / same.sum()
    return a


def uniform(n=N):
    return np.full((n, n), 1.0 / n)


def test_vertical_features():
    f = P.map_features(vertical(), KINDS, SEQ)
    assert f["special_mass"] == pytest.approx(1.0)
    assert f["cls_mass"] == pytest.approx(0.5)
    assert f["sep_mass"] == pytest.approx(0.5)
    assert f["top1_col"] == pytest.approx(0.5)
    assert f["prev_mass"] == pytest.approx(0.5 / N)  # row 1 -> 0 ([CLS]) is the only previous-token weight
    assert f["next_mass"] == pytest.approx(0.5 / N)  # row 7 -> 8 ([SEP]) is the only next-token weight
    assert f["self_mass"] == pytest.approx(1.0 / N)  # a[0, 0] + a[8, 8]
    assert f["entropy"] == pytest.approx(np.log(2) / np.log(N))
    assert f["row_consistency"] == pytest.approx(1.0)
    assert f["within_seg"] == pytest.approx(0.0)
    assert f["cross_seg"] == pytest.approx(0.0)
    assert f["n_segments"] == 2


def test_diagonal_features():
    f = P.map_features(diagonal(), KINDS, SEQ)
    assert f["prev_mass"] == pytest.approx((N - 1) / N)
    assert f["self_mass"] == pytest.approx(1 / N)
    assert f["diag_mass"] == pytest.approx(1.0)
    assert f["diag_max"] == pytest.approx((N - 1) / N)
    assert f["entropy"] == pytest.approx(0.0, abs=1e-9)
    assert f["far_mass"] == pytest.approx(0.0)
    # columns 0..7 get 1/N each except column 0 gets 2/N; the most attended gets 2/N
    assert f["top1_col"] == pytest.approx(2 / N)


def test_block_features():
    f = P.map_features(block(), KINDS, SEQ)
    assert f["within_seg"] == pytest.approx(1.0)
    assert f["cross_seg"] == pytest.approx(0.0)
    # uniform over the 3 own-segment tokens out of 6 non-special ones: excess = 1 - 3/6
    assert f["within_seg_excess"] == pytest.approx(0.5)
    assert f["nonspecial_entropy"] == pytest.approx(np.log(3) / np.log(6))


def test_uniform_features():
    f = P.map_features(uniform(), KINDS, SEQ)
    assert f["entropy"] == pytest.approx(1.0)
    assert f["row_consistency"] == pytest.approx(1.0)
    assert f["col_gini"] == pytest.approx(0.0, abs=1e-12)
    assert f["special_mass"] == pytest.approx(3 / N)
    assert f["within_seg_excess"] == pytest.approx(0.0, abs=1e-12)


def test_features_reject_mismatched_kinds():
    with pytest.raises(ValueError, match="token kinds"):
        P.map_features(uniform(), KINDS[:-1])


def test_features_of_example_is_layer_major():
    attn = np.stack([np.stack([vertical(), diagonal()]), np.stack([block(), uniform()])])  # (2, 2, n, n)
    F = P.features_of_example(attn, KINDS, SEQ)
    assert F.shape == (4, len(P.FEATURES))
    col = P.FEATURES.index("prev_mass")
    assert F[1, col] == pytest.approx((N - 1) / N)  # layer 1, head 2 = diagonal


def _noisy(proto, rng, noise):
    a = proto + rng.random(proto.shape) * noise
    return a / a.sum(1, keepdims=True)


def _training_set(rng, per_class=25):
    protos = {
        "Vertical": vertical,
        "Diagonal": diagonal,
        "Block": block,
        "Heterogeneous": lambda: rng.dirichlet(np.full(N, 0.7), size=N),
        "Vertical+Diagonal": lambda: 0.5 * vertical() + 0.5 * diagonal(),
    }
    X, y = [], []
    for label, make in protos.items():
        for _ in range(per_class):
            m = _noisy(make(), rng, 0.08)
            X.append([P.map_features(m, KINDS, SEQ)[f] for f in P.FEATURES])
            y.append(label)
    return np.array(X), np.array(y)


@pytest.mark.parametrize("kind", ["logistic", "boosting"])
def test_classifier_gets_the_obvious_maps_right(kind):
    rng = np.random.default_rng(0)
    X, y = _training_set(rng)
    clf = P.make_classifier(kind, seed=0).fit(X, y)
    obj = {"model": clf, "classes": list(clf.classes_), "kind": kind}
    clean = {
        "Vertical": vertical(),
        "Diagonal": diagonal(),
        "Block": block(),
        "Vertical+Diagonal": 0.5 * vertical() + 0.5 * diagonal(),
    }
    feats = pd.DataFrame([P.map_features(m, KINDS, SEQ) for m in clean.values()])
    out = P.classify(obj, feats)
    assert list(out["label"]) == list(clean)
    assert out[[f"p_{c}" for c in P.CLASSES]].sum(axis=1).to_numpy() == pytest.approx(np.ones(len(clean)))


def test_cross_validate_per_class_table():
    X, y = _training_set(np.random.default_rng(1), per_class=12)
    table, cm, pred = P.cross_validate(X, y, "logistic", folds=4, seed=0)
    per_class = table.set_index("label")
    assert set(P.CLASSES) <= set(per_class.index)
    assert per_class.loc[list(P.CLASSES), "support"].sum() == len(y)
    assert per_class.loc["macro avg", "f1"] > 0.9  # separable synthetic classes
    assert cm.to_numpy().sum() == len(y)
    assert len(pred) == len(y)
    # seeded: identical on a rerun
    again, _, _ = P.cross_validate(X, y, "logistic", folds=4, seed=0)
    pd.testing.assert_frame_equal(table, again)


def test_grouped_splits_keep_each_input_on_one_side():
    X, y = _training_set(np.random.default_rng(2), per_class=12)
    groups = np.arange(len(y)) // 3  # three maps per input
    for tr, te in P.cv_splits(X, y, 4, 0, groups):
        assert not set(groups[tr]) & set(groups[te])
    table, _, pred = P.cross_validate(X, y, "logistic", folds=4, seed=0, groups=groups)
    assert table.set_index("label").loc["macro avg", "support"] == len(y) and (pred != None).all()  # noqa: E711


def test_cross_validate_refuses_a_singleton_class():
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match="fewer than 2"):
        P.cross_validate(X, np.array(["Vertical"] * 4 + ["Block"]))


def test_share_table_sums_to_one():
    pred = pd.DataFrame({"task": ["A", "A", "A", "B"], "label": ["Vertical", "Vertical", "Block", "Heterogeneous"]})
    t = P.share_table(pred, ["task"])
    assert t.groupby("task")["share"].sum().to_dict() == pytest.approx({"A": 1.0, "B": 1.0})
    a = t[t["task"] == "A"].set_index("label")["share"]
    assert a["Vertical"] == pytest.approx(2 / 3) and a["Diagonal"] == 0
    assert set(t["n_maps"]) == {3, 1}


def test_sample_batches_first_batch_is_uniform_draw_and_later_ones_exclude_it():
    inputs = [(f"w{i}", "wiki") for i in range(4)] + [(f"m{i}", "MRPC") for i in range(4)]
    batches = [{"seed": 0, "n_maps": 20}, {"seed": 1, "n_maps": 10, "sources": ["MRPC"], "layers": [2, 3]}]
    t = P.sample_batches(inputs, 3, 4, batches)
    first = P.sample_triples([i for i, _ in inputs], 3, 4, 20, 0)
    assert (
        t.iloc[:20][["input_id", "layer", "head"]].to_numpy() == first[["input_id", "layer", "head"]].to_numpy()
    ).all()
    second = t[t["batch"] == 2]
    assert len(second) == 10 and second["input_id"].str.startswith("m").all()
    assert second["layer"].between(2, 3).all()
    assert not t.duplicated(["input_id", "layer", "head"]).any()
    assert list(t["map"]) == list(range(30))
    with pytest.raises(ValueError, match="unknown keys"):
        P.sample_batches(inputs, 3, 4, [{"seed": 0, "n_maps": 2, "sourcse": []}])


def test_read_labels_checks_labels(tmp_path):
    p = tmp_path / "labels.csv"
    p.write_text("# comment\nmap,input_id,layer,head,label\n0,x,1,1,Vertical\n1,x,1,2,Stripy\n")
    with pytest.raises(ValueError, match=r"labels.csv:4: label 'Stripy'"):
        P.read_labels(p)


def test_repo_labels_are_complete():
    """The committed hand labels: >= 200 maps, every class present, no duplicates."""
    t = P.read_labels("config/patterns/labels.csv")
    assert len(t) >= 200
    assert set(t["label"]) == set(P.CLASSES)
    assert not t.duplicated(["input_id", "layer", "head"]).any()
    assert (t["layer"] >= 1).all() and (t["head"] >= 1).all()


def test_save_and_load_maps_roundtrip(tmp_path):
    maps = {3: (vertical(), KINDS, SEQ), 7: (diagonal(), KINDS, SEQ)}
    P.save_maps(maps, tmp_path / "m.npz")
    back = P.load_maps(tmp_path / "m.npz")
    assert set(back) == {3, 7}
    assert back[3][1] == KINDS and back[3][2] == SEQ
    assert np.allclose(back[7][0], diagonal(), atol=1e-3)


def test_downsample_map_keeps_a_vertical_stripe_and_marks_special_columns():
    img = P.downsample_map(vertical(), KINDS, size=8, over=4)
    assert img.shape == (2, 8, 8)
    assert img[0].max() == pytest.approx(1.0)
    assert img[0][:, 0].min() > 0.5 and img[0][:, 3].max() == 0  # [CLS] column bright, a middle one empty
    assert img[1][0, 0] == 1.0 and img[1][0, 1] < 1.0  # first columns: [CLS]
    assert (img[1] == img[1][0]).all()  # the same for every row


def test_cnn_cross_validate_runs_and_reports_every_class():
    rng = np.random.default_rng(2)
    maps = [(vertical(), "Vertical"), (diagonal(), "Diagonal"), (block(), "Block")]
    images, y = [], []
    for proto, label in maps:
        for _ in range(6):
            images.append(P.downsample_map(_noisy(proto, rng, 0.05), KINDS, size=8))
            y.append(label)
    t = P.cnn_cross_validate(np.stack(images), np.array(y), folds=3, seed=0, epochs=30)
    assert set(t["label"]) == {"Vertical", "Diagonal", "Block", "macro avg", "weighted avg"}
    assert t.set_index("label").loc["weighted avg", "f1"] > 0.6
