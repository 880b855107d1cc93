"""The per-unit data the calibration on the project's own data resamples
(tools/measure/own_calibration.py): each a :class:`Family`, the tables one rule makes from a run's
per-unit tallies (``resources/units/<model>/``, ``resources/surface_sums/<model>/``) for any weights of its units, built with the rule's
own replicate functions; and a new dataset of a family's units with its bootstrap
(:func:`nested_weights`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.clark.surface import metrics
from analysis.core.model_names import training_slug
from analysis.scorecard.evaluate import tables_read
from analysis.scorecard.values import REPLICATE, specs_of, with_depth


@dataclass
class Family:
    """The tables one rule makes from per-unit tallies: ``make(weights)`` -> replicate tables by stem
    (``weights``: (B, units)), the stems of those tables (``stems``: the claims it can judge);
    ``clusters``: each unit's cluster index (0 .. G - 1), drawn whole."""

    name: str
    clusters: np.ndarray
    make: Callable[[np.ndarray], dict[str, pd.DataFrame]]
    stems: tuple = ()
    trainings: tuple = ()  # ``make`` of each further training seed (its own units, paired by unit)
    trained: str | None = None  # the training family of its tables (config ``trainings``)

    @property
    def n_clusters(self) -> int:
        return int(self.clusters.max()) + 1


def relations_read(claims: list[dict], stem: str) -> list[str]:
    """The relations the claims' values on table ``stem`` name in their ``where``."""
    named = []
    for claim in claims:
        for spec in specs_of(claim["check"]) + specs_of(claim.get("refuted_if")):
            if spec["table"] == stem:
                rel = spec.get("where", {}).get("relation", [])
                named += rel if isinstance(rel, list) else [rel]
    return list(dict.fromkeys(named))


def dep_heads_family(
    units: Path, tables: Path, claims: list[dict], corpus: str = "gum_sd_dev", select_on: str = "gum_sd_train"
) -> Family:
    """Table 1 on ``corpus``'s documents: the head, offset and directions chosen on ``select_on``
    (the run's tables), scored on each dataset; the in-sample best head chosen again in each. Only
    the relations the claims read are scored (the others change no verdict)."""
    from analysis.clark.syntax.replicates import table1_replicates
    from analysis.clark.syntax.selected import selected_replicates, selection, with_selected
    from analysis.clark.syntax.units import SentenceTallies

    sc = SentenceTallies(units / f"dep_heads.{corpus}.npz")
    read = relations_read(claims, f"dep_heads.{corpus}")
    unknown = sorted(set(read) - set(sc.correct))
    if unknown:
        raise SystemExit(f"{units}/dep_heads.{corpus}.npz: no arcs of the relations {unknown} the claims read")
    sc.correct = {r: None for r in sc.correct if r in read}
    full, base = (tables / f"dep_heads.{k}.{select_on}.csv" for k in ("full", "baselines"))
    choice = selection(pd.read_csv(full), pd.read_csv(base), select_on, (full, base))
    relations = list(sc.correct)
    clusters = pd.factorize(pd.Series(sc.clusters))[0]

    def make(weights):
        boot = table1_replicates(sc, relations, weights)
        return {
            f"dep_heads.{corpus}": with_selected(
                boot, selected_replicates(sc, choice, weights), on=(REPLICATE, "relation")
            )
        }

    return Family(f"dep_heads.{corpus}", clusters, make, (f"dep_heads.{corpus}",))


def coref_family(units: Path) -> Family:
    """Table 2 on the coreference corpus's documents (the best head chosen again in each dataset)."""
    from analysis.clark.coref.heads import Tally

    tally = Tally.from_units(units / "coref_heads.npz")
    return Family(
        "coref_heads",
        np.arange(len(tally.by_unit)),
        lambda w: {"coref_heads": tally.replicate_summary(w)},
        ("coref_heads",),
    )


# the sec. 3 tables the claims read, as their rules write them from the shards' sums:
# stem -> (analysis prefix, per layer or per head, metric columns)
SURFACE = {
    "special_tokens.by_layer": ("special_tokens", "layers", metrics.SPECIAL_TOKENS),
    "sep_attention.by_layer": ("sep_attention", "layers", metrics.SEP_ATTENTION),
    "entropy.by_layer": ("entropy", "layers", metrics.ENTROPY),
    "relative_position": ("relative_position", "heads", metrics.RELATIVE_POSITION),
}


def surface_family(sums_dir: Path) -> Family:
    """Clark sec. 3 on the Wikipedia segments' own statistics (rule surface_sums' shards), every
    segment's article its cluster: the per-head and layer-mean tables for any weights, as the
    rules make their replicates (``analysis.clark.surface.boot``). ``sep_attention.sink`` (the
    sink chosen per run) is not made: its claims are not covered."""
    from analysis.clark.surface.boot import segment_clusters, unit_stats, weighted_tables
    from analysis.clark.surface.sums import read_sums

    paths = sorted(sums_dir.glob("shard-*.npz"), key=lambda p: int(p.stem.split("-")[1]))
    if not paths:
        raise SystemExit(f"{sums_dir}: no shard-*.npz (rule surface_sums writes them; rerun it)")
    parts, metas = read_sums(paths)
    units = {prefix: unit_stats(parts, prefix) for prefix, _, _ in SURFACE.values()}
    ask = {"layers": "layers", "heads": "per_head"}  # weighted_tables' keyword for each kind

    def make(weights):
        return {
            stem: with_depth(weighted_tables(units[prefix], weights, **{ask[kind]: metrics})[kind])
            for stem, (prefix, kind, metrics) in SURFACE.items()
        }

    clusters = pd.factorize(pd.Series(segment_clusters(metas)))[0]
    return Family("surface_sums", clusters, make, tuple(SURFACE))


def seed_tables(tables: Path, first: str) -> list[Path]:
    """The run's tables folder and every training run's (``<model>--training-r``, r = 1, 2, ...) that
    has ``first``: the seeds of one training family, the model's own first."""
    out, r = [tables], 1
    while (folder := tables.parent.parent / training_slug(tables.parent.name, r) / tables.name).is_dir():
        if (folder / first).is_file():
            out.append(folder)
        r += 1
    return out


def instance_family(name: str, tables: Path, files: tuple, build: Callable, stems: tuple, trained: str) -> Family:
    """A family on per-instance tables (``files``, stems of csv files) of every training seed, every
    explained instance (column ``id``) a unit drawn alike for every seed: ``build(tables by name,
    units, weights)`` makes its replicate tables as its rules do."""
    folders = seed_tables(tables, f"{files[0]}.csv")
    missing = [str(f / f"{n}.csv") for f in folders for n in files if not (f / f"{n}.csv").is_file()]
    if missing:
        raise SystemExit(f"no {', '.join(missing)} (rules {', '.join(stems)} write them; rerun them)")
    seeds = [{n: pd.read_csv(f / f"{n}.csv") for n in files} for f in folders]
    units = np.unique(np.concatenate([d[n]["id"].to_numpy() for d in seeds for n in files]))
    makes = [partial(build, d, units) for d in seeds]
    return Family(name, np.arange(len(units)), makes[0], stems, tuple(makes[1:]), trained)


def _explained(d: dict, units, weights) -> dict[str, pd.DataFrame]:
    """Serrano & Smith's and Jain & Wallace's summaries (``analysis.explanation.replicates``)."""
    from analysis.explanation.replicates import (
        ADVERSARIAL,
        PERMUTATION,
        RANK_AGREEMENT,
        erasure_replicates,
        median_replicates,
    )

    return {
        "erasure.summary": erasure_replicates(d["erasure.single"], d["erasure.set"], units, weights),
        "permutation": median_replicates(d["permutation"], *PERMUTATION, units, weights),
        "adversarial": median_replicates(d["adversarial"], *ADVERSARIAL, units, weights),
        "rank_agreement": median_replicates(d["rank_agreement"], *RANK_AGREEMENT, units, weights),
    }


def explanation_family(tables: Path) -> Family:
    """The attention classifiers' per-instance outputs (every explained dev sentence a unit), over
    their training seeds (config ``trainings.classifiers``)."""
    files = ("erasure.single", "erasure.set", "permutation", "adversarial", "rank_agreement")
    stems = ("erasure.summary", "permutation", "adversarial", "rank_agreement")
    return instance_family("explanation", tables, files, _explained, stems, "classifiers")


def _staying_true(d: dict, units, weights) -> dict[str, pd.DataFrame]:
    """Tutek & Snajder's permutation and single-token summaries (``analysis.explanation.replicates``);
    the adversary's curve, fitted again on every resample, is not made (its claims are not covered)."""
    from analysis.explanation.replicates import (
        staying_true_permutation_replicates,
        staying_true_single_token_replicates,
    )

    return {
        "staying_true_permutation.summary": staying_true_permutation_replicates(
            d["staying_true_permutation"], units, weights
        ),
        "staying_true_single_token.summary": staying_true_single_token_replicates(
            d["staying_true_single_token"], units, weights
        ),
    }


def staying_true_family(tables: Path) -> Family:
    """Tutek & Snajder's models' per-instance outputs over their training seeds (``trainings.staying_true``)."""
    files = ("staying_true_permutation", "staying_true_single_token")
    stems = ("staying_true_permutation.summary", "staying_true_single_token.summary")
    return instance_family("staying_true", tables, files, _staying_true, stems, "staying_true")


def family_claims(family: Family, claims: list[dict]) -> list[dict]:
    """The claims reading only ``family``'s tables (their check, premise, refutation), each with the
    training family it rests on (``trained``, as the scorecard's registry derives it)."""
    return [{**c, "trained": family.trained} for c in claims if set(tables_read(c)) <= set(family.stems)]


def nested_weights(clusters: np.ndarray, resamples: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """A new dataset and its bootstrap: G of the G clusters drawn with replacement (the dataset's
    units' multiplicities, (units,)), and ``resamples`` resamples of the dataset's G drawn clusters
    ((resamples, units): a cluster drawn twice into the dataset counts twice in each pick)."""
    g = int(clusters.max()) + 1
    drawn = rng.integers(0, g, g)
    picks = drawn[rng.integers(0, g, (resamples, g))]  # (B, G) the original cluster of each pick
    inner = np.zeros((resamples, g))
    np.add.at(inner, (np.repeat(np.arange(resamples), g), picks.ravel()), 1)
    return np.bincount(drawn, minlength=g)[clusters].astype(float), inner[:, clusters]


def point_of(boots: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """One-replicate tables as point tables."""
    return {k: v.drop(columns=[REPLICATE]).reset_index(drop=True) for k, v in boots.items()}
