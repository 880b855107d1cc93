"""Correct / total counts of every attention head and every baseline, per group of cases: the
bookkeeping shared by the coreference heads (groups: mention types) and the GAP heads (groups:
pronoun genders). The best head is reported as chosen on all cases and 2-fold
(``analysis.shared.head_selection.two_fold``). Layers and heads are 1-indexed in the tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.shared.head_selection import two_fold


class HeadTally:
    """Counts per group (``groups[0]`` is the group of all cases) for every head and baseline;
    ``column`` names the group column of the tables (e.g. ``mention_type``, ``gender``)."""

    def __init__(self, n_layers: int, n_heads: int, groups: tuple[str, ...], column: str, baselines: dict[str, str]):
        self.groups, self.column = groups, column
        self.labels = baselines  # system -> label in the summary table
        self.baselines = tuple(baselines)
        self.heads = {g: np.zeros((n_layers, n_heads), dtype=np.int64) for g in groups}
        self.folds = [{g: np.zeros((n_layers, n_heads), dtype=np.int64) for g in groups} for _ in range(2)]
        self.base = {g: dict.fromkeys(self.baselines, 0) for g in groups}
        self.n = dict.fromkeys(groups, 0)
        # each unit's own counts (unit -> group -> [heads (L, H), baselines (len(self.baselines),), n]): the
        # independent units (e.g. documents) that replicate_summary resamples for the scorecard's intervals
        self.by_unit: dict[str, dict[str, list]] = {}
        self.unit_fold: dict[str, int] = {}  # unit -> its 2-fold half (for the held-out best head per resample)

    def count(
        self, groups: Iterable[str], correct: np.ndarray, fold: int, baseline_correct: dict, unit: str | None = None
    ) -> None:
        """One case, counted in each of ``groups``: ``correct`` (layers, heads) bool, its 2-fold
        half ``fold``, whether each baseline got it right, and the unit it belongs to (if any)."""
        own = self.by_unit.setdefault(unit, {}) if unit is not None else None
        if unit is not None:
            self.unit_fold[unit] = fold
        for g in groups:
            self.heads[g] += correct
            self.folds[fold][g] += correct
            self.n[g] += 1
            for b in self.baselines:
                self.base[g][b] += int(baseline_correct[b])
            if own is not None:
                mine = own.setdefault(
                    g, [np.zeros(correct.shape, np.int64), np.zeros(len(self.baselines), np.int64), 0]
                )
                mine[0] += correct
                mine[1] += [int(baseline_correct[b]) for b in self.baselines]
                mine[2] += 1

    def save_units(self, path) -> None:
        """Write every unit's counts (what :meth:`replicate_summary` weighs) with the units' halves,
        groups and baselines: read back by :meth:`from_units`."""
        L, H = self.heads[self.groups[0]].shape
        empty = [np.zeros((L, H), np.int64), np.zeros(len(self.baselines), np.int64), 0]
        units = list(self.by_unit.values())
        arrays = {
            "units": np.array(list(self.by_unit), dtype=str),
            "fold": np.array([self.unit_fold.get(u, 0) for u in self.by_unit], dtype=np.int64),
            "groups": np.array(self.groups, dtype=str),
            "column": np.array(self.column),
            "baselines": np.array(self.baselines, dtype=str),
            "labels": np.array([self.labels[b] for b in self.baselines], dtype=str),
            "shape": np.array([L, H]),
        }
        for j, g in enumerate(self.groups):
            tallies = [u.get(g, empty) for u in units]
            arrays[f"heads{j}"] = np.array([t[0] for t in tallies]).reshape(len(units), L, H)
            arrays[f"base{j}"] = np.array([t[1] for t in tallies]).reshape(len(units), len(self.baselines))
            arrays[f"n{j}"] = np.array([t[2] for t in tallies], dtype=np.int64)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, **arrays)

    @classmethod
    def from_units(cls, path) -> HeadTally:
        """A tally with the units' counts written by :meth:`save_units` (its totals are their sums)."""
        with np.load(path) as z:
            groups = tuple(str(g) for g in z["groups"])
            L, H = (int(x) for x in z["shape"])
            out = cls.__new__(cls)
            HeadTally.__init__(
                out, L, H, groups, str(z["column"]), dict(zip(map(str, z["baselines"]), map(str, z["labels"])))
            )
            for i, (unit, fold) in enumerate(zip(z["units"], z["fold"])):
                unit = str(unit)
                out.unit_fold[unit] = int(fold)
                out.by_unit[unit] = {
                    g: [z[f"heads{j}"][i], z[f"base{j}"][i], int(z[f"n{j}"][i])] for j, g in enumerate(groups)
                }
            for j, g in enumerate(groups):
                out.heads[g] = z[f"heads{j}"].sum(0)
                out.n[g] = int(z[f"n{j}"].sum())
                out.base[g] = dict(zip(out.baselines, (int(x) for x in z[f"base{j}"].sum(0))))
        return out

    def replicate_summary(self, weights: np.ndarray) -> pd.DataFrame:
        """Rows (replicate, system, group, accuracy, n) of the best head and every baseline per
        group on resamples of the units (``weights``: (B, units in ``by_unit``)); the best head is
        chosen again on each resample's cases of all groups, as in :meth:`summary_table`, and so is
        the 2-fold head (``best_head_2fold``: chosen on one half of the resample's units, scored on
        the other, both ways; with every weight 1, the point table's)."""
        units = list(self.by_unit.values())
        L, H = self.heads[self.groups[0]].shape
        empty = [np.zeros((L, H), np.int64), np.zeros(len(self.baselines), np.int64), 0]
        tallies = {g: [u.get(g, empty) for u in units] for g in self.groups}
        heads = {g: np.array([t[0].ravel() for t in ts]).reshape(len(units), L * H) for g, ts in tallies.items()}
        base = {g: np.array([t[1] for t in ts]).reshape(len(units), -1) for g, ts in tallies.items()}
        n = {g: np.array([t[2] for t in ts]) for g, ts in tallies.items()}
        w = weights.astype(np.float64)
        best = (w @ heads[self.groups[0]]).argmax(1)  # (B,) the best head of all cases, first on ties
        fold = np.array([self.unit_fold.get(u, 0) for u in self.by_unit])
        half_w = [w * (fold == f) for f in (0, 1)]
        # the head chosen on the other half (all cases), per half; on a half with no case the first
        # head, as in the point table (analysis.shared.head_selection.two_fold)
        chosen = [(half_w[1 - f] @ heads[self.groups[0]]).argmax(1) for f in (0, 1)]
        rows = np.arange(len(w))
        parts = []
        for g in self.groups:
            n_b = w @ n[g]
            with np.errstate(invalid="ignore", divide="ignore"):
                correct = {"best_head": (w @ heads[g])[rows, best]}
                correct["best_head_2fold"] = sum((half_w[f] @ heads[g])[rows, chosen[f]] for f in (0, 1))
                correct.update(zip(self.baselines, (w @ base[g]).T))
                for system, c in correct.items():
                    acc = np.where(n_b > 0, c / np.where(n_b > 0, n_b, 1), np.nan)
                    frame = {
                        "replicate": np.arange(len(w)),
                        "system": system,
                        self.column: g,
                        "accuracy": acc,
                        "n": n_b,
                    }
                    parts.append(pd.DataFrame(frame))
        return pd.concat(parts, ignore_index=True).astype({"n": int})

    def _row(self, system: str, label: str, layer, head, group: str, n_correct: int) -> dict:
        n = self.n[group]
        return {
            "system": system,
            "label": label,
            "layer": layer,
            "head": head,
            self.column: group,
            "n_correct": n_correct,
            "n": n,
            "accuracy": n_correct / n if n else np.nan,
        }

    def per_head_table(self) -> pd.DataFrame:
        """layer, head, group, n_correct, n, accuracy: every head of every group."""
        rows = []
        L, H = self.heads[self.groups[0]].shape
        for g in self.groups:
            for layer in range(L):
                for head in range(H):
                    row = self._row("", "", layer + 1, head + 1, g, int(self.heads[g][layer, head]))
                    rows.append({k: v for k, v in row.items() if k not in ("system", "label")})
        return pd.DataFrame(rows)

    def best_head(self) -> tuple[int, int]:
        """(layer, head), 1-indexed, with the best accuracy over all cases (first on ties)."""
        every = self.heads[self.groups[0]]
        flat = int(np.argmax(every))
        return flat // every.shape[1] + 1, flat % every.shape[1] + 1

    def summary_table(self) -> pd.DataFrame:
        """Per group: the best head, the best head 2-fold, and every baseline."""
        layer, head = self.best_head()
        held_out, chosen = two_fold(self.folds, self.groups)
        cv_label = "best head, 2-fold (" + " / ".join(f"{lay}-{hd}" for lay, hd in chosen) + ")"
        rows = []
        for g in self.groups:
            rows.append(
                self._row("best_head", f"head {layer}-{head}", layer, head, g, int(self.heads[g][layer - 1, head - 1]))
            )
            rows.append(self._row("best_head_2fold", cv_label, np.nan, np.nan, g, held_out[g]))
            rows += [self._row(b, self.labels[b], np.nan, np.nan, g, self.base[g][b]) for b in self.baselines]
        return pd.DataFrame(rows)
