"""The hand-labelled set of attention maps (Kovaleva et al. 2019, Fig. 1-2).

``config/patterns/labels.csv`` holds the hand labels (``read_labels``) of maps of the model
named in ``config/patterns/recipe.yaml``. The recipe rebuilds the inputs the maps were drawn
from (``labelled_set_inputs``) and says how the labelled (input, layer, head) triples were
drawn, batch after batch (``sample_batches``: column ``map`` of labels.csv). Rule
pattern_features regenerates the labelled maps and their features (``labelled_features``)
and stores the maps (``save_maps`` / ``load_maps``). The labels hold for that model only: the
classifier applied to another model's maps is an extrapolation (``label_provenance``,
``with_provenance``: the columns every output of rules patterns and pattern_examples carries).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.core.model_names import model_slug
from analysis.kovaleva.patterns.features import CLASSES, feature_table
from analysis.kovaleva.patterns.shares import share_table


def label_provenance(labelled_model: str, spec: str) -> dict:
    """Whose hand labels trained the classifier applied to the maps of model ``spec``:
    ``labels_from``, the slug of ``labelled_model`` (the recipe's model), and ``extrapolated``,
    True when ``spec`` is another model (slugs differ): its maps were never labelled."""
    labels_from = model_slug(labelled_model)
    return {"labels_from": labels_from, "extrapolated": model_slug(spec) != labels_from}


def with_provenance(tab: pd.DataFrame, labelled_model: str, spec: str) -> pd.DataFrame:
    """``tab`` with the columns of ``label_provenance`` (after ``model`` if it has one, else first)."""
    out = tab.copy()
    at = list(out.columns).index("model") + 1 if "model" in out.columns else 0
    for k, (name, value) in enumerate(label_provenance(labelled_model, spec).items()):
        out.insert(at + k, name, value)
    return out


def read_labels(path) -> pd.DataFrame:
    """The hand labels; checks every row (file:line in errors)."""
    path = Path(path)
    rows = []
    with path.open(encoding="utf-8") as f:
        lines = [ln for ln in f]
    header_at = next(i for i, ln in enumerate(lines) if ln.strip() and not ln.startswith("#"))
    reader = csv.DictReader(lines[header_at:])
    need = {"map", "input_id", "layer", "head", "label"}
    if not need <= set(reader.fieldnames or []):
        raise ValueError(f"{path}:{header_at + 1}: header needs columns {sorted(need)}")
    for lineno, row in enumerate(reader, header_at + 2):
        if row["label"] not in CLASSES:
            raise ValueError(f"{path}:{lineno}: label {row['label']!r} is not one of {CLASSES}")
        rows.append(row)
    df = pd.DataFrame(rows)
    for c in ("map", "batch", "layer", "head", "n_tokens"):
        if c in df:
            df[c] = df[c].astype(int)
    return df


def sample_triples(input_ids: list[str], n_layers: int, n_heads: int, n_maps: int, seed: int) -> pd.DataFrame:
    """``n_maps`` distinct (input, layer, head) triples drawn uniformly (seeded);
    layer and head 1-indexed."""
    total = len(input_ids) * n_layers * n_heads
    if n_maps > total:
        raise ValueError(f"asked for {n_maps} maps, only {total} exist")
    rng = np.random.default_rng(seed)
    flat = rng.choice(total, size=n_maps, replace=False)
    inp, rest = np.divmod(flat, n_layers * n_heads)
    layer, head = np.divmod(rest, n_heads)
    return pd.DataFrame(
        {"map": np.arange(n_maps), "input_id": [input_ids[i] for i in inp], "layer": layer + 1, "head": head + 1}
    )


def sample_batches(inputs: list[tuple[str, str]], n_layers: int, n_heads: int, batches: list[dict]) -> pd.DataFrame:
    """The maps drawn for labelling, batch after batch, numbered consecutively.

    ``inputs``: (input id, source) pairs in recipe order. A batch ``{seed, n_maps}`` draws
    uniformly from every (input, layer, head) (the first batch: exactly ``sample_triples``);
    optional ``sources`` (list) and ``layers`` ([first, last], 1-indexed) restrict the draw;
    triples drawn by an earlier batch are never drawn again."""
    out, seen = [], set()
    for b_idx, b in enumerate(batches):
        if set(b) - {"seed", "n_maps", "sources", "layers", "why"}:
            raise ValueError(
                f"labelling batch {b_idx + 1}: unknown keys {sorted(set(b) - {'seed', 'n_maps', 'sources', 'layers', 'why'})}"
            )
        if "sources" not in b and "layers" not in b and not seen:
            t = sample_triples([i for i, _ in inputs], n_layers, n_heads, b["n_maps"], b["seed"])
        else:
            lo, hi = b.get("layers", [1, n_layers])
            ids = [i for i, src in inputs if "sources" not in b or src in b["sources"]]
            cands = [
                (i, li, h)
                for i in ids
                for li in range(lo, hi + 1)
                for h in range(1, n_heads + 1)
                if (i, li, h) not in seen
            ]
            if b["n_maps"] > len(cands):
                raise ValueError(f"labelling batch {b_idx + 1}: {b['n_maps']} maps asked, {len(cands)} available")
            pick = np.random.default_rng(b["seed"]).choice(len(cands), size=b["n_maps"], replace=False)
            t = pd.DataFrame([cands[k] for k in pick], columns=["input_id", "layer", "head"])
        t.insert(0, "batch", b_idx + 1)
        seen |= set(zip(t["input_id"], t["layer"], t["head"]))
        out.append(t)
    t = pd.concat(out, ignore_index=True)
    t["map"] = np.arange(len(t))
    return t[["map", "batch", "input_id", "layer", "head"]]


def labelled_set_inputs(recipe: dict, mirror) -> list[dict]:
    """The input records the labelled maps were drawn from, rebuilt from the recipe
    (``config/patterns/recipe.yaml``) and the raw sources under ``mirror``."""
    from analysis.core.corpora import prepare
    from analysis.core.glue.reader import read_split
    from analysis.core.models import load_tokenizer

    mirror = Path(mirror)
    rng = np.random.default_rng(recipe["seed"])
    records: list[dict] = []
    for src in recipe["sources"]:
        if src["kind"] == "wiki":
            recs, _ = prepare(
                "wikipedia",
                mirror / src["folder"],
                load_tokenizer(recipe["model"]),
                file=src["file"],
                n_segments=src["n_segments"],
                max_len=recipe["max_len"],
                seed=src["seed"],
            )
        elif src["kind"] == "glue":
            recs = read_split(mirror / src["folder"], src["task"], "dev")
        else:
            raise ValueError(f"unknown labelled-set source kind {src['kind']!r}")
        pick = sorted(rng.choice(len(recs), size=src["n_inputs"], replace=False).tolist())
        tag = src.get("task", src["kind"])
        records.extend({**recs[i], "source": tag} for i in pick)
    return records


def labelled_features(recipe: dict, raw_dir, labels: pd.DataFrame, batch_size: int = 16, device: str | None = None):
    """Regenerate the maps of the hand-labelled set (``recipe``, raw sources under
    ``raw_dir``; the model on ``device``, None: CUDA when present) and compute their features; returns (labels joined with features, maps by
    map number). Checks that every map has the length recorded when it was labelled."""
    from analysis.core.models import load_model, load_tokenizer

    records = labelled_set_inputs(recipe, raw_dir)
    keys = {(r.input_id, int(r.layer), int(r.head)) for r in labels.itertuples()}
    ids = {k[0] for k in keys}
    missing = ids - {r["id"] for r in records}
    if missing:
        raise ValueError(f"labelled inputs not produced by the recipe: {sorted(missing)[:5]}")
    records = [r for r in records if r["id"] in ids]
    feats, maps, _ = feature_table(
        load_model(recipe["model"], device=device),
        load_tokenizer(recipe["model"]),
        records,
        recipe["max_len"],
        batch_size,
        keep=keys,
    )
    out = labels.merge(feats, on=["input_id", "layer", "head"], how="left", suffixes=("", "_now"), validate="1:1")
    if "n_tokens" in labels and "n_tokens_now" in out:
        bad = out[out["n_tokens"] != out["n_tokens_now"]]
        if len(bad):
            raise ValueError(f"labelled maps changed length since labelling (maps {bad['map'].tolist()[:5]})")
        out = out.drop(columns="n_tokens_now")
    by_map = {int(r.map): maps[(r.input_id, int(r.layer), int(r.head))] for r in labels.itertuples()}
    return out, by_map


def save_maps(maps: dict, path) -> None:
    """``maps``: key (int) -> (map (n, n), kinds, seq_ids); float16 in a compressed npz."""
    import json

    arrays = {f"map{k}": np.asarray(m, dtype=np.float16) for k, (m, _, _) in maps.items()}
    info = {str(k): {"kinds": kinds, "seq_ids": [int(s) for s in seq]} for k, (_, kinds, seq) in maps.items()}
    np.savez_compressed(path, info=np.array(json.dumps(info)), **arrays)


def load_maps(path) -> dict:
    """Inverse of ``save_maps`` (maps as float32, rows renormalised)."""
    import json

    with np.load(path) as z:
        info = json.loads(str(z["info"]))
        out = {}
        for k, v in info.items():
            m = z[f"map{k}"].astype(np.float32)
            out[int(k)] = (m / m.sum(-1, keepdims=True), v["kinds"], v["seq_ids"])
    return out


def first_per_class(labels: pd.DataFrame, per_class: int) -> pd.DataFrame:
    """The first ``per_class`` labelled maps of each class in labelling order (no choosing)."""
    pick = labels.sort_values("map").groupby("label", sort=False).head(per_class)
    return pick[["label", "map", "batch", "source", "input_id", "layer", "head", "n_tokens"]]


def label_shares(labels: pd.DataFrame) -> pd.DataFrame:
    """Hand-label shares per source, and over all sources, in the uniform first batch: a
    check of the classifier's shares per task."""
    uniform = labels[labels["batch"] == 1]
    shares = pd.concat([share_table(uniform, ["source"]), share_table(uniform.assign(source="all"), ["source"])])
    shares.insert(0, "batch", 1)
    return shares
