"""A one-seed bootstrap judgement read through a t: each quantity's percentile interval (widened for
few clusters) gives a standard error per side, its half-width over t(0.975, G - 1), and the p's come
from that t (:func:`analysis.scorecard.seeds.widened`). Two uses:

- the seed reference (config overview.seed_reference): the between-seed SD added to that variance;
  a firm verdict stands only where the widened interval decides too;
- a check's ``interval: t``: no SD added, and the firm verdict read on the t's p alone. A share of
  replicates cannot go past "every replicate agrees", so a level below 1 / resamples (a Bonferroni
  share over many levels, a calibrated tail) cannot bind on it; the t's p is continuous there, and
  at the 95% level it decides where the percentile interval does."""

from __future__ import annotations

from analysis.scorecard.pvalues import combined
from analysis.scorecard.seeds import widened

NO_SPREAD = (0.0, 2)  # (between-seed SD, seeds): a t on the bootstrap's own variance, df G - 1


def widen_by_reference(judged, quantities: list, reference: dict, fallback: list, failing: int) -> None:
    """``judged`` (one seed, a bootstrap) widened by the seed reference: each quantity (key, point,
    replicates, gap on the claim's side, that side: +1 above, -1 below) with a between-seed SD in
    ``reference`` gets the t interval of :func:`widened` and its p (a quantity without one keeps its
    bootstrap p, ``fallback``); the verdict is firm only where that interval decides too, and its p
    is the larger."""
    estimates = [widened(point, reps, judged.units, *reference[key]) if key in reference else None
                 for key, point, reps, *_ in quantities]  # fmt: skip
    if not any(estimates):
        return
    ps = [e.sided_p(gap, sign) if e else f for e, (*_, gap, sign), f in zip(estimates, quantities, fallback)]
    judged.estimates, judged.seed_p = estimates, combined(ps, failing)
    judged.p_holds, judged.p_fails = max(judged.p_holds, judged.seed_p[0]), max(judged.p_fails, judged.seed_p[1])


def read_on_t(judged, quantities: list, failing: int) -> list:
    """``judged`` (one seed, a bootstrap) read on the t of each quantity (key, point, replicates, gap,
    side, as :func:`widen_by_reference`) with no seed spread: its p's are the t's (an order's or a
    level's combined as its bootstrap p's are, Bonferroni over ``failing`` parts), and its firm
    verdict is read on them (``judged.on_t``). Returns each quantity's (p of holds, p of does not hold)."""
    ps = [widened(point, reps, judged.units, *NO_SPREAD).sided_p(gap, sign) for _, point, reps, gap, sign in quantities]
    judged.p_holds, judged.p_fails = combined(ps, failing)
    judged.on_t = True
    return ps
