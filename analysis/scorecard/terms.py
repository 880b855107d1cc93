"""The numbers behind each claim's row of the scorecard, by name (``scorecard.terms.csv``: claim id,
group, term, value at full precision): what the docs' claim spans read (tools/docs/scorecard_values.py),
so no number is read back out of a text and no span names a position in one.

Terms of a judgement (``group``: the level of ``per``, empty for the claim as a whole):
``value`` (one value against its ``threshold``) or ``value1``, ``value2``, ... (an order's values,
in the order of its ``greater`` list, with its ``margin``); their 95% interval ``low`` / ``high``
(an order: ``low1`` / ``high1``, ...; over k seeds the order's differences: ``difference_low1`` /
``difference_high1``, ...), ``modal_share`` for a categorical value; ``p`` (the verdict's bootstrap
or t p), ``units`` (the independent units its replicates drew, where the table says so),
``replicates``, ``seeds``; over k seeds each seed's value of each quantity (``value_seed1``, ... or
``difference1_seed1``, ...: what tools/measure/seed_reference.py reads) and the t interval's
degrees of freedom below and above the mean (``df_low``, ``df_high``, ``df_low1``, ...), and an order's
almost stochastic order of each value over the next (``aso1``, ...: :mod:`analysis.scorecard.aso`); one seed widened by the seed reference: ``seed_sd``,
``seed_reference_seeds``, ``seed_low``, ``seed_high`` (an order: ``seed_sd1``, ...); the claim's ``control_difference`` (model minus the random-init control
on the claim's side) with ``control_difference_low`` / ``_high`` / ``_p``, and each control draw's
strength (``control_strength1``, ...); a claim read at calibrated tails: ``tail_holds`` and
``tail_does_not_hold`` (:mod:`analysis.scorecard.calibrated_tails`)."""

from __future__ import annotations

import numpy as np

from analysis.scorecard.calibrated_tails import NOMINAL
from analysis.scorecard.checks import Judgement

TERM_COLUMNS = ["id", "group", "term", "value"]


def plain(x):
    """A value as plain Python (a numpy number as float or int; text as is)."""
    if isinstance(x, (np.integer, int)) and not isinstance(x, bool):
        return int(x)
    if isinstance(x, (np.floating, float)):
        return float(x)
    return x


def _known(x) -> bool:
    return x is not None and not (isinstance(x, (float, np.floating)) and not np.isfinite(x))


def judgement_terms(j: Judgement) -> dict:
    """The named numbers of one judgement (one level of a per-level check, or a check without ``per``)."""
    out = {}
    if j.order:
        out |= {f"value{pos}": x for _, pos, x in j.values} | {"margin": j.threshold}
    else:
        out |= {"value": j.values[0][2], "threshold": j.threshold}
    for i, bound in enumerate(j.bounds, start=1):
        suffix = str(i) if j.order else ""
        if bound is None:
            continue
        if hasattr(bound, "share"):
            out[f"modal_share{suffix}"] = bound.share
        elif j.seeds and j.order:
            out |= {f"difference_low{suffix}": bound[0], f"difference_high{suffix}": bound[1]}
        else:
            out |= {f"low{suffix}": bound[0], f"high{suffix}": bound[1]}
    out |= {f"aso{i}": x for i, x in enumerate(j.aso, start=1)}
    return out | _seed_terms(j) | _common(j)


def _seed_terms(j: Judgement) -> dict:
    """Per quantity (the value, an order's differences): each seed's value and the t's df over k
    seeds; the reference's SD and seeds and the widened interval on one seed."""
    out = {}
    for i, e in enumerate(j.estimates, start=1):
        if e is None:
            continue
        suffix, quantity = (str(i), f"difference{i}") if j.order else ("", "value")
        if e.reference is None:
            (_, df_low), (_, df_high) = e.spread
            out |= {f"{quantity}_seed{s}": x for s, x in enumerate(e.points, start=1)}
            out |= {f"df_low{suffix}": df_low, f"df_high{suffix}": df_high}
        else:
            low, high = e.bounds()
            out |= {f"seed_sd{suffix}": e.reference[0], f"seed_reference_seeds{suffix}": e.reference[1]}
            out |= {f"seed_low{suffix}": low, f"seed_high{suffix}": high}
    return out


def _common(j: Judgement) -> dict:
    out = {"p": j.p_value, "units": j.units, "replicates": j.replicates or None, "seeds": j.seeds or None}
    if tuple(j.tail_scale) != (1.0, 1.0):  # read at its calibrated tails
        out |= {"tail_holds": NOMINAL * j.tail_scale[0], "tail_does_not_hold": NOMINAL * j.tail_scale[1]}
    return out


def claim_terms(claim_id: str, judged: Judgement | None, seeds: int, difference, draws=()) -> list[dict]:
    """The terms table's rows of one claim: its judgement's terms (every level's, and the claim's
    own p and units for a per-level claim), its training seeds, its lead over the control, and each
    control draw's strength (``control_strength1``, ...: how far on the claim's side it lies, what
    tools/measure/control_reference.py reads)."""
    groups = []
    if judged is not None and judged.levels:
        groups.append(("", _common(judged)))
        groups += [(lvl, judgement_terms(j)) for lvl, j in judged.levels.items()]
    elif judged is not None:
        groups.append(("", judgement_terms(judged)))
    groups = groups or [("", {})]
    if seeds:
        groups[0][1]["seeds"] = seeds
    if difference is not None:
        extra = {
            "control_difference": difference.point,
            "control_difference_low": difference.low,
            "control_difference_high": difference.high,
            "control_difference_p": difference.p,
        }
        groups[0][1].update(extra)
    groups[0][1].update({f"control_strength{d}": o.strength_point for d, o in enumerate(draws, start=1)})
    return [
        {"id": claim_id, "group": group, "term": term, "value": plain(x)}
        for group, terms in groups
        for term, x in terms.items()
        if _known(x)
    ]
