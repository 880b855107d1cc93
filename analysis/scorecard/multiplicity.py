"""Many claims at once: Benjamini-Hochberg over every claim with a p decides which firm verdicts
stand, and a per-level claim says on how many of its levels it holds.

Every claim with an interval (a bootstrap or a t interval over seeds) has a two-sided p
(:attr:`analysis.scorecard.checks.Judgement.p_value`). Benjamini-Hochberg at the project's level
(5%) runs over all of them, the paper's claims as one family and this project's extensions
(``extension: true`` in config/claims/) as another; a firm verdict (``holds``, ``holds,
also at random init``, ``does not hold``) whose claim is not a discovery reads ``inconclusive
(multiplicity)`` (``inconclusive`` where its p alone is above 5%). Claims judged on their point
value alone have no p and are counted apart."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.scorecard.checks import LEVEL, Judgement
from analysis.scorecard.evaluate import ALSO_RANDOM, INCONCLUSIVE, MULTIPLICITY
from analysis.scorecard.wording import reason_text

FIRM = ("holds", ALSO_RANDOM, "does not hold")  # the verdicts that need a discovery


def benjamini_hochberg(p: pd.Series, q: float = LEVEL) -> pd.Series:
    """Which of the p-values ``p`` (NaN: none) are discoveries at false-discovery rate ``q``."""
    return bh_adjusted(p) <= q


def bh_adjusted(p: pd.Series) -> pd.Series:
    """Benjamini-Hochberg adjusted p-values (q-values) of ``p`` (NaN: none, left out of m): the
    smallest false-discovery rate at which each is a discovery, min over j >= i of m p_(j) / j."""
    known = p.dropna().sort_values(kind="mergesort")
    m = len(known)
    if not m:
        return pd.Series(np.nan, index=p.index)
    raw = known.to_numpy() * m / np.arange(1, m + 1)
    adjusted = np.minimum(1.0, np.minimum.accumulate(raw[::-1])[::-1])
    return pd.Series(adjusted, index=known.index).reindex(p.index)


def p_monte_carlo_se(p: float, resamples: int) -> float:
    """The Monte Carlo standard error of a two-sided bootstrap p = 2 a, a the share of ``resamples``
    replicates against a direction: 2 sqrt(a (1 - a) / B) = sqrt(p (2 - p) / B) (NaN: no p or no
    replicates). How far another B resamples could move the p (and a BH decision near its threshold)."""
    if not np.isfinite(p) or not resamples:
        return np.nan
    return float(np.sqrt(p * (2 - p) / resamples))


def holm_rejections(p: list[float], alpha: float = LEVEL) -> int:
    """How many of the hypotheses with p-values ``p`` Holm's step-down rejects at family-wise level
    ``alpha`` (NaN: never): the u smallest p_(i) <= alpha / (n - i + 1), in order, until one is not."""
    ordered = sorted(1.0 if np.isnan(x) else x for x in p)
    n = len(ordered)
    for i, x in enumerate(ordered):
        if x > alpha / (n - i):
            return i
    return n


def levels_held(judged: Judgement | None, absent: int = 0) -> str:
    """``u of n`` for a per-level claim: n the levels it names (those with no row counted, ``absent``),
    u those on which it holds, by the claim's own test (before Benjamini-Hochberg across the claims):
    where it holds firmly, every level present (its intersection-union test shows them all);
    otherwise those that hold firmly with Holm over the n (each level's two-sided p of holds:
    "holds on at least u of n" at 5%); on its point value alone, where the point holds."""
    if judged is None or not judged.levels:
        return ""
    levels = list(judged.levels.values())
    n = len(levels) + absent
    if judged.firm is None:
        return f"{sum(j.ok for j in levels)} of {n}"
    if judged.ok and judged.firm:
        return f"{len(levels)} of {n}"
    p = [min(1.0, 2 * j.p_holds) if j.ok else 1.0 for j in levels] + [1.0] * absent
    return f"{holm_rejections(p)} of {n}"


def decide(card: pd.DataFrame, extension: pd.Series) -> pd.DataFrame:
    """``card`` with ``q_value`` (Benjamini-Hochberg within its family: the paper's claims, or the
    extensions) and ``bh`` (a discovery at 5%) for every claim with a p, and every firm verdict that is
    not a discovery demoted to MULTIPLICITY, its reason saying so; one whose own p is above 5% (its
    interval decides, but a bootstrap p counts the point itself, (1 + against) / (1 + replicates),
    which a share of replicates does not) reads INCONCLUSIVE, as no multiplicity is involved."""
    p = pd.to_numeric(card["p_value"], errors="coerce")
    q = pd.Series(np.nan, index=card.index)
    for family in (False, True):
        members = extension.astype(bool) == family
        q[members] = bh_adjusted(p[members])
    card = card.assign(q_value=q, bh=q <= LEVEL)
    firm = card["verdict"].isin(FIRM) & p.notna()
    sizes = {f: int(p[extension.astype(bool) == f].notna().sum()) for f in (False, True)}
    for i in card.index[firm & ~card["bh"]]:
        if p[i] > LEVEL:  # its interval decides, its p does not: no multiplicity involved
            why, verdict = reason_text(("p above", p[i])), INCONCLUSIVE
        else:
            why, verdict = reason_text(("multiplicity", sizes[bool(extension[i])], q[i])), MULTIPLICITY
        card.loc[i, "reason"] = "; ".join(filter(None, [why, card.loc[i, "reason"]]))
        card.loc[i, "verdict"] = verdict
    return card
