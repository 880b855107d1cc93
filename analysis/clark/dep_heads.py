"""Which heads track which dependency relation (Clark et al. 2019 sec. 4.2, Table 1).

Each attention head is read as a parser: on word-level maps (``analysis.core.word_level``),
the prediction for word i is the word it attends to most, special tokens and i itself
excluded. For every relation, two directions are scored per gold arc (dependent d, head h):

- ``dep->head``: does d's most-attended word equal h?
- ``head->dep``: with ``reverse='transpose'`` (the workflow's default, the authors'
  released code, which produced the paper's head->dep numbers), is h the word that
  attends most to d? With ``reverse='row'`` (this function's default; another reading of
  the paper's "the head word attending to the dependent"), does h's most-attended word
  equal d? (capped: h has one guess for all its dependents).

Baseline: a fixed relative offset (d's head is the word at d + o), the best o in -k..k
(o != 0) chosen per relation and direction. Root arcs (no head word) are not scored (the
authors' code counts them in "All", always wrong: its All is ours x (1 - root share)).

``poss`` (UD: ``nmod:poss``; as in the paper, sec. 4.2): when the possessor is followed by the clitic ``'s`` /
``'`` (a word of its own in PTB/SD tokenisation), the clitic's prediction is scored for it,
since BERT can route the possessive relation through the clitic (counted:
``poss_scored_via_clitic``).
The ``All`` relation pools every scored arc.

Inputs over ``max_len`` pieces were split by the extraction into windows of whole words
(``meta['word_offset']``); an arc is scored only when both its words lie in one window,
and the arcs lost to splitting are counted, per relation and in total.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from analysis.core.word_level import word_maps

DIRECTIONS = ("dep->head", "head->dep")
ALL = "All"
POSS_RELATIONS = ("poss", "nmod:poss")  # Stanford Dependencies, Universal Dependencies
POSS_CLITICS = ("'s", "'", "s'")  # possessive clitics tokenised as words (PTB / Stanford Dependencies)
UNLABELED = "_"  # the relation of unlabeled corpora: scored in All only


def predictions(maps: np.ndarray, unit_word: np.ndarray) -> np.ndarray:
    """Most-attended word of every unit, per head: ``maps`` (..., U, U) -> (..., U) word
    indices (-1 for rows of special tokens). Special-token columns and the diagonal are
    excluded; ties go to the first word."""
    m = np.array(maps, dtype=np.float64, copy=True)
    U = m.shape[-1]
    special = unit_word < 0
    m[..., :, special] = -np.inf
    m[..., np.arange(U), np.arange(U)] = -np.inf
    arg = m.argmax(-1)
    words = unit_word[arg]
    words[..., special] = -1
    if (~special).sum() < 2:  # a one-word window: nothing to point at
        words[...] = -1
    return words


def transposed_predictions(maps: np.ndarray, unit_word: np.ndarray) -> np.ndarray:
    """For every unit j, the word attending most TO j (special-token rows and the
    diagonal excluded): the released notebook's 'head->dep' reading."""
    return predictions(np.swapaxes(maps, -1, -2), unit_word)


class DepScorer:
    """Accumulates per-head, per-relation, per-direction correct counts and the offset
    baselines over a stream of examples."""

    def __init__(self, n_layers: int, n_heads: int, max_offset: int = 3, how: str = "mean", reverse: str = "row"):
        if reverse not in ("row", "transpose"):
            raise ValueError(f"reverse must be 'row' or 'transpose', not {reverse!r}")
        self.shape = (n_layers, n_heads)
        self.offsets = [o for o in range(-max_offset, max_offset + 1) if o != 0]
        self.how, self.reverse = how, reverse
        self.correct: dict[str, np.ndarray] = {}  # rel -> (2, L, H)
        self.base: dict[str, np.ndarray] = {}  # rel -> (2, n_offsets)
        self.n: dict[str, int] = {}
        self.counts = {
            "examples": 0,
            "sentences": 0,
            "sentences_split": 0,
            "windows_of_split_sentences": 0,
            "truncated_examples": 0,
            "arcs_total": 0,
            "arcs_scored": 0,
            "root_arcs": 0,
            "poss_scored_via_clitic": 0,
        }
        self._sentences: dict[str, dict] = {}

    def _acc(self, rel: str):
        if rel not in self.correct:
            self.correct[rel] = np.zeros((2, *self.shape), dtype=np.int64)
            self.base[rel] = np.zeros((2, len(self.offsets)), dtype=np.int64)
            self.n[rel] = 0
        return self.correct[rel], self.base[rel]

    def add(
        self,
        maps: np.ndarray,
        word_ids,
        heads: list[int],
        rels: list[str],
        sentence: str,
        part: int | None = None,
        truncated: bool = False,
        words: list[str] | None = None,
    ) -> None:
        """Score one example (a sentence or one window of it): piece-level ``maps``
        (L, H, n, n), its ``word_ids`` (sentence-level word indices, -1 for special
        tokens) and the gold tree of the whole sentence (0-based heads, -1 root);
        ``words`` (sentence-level, optional) enable the ``poss`` clitic rule."""
        wm, unit_word = word_maps(maps, word_ids, self.how)
        self.add_word_maps(wm, unit_word, heads, rels, sentence, part=part, truncated=truncated, words=words)

    def add_word_maps(
        self,
        wm: np.ndarray,
        unit_word: np.ndarray,
        heads,
        rels,
        sentence: str,
        part: int | None = None,
        truncated: bool = False,
        words: list[str] | None = None,
    ) -> None:
        """Score one window given its word-level maps (L, H, U, U) and unit words."""
        self.counts["examples"] += 1
        self.counts["truncated_examples"] += int(truncated)
        info = self._sentences.get(sentence)
        if info is None:
            info = self._sentences[sentence] = {
                "heads": list(heads),
                "rels": list(rels),
                "windows": 0,
                "covered": set(),
                "scored": set(),
                "truncated": False,
            }
            n_root = sum(h < 0 for h in heads)
            self.counts["sentences"] += 1
            self.counts["root_arcs"] += n_root
            self.counts["arcs_total"] += len(heads) - n_root
        info["windows"] += 1
        info["truncated"] |= bool(truncated)
        if part is not None:
            self.counts["windows_of_split_sentences"] += 1
            if info["windows"] == 1:
                self.counts["sentences_split"] += 1

        unit_of = {int(w): u for u, w in enumerate(unit_word) if w >= 0}
        info["covered"].update(unit_of)
        dep2head = predictions(wm, unit_word)  # (L, H, U)
        rev = transposed_predictions(wm, unit_word) if self.reverse == "transpose" else dep2head
        for d, (h, rel) in enumerate(zip(heads, rels)):
            if h < 0 or d not in unit_of or h not in unit_of or d in info["scored"]:
                continue
            via = d
            if rel in POSS_RELATIONS and words is not None and d + 1 < len(words) and d + 1 in unit_of:
                if words[d + 1].lower() in POSS_CLITICS and d + 1 != h:
                    via = d + 1
                    self.counts["poss_scored_via_clitic"] += 1
            self._score(rel, d, h, unit_of, dep2head, rev, via=via)
            info["scored"].add(d)

    def _score(self, rel, d, h, unit_of, dep2head, rev, via=None):
        """One arc; ``via``: the word whose prediction stands for d's (the poss clitic rule,
        in the relation's row and in All, as in the authors' code)."""
        v = d if via is None else via
        for r in (ALL,) if rel == UNLABELED else (rel, ALL):
            corr, base = self._acc(r)
            corr[0] += dep2head[..., unit_of[v]] == h
            if self.reverse == "row":
                corr[1] += (rev[..., unit_of[h]] == d) | (rev[..., unit_of[h]] == v)
            else:
                corr[1] += rev[..., unit_of[v]] == h
            for k, o in enumerate(self.offsets):
                base[0, k] += h == d + o
                base[1, k] += d == h + o
            self.n[r] += 1
        self.counts["arcs_scored"] += 1

    def finish_counts(self) -> dict:
        """Counts of sentences, windows and arcs; the arcs never scored by relation and
        cause: ``split`` (both words were seen, never in one window), ``truncation`` (a
        word fell outside every window of a truncated input) or ``no_pieces`` (a word the
        tokenizer gave no piece)."""
        c = dict(self.counts)
        lost_rel: dict[str, int] = {}
        cause = {"split": 0, "truncation": 0, "no_pieces": 0}
        for info in self._sentences.values():
            for d, (h, rel) in enumerate(zip(info["heads"], info["rels"])):
                if h < 0 or d in info["scored"]:
                    continue
                lost_rel[rel] = lost_rel.get(rel, 0) + 1
                if d in info["covered"] and h in info["covered"]:
                    cause["split"] += 1
                elif info["truncated"]:
                    cause["truncation"] += 1
                else:
                    cause["no_pieces"] += 1
        c["arcs_lost_to_split"] = cause["split"]
        c["arcs_lost_to_truncation"] = cause["truncation"]
        c["arcs_without_pieces"] = cause["no_pieces"]
        c["arcs_lost"] = sum(cause.values())
        c["arcs_lost_by_relation"] = dict(sorted(lost_rel.items()))
        return c

    # ------------------------------------------------------------------ tables

    def tidy(self) -> list[dict]:
        """Rows (layer, head, relation, direction, accuracy, correct, n), 1-indexed heads."""
        rows = []
        L, H = self.shape
        for rel in sorted(self.correct, key=_rel_key):
            for di, direction in enumerate(DIRECTIONS):
                for layer in range(L):
                    for head in range(H):
                        c = int(self.correct[rel][di, layer, head])
                        rows.append(
                            {
                                "layer": layer + 1,
                                "head": head + 1,
                                "relation": rel,
                                "direction": direction,
                                "accuracy": c / self.n[rel],
                                "correct": c,
                                "n": self.n[rel],
                            }
                        )
        return rows

    def baselines(self) -> list[dict]:
        rows = []
        for rel in sorted(self.base, key=_rel_key):
            for di, direction in enumerate(DIRECTIONS):
                for k, o in enumerate(self.offsets):
                    c = int(self.base[rel][di, k])
                    rows.append(
                        {
                            "relation": rel,
                            "direction": direction,
                            "offset": o,
                            "accuracy": c / self.n[rel],
                            "correct": c,
                            "n": self.n[rel],
                        }
                    )
        return rows

    def summary(self) -> list[dict]:
        """Per relation and direction: the best head, its accuracy, the best offset and the
        baseline's accuracy (ties: lowest layer, then head; smallest |offset|, then negative)."""
        rows = []
        L, H = self.shape
        for rel in sorted(self.correct, key=_rel_key):
            for di, direction in enumerate(DIRECTIONS):
                acc = self.correct[rel][di]
                flat = int(np.argmax(acc.ravel()))
                layer, head = divmod(flat, H)
                order = sorted(
                    range(len(self.offsets)),
                    key=lambda k: (-self.base[rel][di, k], abs(self.offsets[k]), self.offsets[k]),
                )
                kb = order[0]
                rows.append(
                    {
                        "relation": rel,
                        "direction": direction,
                        "best_layer": layer + 1,
                        "best_head": head + 1,
                        "accuracy": acc[layer, head] / self.n[rel],
                        "best_offset": self.offsets[kb],
                        "baseline_accuracy": self.base[rel][di, kb] / self.n[rel],
                        "n": self.n[rel],
                    }
                )
        return rows


def _rel_key(rel: str):
    return (rel != ALL, rel)


def score_examples(
    examples: Iterable, n_layers: int, n_heads: int, max_offset: int = 3, how: str = "mean", reverse: str = "row"
) -> DepScorer:
    """Score a stream of ``storage.Example`` whose meta holds ``heads`` and ``rels``."""
    sc = DepScorer(n_layers, n_heads, max_offset=max_offset, how=how, reverse=reverse)
    for ex in examples:
        meta = ex.meta
        if "heads" not in meta or "rels" not in meta:
            raise ValueError(f"example {ex.id}: meta has no gold 'heads'/'rels' (not a dependency corpus?)")
        sent = ex.id.split("#", 1)[0]
        sc.add(
            ex.attn,
            ex.word_ids,
            meta["heads"],
            meta["rels"],
            sent,
            part=meta.get("part"),
            truncated=bool(meta.get("truncated")),
            # words only matter to the poss clitic rule: read back from the pieces when needed
            words=_sentence_words(ex, len(meta["heads"])) if set(meta["rels"]) & set(POSS_RELATIONS) else None,
        )
    return sc


# --------------------------------------------------------------------------- tables


def paper_table(path) -> pd.DataFrame:  # noqa: F821
    """The paper's Table 1 (config/paper_numbers/clark_table1.csv)."""
    import pandas as pd

    df = pd.read_csv(path, comment="#")
    need = {"relation", "paper_direction", "paper_head", "paper_accuracy", "paper_baseline"}
    if not need <= set(df.columns):
        raise ValueError(f"{path}: needs columns {sorted(need)}, has {list(df.columns)}")
    return df


def table1(sc: DepScorer, paper=None, min_count: int = 30, counts: dict | None = None):
    """(main, rare): the Table-1-style rows per relation and direction, relations with
    ``n >= min_count`` in ``main`` (``All`` first, then by n), the others in ``rare``."""
    import pandas as pd

    df = pd.DataFrame(sc.summary()).rename(columns={"best_layer": "layer", "best_head": "head"})
    # the better direction of each relation (ties: dep->head)
    best = df.loc[df.groupby("relation", sort=False)["accuracy"].idxmax()]
    df["best_direction"] = df.index.isin(best.index)
    lost = (counts or {}).get("arcs_lost_by_relation", {})
    df["n_unscored"] = [lost.get(r, 0) if r != ALL else (counts or {}).get("arcs_lost", 0) for r in df["relation"]]
    if paper is not None:
        df = df.merge(paper, on="relation", how="left")
    df["_all"] = df["relation"] != ALL
    df = df.sort_values(["_all", "n", "relation", "direction"], ascending=[True, False, True, True]).drop(
        columns="_all"
    )
    df = df.reset_index(drop=True)
    return df[df["n"] >= min_count].reset_index(drop=True), df[df["n"] < min_count].reset_index(drop=True)


# --------------------------------------------------------------------------- figures


def plot_best(main, model: str, corpus: str):
    """Per relation: the best head's accuracy in each direction vs the best offset
    baseline; the paper's numbers (bert-base, WSJ) as markers where it lists them."""
    import matplotlib.pyplot as plt

    rels = list(dict.fromkeys(main["relation"]))
    fig, ax = plt.subplots(figsize=(6.5, 0.36 * len(rels) + 1.2))
    y = np.arange(len(rels))
    colors = {"dep->head": "#1f77b4", "head->dep": "#ff7f0e"}
    for k, direction in enumerate(DIRECTIONS):
        sub = main[main["direction"] == direction].set_index("relation").reindex(rels)
        ax.barh(
            y + (k - 1) * 0.27, sub["accuracy"], height=0.27, color=colors[direction], label=f"best head, {direction}"
        )
        for yy, (acc, layer, head) in zip(y, sub[["accuracy", "layer", "head"]].itertuples(index=False)):
            if np.isfinite(acc):
                ax.text(acc + 0.01, yy + (k - 1) * 0.27, f"{int(layer)}-{int(head)}", va="center", fontsize=6.5)
    base = main.groupby("relation")["baseline_accuracy"].max().reindex(rels)
    ax.barh(y + 0.27, base, height=0.27, color="#9a9a9a", label="best fixed offset")
    if "paper_accuracy" in main:
        pap = main.drop_duplicates("relation").set_index("relation").reindex(rels)
        ok = pap["paper_accuracy"].notna().to_numpy()
        for col, face, label in (
            ("paper_accuracy", "black", "paper: best head (bert-base, WSJ)"),
            ("paper_baseline", "white", "paper: baseline"),
        ):
            ax.scatter(
                pap[col][ok] / 100, y[ok], marker="D", s=14, facecolors=face, edgecolors="black", zorder=3, label=label
            )
    ns = main.drop_duplicates("relation").set_index("relation")["n"].reindex(rels)
    ax.set_yticks(y, [f"{r} (n={n})" for r, n in zip(rels, ns)], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.12)
    ax.set_xlabel("accuracy (fraction of arcs)", fontsize=9)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_title(f"{model} on {corpus}: best head per relation vs offset baseline", fontsize=9)
    fig.tight_layout()
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False)
    return fig


def grid_table(full, main, relations: list[str]) -> pd.DataFrame:  # noqa: F821
    """The cells of the heat-map grid as a tidy table: for ``All`` and every listed relation
    present in ``main``, each head's accuracy in the relation's better direction, with the
    panel's best head (``best``) and its fixed-offset baseline. Layers/heads 1-indexed."""
    import pandas as pd

    present = set(main["relation"])
    parts = []
    for rel in [r for r in [ALL, *relations] if r in present]:
        row = main[(main["relation"] == rel) & main["best_direction"]].iloc[0]
        sub = full[(full["relation"] == rel) & (full["direction"] == row["direction"])]
        sub = sub[["relation", "direction", "layer", "head", "accuracy", "n"]].copy()
        sub["best"] = (sub["layer"] == row["layer"]) & (sub["head"] == row["head"])
        sub["best_offset"] = int(row["best_offset"])
        sub["baseline_accuracy"] = float(row["baseline_accuracy"])
        parts.append(sub.sort_values(["layer", "head"]))
    cols = ["relation", "direction", "layer", "head", "accuracy", "n", "best", "best_offset", "baseline_accuracy"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)


def plot_grid(cells, model: str, corpus: str, n_layers: int, n_heads: int, ncols: int = 4):
    """Layer x head accuracy heat-maps from :func:`grid_table`, one panel per relation (in
    its better direction); the best head boxed. Layers and heads 1-indexed."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    rels = list(dict.fromkeys(cells["relation"]))
    if not rels:
        raise ValueError(f"{corpus}: no relation to draw in the heat-map grid")
    L, H = n_layers, n_heads
    ncols = min(ncols, len(rels))
    nrows = int(np.ceil(len(rels) / ncols))
    w = 1.9 + 0.12 * H
    fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols, (0.9 + 0.13 * L + 0.4) * nrows), squeeze=False)
    im = None
    for ax, rel in zip(axes.ravel(), rels):
        sub = cells[cells["relation"] == rel]
        row = sub[sub["best"]].iloc[0]
        grid = np.full((L, H), np.nan)
        grid[sub["layer"].to_numpy() - 1, sub["head"].to_numpy() - 1] = sub["accuracy"].to_numpy()
        im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.grid(False)
        ax.add_patch(
            Rectangle((row["head"] - 1.5, row["layer"] - 1.5), 1, 1, fill=False, ec="red", lw=1.5, clip_on=False)
        )
        ax.set_title(
            f"{rel} ({row['direction']}), n={row['n']}\nbest {row['layer']}-{row['head']}: "
            f"{row['accuracy']:.2f}, offset {row['best_offset']:+d}: {row['baseline_accuracy']:.2f}",
            fontsize=8,
        )
        ax.set_xticks(range(H), range(1, H + 1), fontsize=6.5 if H > 8 else 8)
        ax.set_yticks(range(L), range(1, L + 1), fontsize=8)
        ax.set_xlabel("head", fontsize=8)
        ax.set_ylabel("layer", fontsize=8)
    for ax in axes.ravel()[len(rels) :]:
        ax.axis("off")
    fig.suptitle(f"{model} on {corpus}: accuracy of each head per dependency relation", fontsize=10)
    fig.tight_layout()
    if im is not None:
        cb = fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.6 if nrows > 1 else 0.95, pad=0.02)
        cb.set_label("accuracy", fontsize=8)
        cb.ax.tick_params(labelsize=8)
    return fig


# --------------------------------------------------------------------------- example (Fig. 4)


def pick_example(
    examples: Iterable,
    relation: str,
    sentence: str | None = None,
    min_words: int = 6,
    max_words: int = 20,
    head: tuple[int, int] | None = None,
    direction: str = "dep->head",
    how: str = "mean",
):
    """The example to draw: the one whose sentence id is ``sentence``, or else the first
    unsplit sentence of ``min_words``..``max_words`` words with a ``relation`` arc on which
    ``head`` (layer, head; 1-indexed) predicts every ``relation`` arc right in ``direction``
    (the first fitting sentence when none does; the shortest one when none fits)."""
    fallback = first_fit = None
    for ex in examples:
        sid = ex.id.split("#", 1)[0]
        if sentence is not None:
            if sid == str(sentence) or ex.id == str(sentence):
                return ex
            continue
        rels = ex.meta.get("rels", [])
        if relation not in rels or ex.meta.get("part") is not None:
            continue
        if min_words <= len(rels) <= max_words:
            if head is None or _all_right(ex, relation, head, direction, how):
                return ex
            first_fit = first_fit or ex
            continue
        if fallback is None or len(rels) < len(fallback.meta["rels"]):
            fallback = ex
    if sentence is not None:
        raise ValueError(f"sentence {sentence!r} is not in the corpus's shards")
    if first_fit is not None:
        return first_fit
    if fallback is None:
        raise ValueError(f"no sentence with a {relation!r} arc in one window")
    return fallback


def _all_right(ex, relation, head, direction, how) -> bool:
    wm, unit_word = word_maps(ex.attn[head[0] - 1, head[1] - 1], ex.word_ids, how)
    pred = predictions(wm, unit_word)
    unit_of = {int(w): u for u, w in enumerate(unit_word) if w >= 0}
    for d, (h, rel) in enumerate(zip(ex.meta["heads"], ex.meta["rels"])):
        if rel != relation:
            continue
        if d not in unit_of or h not in unit_of:
            return False
        if direction == "dep->head" and pred[unit_of[d]] != h:
            return False
        if direction == "head->dep" and pred[unit_of[h]] != d:
            return False
    return True


def example_map(ex, layer: int, head: int, how: str = "mean"):
    """(word-level map of head ``layer``-``head`` (1-indexed), unit labels, unit words)."""
    wm, unit_word = word_maps(ex.attn[layer - 1, head - 1], ex.word_ids, how)
    words = ex.meta.get("words")
    labels = []
    for u, w in enumerate(unit_word):
        if w >= 0:
            labels.append(words[w] if words else _word_text(ex, w))
        else:
            p = [i for i, wid in enumerate(ex.word_ids) if wid < 0][sum(unit_word[:u] < 0)]
            labels.append(ex.tokens[p])
    return wm, labels, unit_word


def _sentence_words(ex, n_words: int) -> list[str]:
    """The sentence's words as read back from the example's pieces (words outside this
    window: empty strings)."""
    out = [""] * n_words
    for w in {int(w) for w in ex.word_ids if w >= 0 and w < n_words}:
        out[w] = _word_text(ex, w)
    return out


def _word_text(ex, w: int) -> str:
    pieces = [t for t, wid in zip(ex.tokens, ex.word_ids) if wid == w]
    return "".join(p[2:] if p.startswith("##") else p.lstrip("Ġ▁") for p in pieces) or "?"


def plot_example(wm, labels, unit_word, heads, rels, relation: str, direction: str, title: str):
    """The map with every gold arc boxed (grey), the ``relation`` arcs in red; a box at
    (row i, column j) means i's gold head is j (dep->head) or i's dependent is j."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    from analysis.shared.plots import attention_map

    U = len(labels)
    fig, ax = plt.subplots(figsize=(0.24 * U + 2.6, 0.22 * U + 1.6))
    attention_map(ax, wm, labels, labels, title=title, fontsize=8, cbar=True)
    unit_of = {int(w): u for u, w in enumerate(unit_word) if w >= 0}
    arcs = []
    for d, (h, rel) in enumerate(zip(heads, rels)):
        if h < 0 or d not in unit_of or h not in unit_of:
            continue
        r, c = (unit_of[d], unit_of[h]) if direction == "dep->head" else (unit_of[h], unit_of[d])
        arcs.append((r, c, rel))
        hit = rel == relation
        ax.add_patch(Rectangle((c, r), 1, 1, fill=False, ec="red" if hit else "0.45", lw=1.8 if hit else 0.8))
    ax.set_xlabel("attended word", fontsize=8)
    ax.set_ylabel("attending word", fontsize=8)
    ax.title.set_fontsize(9)
    fig.tight_layout()
    return fig, arcs
