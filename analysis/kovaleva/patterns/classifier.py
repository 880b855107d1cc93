"""The pattern-type classifier (Kovaleva et al. 2019, Fig. 1-2): a small scikit-learn model on the
map features of ``analysis.kovaleva.patterns.features`` (``make_classifier``), cross-validated per class
(``cross_validate``; rule pattern_classifier), stored, then applied to every head's map on the GLUE dev
inputs (``classify``, ``classify_shards``; rule patterns). What the predictions add up to (the share of
each type, the most confident map of each): ``analysis.kovaleva.patterns.shares``; the paper's approach,
a tiny CNN cross-validated beside it as a comparator only: ``analysis.kovaleva.patterns.cnn``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.kovaleva.patterns.features import CLASSES, FEATURES, shard_features

# ---------------------------------------------------------------------------------------
# the feature classifier and its cross-validation
# ---------------------------------------------------------------------------------------


def make_classifier(kind: str, seed: int):
    """A small scikit-learn model on the features: 'logistic' (standardised multinomial
    logistic regression, class-balanced) or 'boosting' (gradient-boosted trees)."""
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if kind == "logistic":
        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=5000, class_weight="balanced"))
    if kind == "boosting":
        return GradientBoostingClassifier(
            n_estimators=150, max_depth=2, learning_rate=0.1, subsample=0.8, random_state=seed
        )
    raise ValueError(f"unknown classifier {kind!r}; 'logistic' or 'boosting'")


def feature_matrix(df: pd.DataFrame, source) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features X, labels y, groups = the input of each map) of the labelled feature table
    ``df`` (read from ``source``, named in the error when a feature is missing)."""
    missing = [f for f in FEATURES if f not in df]
    if missing:
        raise ValueError(f"{source}: features {missing} missing; rerun rule pattern_features")
    return df[list(FEATURES)].to_numpy(), df["label"].to_numpy(), df["input_id"].to_numpy()


def cv_splits(X, y, folds: int, seed: int, groups=None):
    """Seeded stratified k-fold splits; with ``groups`` (e.g. the input each map comes from)
    grouped as well, so that no input has maps on both sides of a split (maps of one input
    share its length and layout: an ungrouped estimate would be optimistic for new inputs)."""
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

    if groups is None:
        return StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(X, y)
    return StratifiedGroupKFold(n_splits=folds, shuffle=True, random_state=seed).split(X, y, groups)


def per_class_table(kind: str, y, pred, labels: list, names: list[str]) -> pd.DataFrame:
    """Precision, recall, F1 and support per class (``labels`` as coded in ``y`` / ``pred``,
    ``names`` as written), then the macro and weighted averages."""
    from sklearn.metrics import precision_recall_fscore_support

    p, r, f, s = precision_recall_fscore_support(y, pred, labels=labels, zero_division=0)
    table = pd.DataFrame({"classifier": kind, "label": names, "precision": p, "recall": r, "f1": f, "support": s})
    mf = precision_recall_fscore_support(y, pred, labels=labels, average="macro", zero_division=0)
    wf = precision_recall_fscore_support(y, pred, labels=labels, average="weighted", zero_division=0)
    summary = pd.DataFrame(
        {
            "classifier": kind,
            "label": ["macro avg", "weighted avg"],
            "precision": [mf[0], wf[0]],
            "recall": [mf[1], wf[1]],
            "f1": [mf[2], wf[2]],
            "support": [len(y), len(y)],
        }
    )
    return pd.concat([table, summary], ignore_index=True)


def cross_validate(X: np.ndarray, y: np.ndarray, kind: str = "logistic", folds: int = 5, seed: int = 0, groups=None):
    """Stratified (and, with ``groups``, grouped), seeded k-fold predictions; returns
    (per-class table, confusion matrix DataFrame, out-of-fold predictions). Classes with
    fewer examples than ``folds`` use fewer folds (never silently dropped: every example
    gets a prediction)."""
    from sklearn.metrics import confusion_matrix

    y = np.asarray(y)
    present = [c for c in CLASSES if (y == c).any()]
    k = int(min(folds, min((y == c).sum() for c in present)))
    if k < 2:
        raise ValueError(f"a class has fewer than 2 labelled maps: {pd.Series(y).value_counts().to_dict()}")
    pred = np.empty(len(y), dtype=object)
    for tr, te in cv_splits(X, y, k, seed, groups):
        clf = make_classifier(kind, seed).fit(X[tr], y[tr])
        pred[te] = clf.predict(X[te])
    table = per_class_table(kind, y, pred, present, present)
    table["folds"] = k
    cm = pd.DataFrame(confusion_matrix(y, pred, labels=present), index=present, columns=present)
    return table, cm, pred


def cv_table(tables: list[pd.DataFrame], n_labels: int, labelled_model: str) -> pd.DataFrame:
    """The cross-validation tables of every classifier, one below the other, with the
    number of hand labels and the model whose maps they label."""
    cv = pd.concat(tables, ignore_index=True)
    cv.insert(0, "n_labels", n_labels)
    cv.insert(0, "labelled_model", labelled_model)
    return cv


def confusion_table(cm: pd.DataFrame, classifier: str) -> pd.DataFrame:
    """The confusion matrix ``cm`` (true label x predicted label) as one row per cell, with
    the cell's share of its true label."""
    long = (
        cm.stack().rename("count").reset_index().rename(columns={"level_0": "true_label", "level_1": "predicted_label"})
    )
    long["share_of_true"] = long["count"] / long.groupby("true_label")["count"].transform("sum")
    long.insert(0, "classifier", classifier)
    return long


# ---------------------------------------------------------------------------------------
# the fitted classifier: storage and application to the task maps
# ---------------------------------------------------------------------------------------


def save_classifier(clf, kind: str, n_labels: int, labelled_model: str, path) -> None:
    import pickle

    with open(path, "wb") as f:
        pickle.dump(
            {
                "model": clf,
                "kind": kind,
                "features": list(FEATURES),
                "classes": list(clf.classes_),
                "n_labels": n_labels,
                "labelled_model": labelled_model,
            },
            f,
        )


def load_classifier(path) -> dict:
    import pickle

    with open(path, "rb") as f:
        obj = pickle.load(f)
    if obj["features"] != list(FEATURES):
        raise ValueError(f"{path}: classifier trained on other features; rerun rule pattern_classifier")
    return obj


def classify(clf: dict, features: pd.DataFrame) -> pd.DataFrame:
    """Predicted label and class probabilities (columns ``p_<class>``) per row."""
    proba = clf["model"].predict_proba(features[list(FEATURES)].to_numpy())
    out = pd.DataFrame(proba, columns=[f"p_{c}" for c in clf["classes"]], index=features.index)
    for c in CLASSES:
        if f"p_{c}" not in out:
            out[f"p_{c}"] = 0.0
    out.insert(0, "label", np.asarray(clf["classes"])[proba.argmax(1)])
    return out[["label"] + [f"p_{c}" for c in CLASSES]]


def classify_shards(clf: dict, shards, max_inputs: int | None, variant: str, task: str) -> tuple[pd.DataFrame, dict]:
    """Every head's map on the first ``max_inputs`` examples of ``shards`` classified: the
    predictions (one row per (input, layer, head)) and a count row of the inputs used."""
    feats = shard_features(shards, max_inputs)
    n_inputs = feats["input_id"].nunique()
    pred = pd.concat([feats[["input_id", "layer", "head", "n_tokens"]], classify(clf, feats)], axis=1)
    pred.insert(0, "task", task)
    pred.insert(0, "variant", variant)
    counts = {
        "variant": variant,
        "task": task,
        "inputs_in_shard": len(shards),
        "inputs_classified": n_inputs,
        "inputs_not_used": len(shards) - n_inputs,
        **{f"shard_{k}": v for k, v in shards.counts().items()},
    }
    return pred, counts
