"""Pattern types (Kovaleva Fig. 1-2): features, classifier, labelled-set bookkeeping, on
hand-made maps whose answers are obvious."""

import numpy as np
import pandas as pd
import pytest

from analysis.kovaleva.patterns import classifier as C
from analysis.kovaleva.patterns import cnn as CNN
from analysis.kovaleva.patterns import features as F
from analysis.kovaleva.patterns import labels as Lab
from analysis.kovaleva.patterns import plots as pattern_plots
from analysis.kovaleva.patterns import shares as S

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
    f = F.map_features(vertical(), KINDS, SEQ)
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
    f = F.map_features(diagonal(), KINDS, SEQ)
    assert f["prev_mass"] == pytest.approx((N - 1) / N)
    assert f["self_mass"] == pytest.approx(1 / N)
    assert f["diag_mass"] == pytest.approx(1.0)
    assert f["diag_max"] == pytest.approx((N - 1) / N)
    assert f["entropy"] == pytest.approx(0.0, abs=1e-9)
    assert f["far_mass"] == pytest.approx(0.0)
    # columns 0..7 get 1/N each except column 0 gets 2/N; the most attended gets 2/N
    assert f["top1_col"] == pytest.approx(2 / N)


def test_block_features():
    f = F.map_features(block(), KINDS, SEQ)
    assert f["within_seg"] == pytest.approx(1.0)
    assert f["cross_seg"] == pytest.approx(0.0)
    # uniform over the 3 own-segment tokens out of 6 non-special ones: excess = 1 - 3/6
    assert f["within_seg_excess"] == pytest.approx(0.5)
    assert f["nonspecial_entropy"] == pytest.approx(np.log(3) / np.log(6))


def test_uniform_features():
    f = F.map_features(uniform(), KINDS, SEQ)
    assert f["entropy"] == pytest.approx(1.0)
    assert f["row_consistency"] == pytest.approx(1.0)
    assert f["col_gini"] == pytest.approx(0.0, abs=1e-12)
    assert f["special_mass"] == pytest.approx(3 / N)
    assert f["within_seg_excess"] == pytest.approx(0.0, abs=1e-12)


def test_features_reject_mismatched_kinds():
    with pytest.raises(ValueError, match="token kinds"):
        F.map_features(uniform(), KINDS[:-1])


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
            X.append([F.map_features(m, KINDS, SEQ)[f] for f in F.FEATURES])
            y.append(label)
    return np.array(X), np.array(y)


@pytest.mark.parametrize("kind", ["logistic", "boosting"])
def test_classifier_gets_the_obvious_maps_right(kind):
    rng = np.random.default_rng(0)
    X, y = _training_set(rng)
    clf = C.make_classifier(kind, seed=0).fit(X, y)
    obj = {"model": clf, "classes": list(clf.classes_), "kind": kind}
    clean = {
        "Vertical": vertical(),
        "Diagonal": diagonal(),
        "Block": block(),
        "Vertical+Diagonal": 0.5 * vertical() + 0.5 * diagonal(),
    }
    feats = pd.DataFrame([F.map_features(m, KINDS, SEQ) for m in clean.values()])
    out = C.classify(obj, feats)
    assert list(out["label"]) == list(clean)
    assert out[[f"p_{c}" for c in F.CLASSES]].sum(axis=1).to_numpy() == pytest.approx(np.ones(len(clean)))


def test_cross_validate_per_class_table():
    X, y = _training_set(np.random.default_rng(1), per_class=12)
    table, cm, pred = C.cross_validate(X, y, "logistic", folds=4, seed=0)
    per_class = table.set_index("label")
    assert set(F.CLASSES) <= set(per_class.index)
    assert per_class.loc[list(F.CLASSES), "support"].sum() == len(y)
    assert per_class.loc["macro avg", "f1"] > 0.9  # separable synthetic classes
    assert cm.to_numpy().sum() == len(y)
    assert len(pred) == len(y)
    # seeded: identical on a rerun
    again, _, _ = C.cross_validate(X, y, "logistic", folds=4, seed=0)
    pd.testing.assert_frame_equal(table, again)


def test_grouped_splits_keep_each_input_on_one_side():
    X, y = _training_set(np.random.default_rng(2), per_class=12)
    groups = np.arange(len(y)) // 3  # three maps per input
    for tr, te in C.cv_splits(X, y, 4, 0, groups):
        assert not set(groups[tr]) & set(groups[te])
    table, _, pred = C.cross_validate(X, y, "logistic", folds=4, seed=0, groups=groups)
    assert table.set_index("label").loc["macro avg", "support"] == len(y) and (pred != None).all()  # noqa: E711


def test_cross_validate_refuses_a_singleton_class():
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match="fewer than 2"):
        C.cross_validate(X, np.array(["Vertical"] * 4 + ["Block"]))


def test_share_table_sums_to_one():
    pred = pd.DataFrame({"task": ["A", "A", "A", "B"], "label": ["Vertical", "Vertical", "Block", "Heterogeneous"]})
    t = S.share_table(pred, ["task"])
    assert t.groupby("task")["share"].sum().to_dict() == pytest.approx({"A": 1.0, "B": 1.0})
    a = t[t["task"] == "A"].set_index("label")["share"]
    assert a["Vertical"] == pytest.approx(2 / 3) and a["Diagonal"] == 0
    assert set(t["n_maps"]) == {3, 1}


def test_sample_batches_first_batch_is_uniform_draw_and_later_ones_exclude_it():
    inputs = [(f"w{i}", "wiki") for i in range(4)] + [(f"m{i}", "MRPC") for i in range(4)]
    batches = [{"seed": 0, "n_maps": 20}, {"seed": 1, "n_maps": 10, "sources": ["MRPC"], "layers": [2, 3]}]
    t = Lab.sample_batches(inputs, 3, 4, batches)
    first = Lab.sample_triples([i for i, _ in inputs], 3, 4, 20, 0)
    assert (
        t.iloc[:20][["input_id", "layer", "head"]].to_numpy() == first[["input_id", "layer", "head"]].to_numpy()
    ).all()
    second = t[t["batch"] == 2]
    assert len(second) == 10 and second["input_id"].str.startswith("m").all()
    assert second["layer"].between(2, 3).all()
    assert not t.duplicated(["input_id", "layer", "head"]).any()
    assert list(t["map"]) == list(range(30))
    with pytest.raises(ValueError, match="unknown keys"):
        Lab.sample_batches(inputs, 3, 4, [{"seed": 0, "n_maps": 2, "sourcse": []}])


def test_read_labels_checks_labels(tmp_path):
    p = tmp_path / "labels.csv"
    p.write_text("# comment\nmap,input_id,layer,head,label\n0,x,1,1,Vertical\n1,x,1,2,Stripy\n")
    with pytest.raises(ValueError, match=r"labels.csv:4: label 'Stripy'"):
        Lab.read_labels(p)


def test_repo_labels_are_complete():
    """The committed hand labels: >= 200 maps, every class present, no duplicates."""
    t = Lab.read_labels("config/patterns/labels.csv")
    assert len(t) >= 200
    assert set(t["label"]) == set(F.CLASSES)
    assert not t.duplicated(["input_id", "layer", "head"]).any()
    assert (t["layer"] >= 1).all() and (t["head"] >= 1).all()


def test_save_and_load_maps_roundtrip(tmp_path):
    maps = {3: (vertical(), KINDS, SEQ), 7: (diagonal(), KINDS, SEQ)}
    Lab.save_maps(maps, tmp_path / "m.npz")
    back = Lab.load_maps(tmp_path / "m.npz")
    assert set(back) == {3, 7}
    assert back[3][1] == KINDS and back[3][2] == SEQ
    assert np.allclose(back[7][0], diagonal(), atol=1e-3)


def test_downsample_map_keeps_a_vertical_stripe_and_marks_special_columns():
    img = CNN.downsample_map(vertical(), KINDS, size=8, over=4)
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
            images.append(CNN.downsample_map(_noisy(proto, rng, 0.05), KINDS, size=8))
            y.append(label)
    t = CNN.cnn_cross_validate(np.stack(images), np.array(y), folds=3, seed=0, epochs=30)
    assert set(t["label"]) == {"Vertical", "Diagonal", "Block", "macro avg", "weighted avg"}
    assert t.set_index("label").loc["weighted avg", "f1"] > 0.6


def _labelled_table(rng, per_class=6):
    """A labelled feature table as rule pattern_features writes it (two maps per input)."""
    X, y = _training_set(rng, per_class)
    t = pd.DataFrame(X, columns=list(F.FEATURES))
    t.insert(0, "label", y)
    t.insert(0, "input_id", [f"in{i // 2}" for i in range(len(y))])
    t.insert(0, "source", np.where(np.arange(len(y)) % 3 == 0, "MRPC", "wiki"))
    t.insert(0, "batch", np.where(np.arange(len(y)) < 20, 1, 2))
    t.insert(0, "map", np.arange(len(y)))
    return t.assign(layer=1, head=1, n_tokens=N)


def test_feature_matrix_and_cv_tables():
    t = _labelled_table(np.random.default_rng(3))
    X, y, groups = C.feature_matrix(t, "labelled.csv")
    assert X.shape == (len(t), len(F.FEATURES)) and list(groups[:3]) == ["in0", "in0", "in1"]
    with pytest.raises(ValueError, match=r"labelled.csv: features \['log_n'\] missing"):
        C.feature_matrix(t.drop(columns="log_n"), "labelled.csv")
    table, cm, _ = C.cross_validate(X, y, "logistic", folds=3, seed=0, groups=groups)
    cv = C.cv_table([table, table.assign(classifier="boosting")], len(y), "embedded:m")
    assert list(cv.columns[:3]) == ["labelled_model", "n_labels", "classifier"] and len(cv) == 2 * len(table)
    long = C.confusion_table(cm, "logistic")
    assert list(long.columns) == ["classifier", "true_label", "predicted_label", "count", "share_of_true"]
    assert long["count"].sum() == len(y)
    assert long.groupby("true_label")["share_of_true"].sum().to_numpy() == pytest.approx(1.0)


class _Example:
    def __init__(self, id, attn):
        self.id, self.attn, self.kinds, self.seq_ids, self.n = id, attn, KINDS, SEQ, N


class _Shards(list):
    def counts(self):
        return {"too_long": 1}


def test_classify_shards_task_shares_and_most_confident():
    X, y = _training_set(np.random.default_rng(4), per_class=10)
    clf = {"model": C.make_classifier("logistic", 0).fit(X, y), "classes": None, "kind": "logistic"}
    clf["classes"] = list(clf["model"].classes_)
    attn = np.stack([np.stack([vertical(), diagonal()]), np.stack([block(), uniform()])])  # 2 layers x 2 heads
    shards = _Shards([_Example("a", attn), _Example("b", attn), _Example("c", attn)])
    pred, counts = C.classify_shards(clf, shards, 2, "pretrained", "RTE")
    assert len(pred) == 2 * 4 and list(pred.columns[:6]) == ["variant", "task", "input_id", "layer", "head", "n_tokens"]
    assert counts == {
        "variant": "pretrained",
        "task": "RTE",
        "inputs_in_shard": 3,
        "inputs_classified": 2,
        "inputs_not_used": 1,
        "shard_too_long": 1,
    }
    assert pred.loc[(pred.layer == 1) & (pred["head"] == 2), "label"].tolist() == ["Diagonal", "Diagonal"]
    tab = S.task_shares(pred, [counts], "logistic", "tiny-random-bert")
    assert list(tab.columns[:4]) == ["model", "classifier", "variant", "task"]
    assert tab["share"].sum() == pytest.approx(1.0) and (tab["inputs_classified"] == 2).all()
    pick = S.most_confident(pred, min_tokens=N)
    assert list(pick["label"]) == [c for c in F.CLASSES if c in set(pred["label"])]
    assert (pick["input_id"] == "a").all()  # ties: the first in order
    assert len(S.most_confident(pred, min_tokens=N + 1)) == len(pick)  # no input long enough: all inputs

    from analysis.shared.plots import close

    tab = Lab.with_provenance(tab, "embedded:all-MiniLM-L6-v2", "tiny-random-bert")
    assert list(tab.columns[:4]) == ["model", "labels_from", "extrapolated", "classifier"]
    fig = pattern_plots.plot_patterns(
        tab, pred, ["RTE"], ["pretrained"], "tiny", {"kind": "logistic", "n_labels": 50}, "classified"
    )
    title = fig.texts[0].get_text()
    assert title.startswith("tiny: attention pattern types (logistic classifier, 50 hand labels)")
    assert "\nEXTRAPOLATED: classifier trained on hand labels of all-MiniLM-L6-v2 maps, applied to tiny" in title
    close(fig)
    pick = Lab.with_provenance(pick, "embedded:all-MiniLM-L6-v2", "embedded:all-MiniLM-L6-v2")
    fig = pattern_plots.plot_pattern_examples(pick, [(vertical(), KINDS, SEQ)] * len(pick), "all-MiniLM-L6-v2")
    assert [ax.get_title().split("\n")[0] for ax in fig.axes[: len(pick)]] == list(pick["label"])
    assert (
        "EXTRAPOLATED" not in fig.texts[0].get_text() and "this model's (all-MiniLM-L6-v2)" in fig.texts[0].get_text()
    )
    close(fig)


@pytest.mark.parametrize(
    "labelled, spec, extrapolated",
    [
        ("embedded:all-MiniLM-L6-v2", "embedded:all-MiniLM-L6-v2", False),  # the labelled model itself
        ("embedded:all-MiniLM-L6-v2", "bert-base-uncased", True),  # config/paper.yaml
        ("embedded:all-MiniLM-L6-v2", "tiny-random-bert", True),  # config/smoke.yaml
        ("embedded:all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", True),  # another spec, another slug
        ("bert-base-uncased", "bert-base-uncased", False),  # labels of another model: follows the recipe
    ],
)
def test_label_provenance_flags_every_model_but_the_labelled_one(labelled, spec, extrapolated):
    prov = Lab.label_provenance(labelled, spec)
    assert prov == {"labels_from": labelled.split(":")[-1], "extrapolated": extrapolated}
    tab = Lab.with_provenance(pd.DataFrame({"layer": [1, 2], "share": [0.5, 0.5]}), labelled, spec)
    assert list(tab.columns) == ["labels_from", "extrapolated", "layer", "share"]
    assert (tab["extrapolated"] == extrapolated).all()


def test_recipe_names_the_labelled_model():
    import yaml

    with open("config/patterns/recipe.yaml") as f:
        recipe = yaml.safe_load(f)
    assert not Lab.label_provenance(recipe["model"], "embedded:all-MiniLM-L6-v2")["extrapolated"]
    assert Lab.label_provenance(recipe["model"], "bert-base-uncased")["extrapolated"]


def test_labelled_examples_label_shares_and_images():
    t = _labelled_table(np.random.default_rng(5))
    pick = Lab.first_per_class(t.sample(frac=1, random_state=0), 2)
    assert list(pick.columns) == ["label", "map", "batch", "source", "input_id", "layer", "head", "n_tokens"]
    assert (
        pick.groupby("label")["map"].apply(list).to_dict()
        == t.groupby("label")["map"].apply(lambda m: sorted(m)[:2]).to_dict()
    )
    shares = Lab.label_shares(t)
    assert set(shares["source"]) == {"MRPC", "wiki", "all"} and (shares["batch"] == 1).all()
    assert shares[shares.source == "all"]["n_maps"].iloc[0] == 20
    maps = {0: (vertical(), KINDS, SEQ), 1: (diagonal(), KINDS, SEQ)}
    images = CNN.map_images(maps, [1, 0])
    assert images.shape == (2, 2, 32, 32) and (images[1] == CNN.downsample_map(vertical(), KINDS)).all()


def test_pattern_figures():
    from analysis.shared.plots import close

    assert set(pattern_plots.COLORS) == set(F.CLASSES) == set(pattern_plots.SHORT)
    t = _labelled_table(np.random.default_rng(6))
    maps = {int(m): (vertical() if m % 2 else block(), KINDS, SEQ) for m in t["map"]}
    fig = pattern_plots.plot_pattern_labelled_examples(Lab.first_per_class(t, 3), maps, 3, "embedded:m")
    assert len(fig.axes) == 3 * len(F.CLASSES)
    close(fig)
    sheets = list(pattern_plots.plot_pattern_label_sheets(t, maps))
    assert len(sheets) == -(-len(t) // 16)
    for fig in sheets:
        close(fig)
    X, y, groups = C.feature_matrix(t, "t")
    table, cm, _ = C.cross_validate(X, y, "logistic", folds=3, seed=0, groups=groups)
    fig = pattern_plots.plot_pattern_classifier(cm, C.cv_table([table], len(y), "embedded:m"), "logistic", 3, "e:m")
    assert fig.axes[0].get_title().startswith(f"logistic on map features, 3-fold CV\n{len(y)} hand-labelled maps of m;")
    close(fig)
