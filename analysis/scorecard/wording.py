"""The scorecard table's words: the only place the engine turns its numbers into text (our value,
its interval, the reasons, the control's difference). The judgements carry numbers
(:class:`analysis.scorecard.checks.Judgement`, :class:`analysis.scorecard.evaluate.Outcome`); what
this module writes is what ``scorecard.csv`` shows, and the numbers behind it are the terms table
(:mod:`analysis.scorecard.terms`)."""

from __future__ import annotations

import numpy as np


def fmt(x) -> str:
    if isinstance(x, (float, np.floating)):
        return f"{x:.3g}"
    if isinstance(x, (np.integer,)):
        return str(int(x))
    return str(x)


def distinct_texts(values: list) -> list[str]:
    """``fmt`` of each value, with more digits where two different values would print alike
    (0.05652 and 0.05648 both print as 0.0565)."""
    texts = [fmt(v) for v in values]
    for digits in (4, 5, 6, 8):
        clash = any(t == u and v != w for t, u, v, w in zip(texts, texts[1:], values, values[1:]))
        if not clash:
            break
        texts = [f"{v:.{digits}g}" if isinstance(v, float | np.floating) else fmt(v) for v in values]
    return texts


def value_text(j) -> str:
    """A judgement's value: one value, an order ("0.7 > 0.6", "vs" where it fails), the seeds' mean,
    or every level's ("A: 0.8; B: 0.7 (not learnt)")."""
    if j.levels:
        note = lambda lvl: f" ({j.marks[lvl]})" if lvl in j.marks else ""  # noqa: E731
        return "; ".join(f"{lvl}: {value_text(s)}{note(lvl)}" for lvl, s in j.levels.items())
    numbers = [x for _, _, x in j.values]
    if j.why[:1] == ("categorical",):
        return f"{fmt(numbers[0])} (the most common of {j.seeds} seeds)"
    if j.order:
        return (" > " if j.ok else " vs ").join(distinct_texts(numbers)) + (
            f" (means of {j.seeds} seeds)" if j.seeds else ""
        )
    return fmt(numbers[0]) + (f" (mean of {j.seeds} seeds)" if j.seeds else "")


def bound_text(bound, units: float) -> str:
    """One member's interval: [low, high], a categorical value's modal share, or none (too few units)."""
    if bound is None:
        return f"none ({units:.0f} cluster resampled)"
    if hasattr(bound, "share"):  # Modal
        return "no replicate" if bound.value is None else f"{bound.value} in {bound.share:.0%} of replicates"
    return f"[{fmt(bound[0])}, {fmt(bound[1])}]"


def interval_text(j) -> str:
    """A judgement's 95% interval(s): each member's (bootstrap), the t interval over seeds (of the
    differences for an order), every level's."""
    if j.levels:
        return "; ".join(f"{lvl}: {interval_text(s)}" for lvl, s in j.levels.items())
    if j.why[:1] == ("categorical",):
        return f"none (a categorical value over {j.seeds} seeds has no mean)"
    if j.seeds:
        bounds = "; ".join(f"[{fmt(lo)}, {fmt(hi)}]" for lo, hi in j.bounds)
        return bounds + (f" (t, differences, {j.seeds} seeds)" if j.order else f" (t, {j.seeds} seeds)")
    return "; ".join(bound_text(b, j.units) for b in j.bounds)


def why_text(j) -> str:
    """Why a judgement is not firm beyond its interval (undefined replicates, a tie, few clusters)."""
    if j.levels:
        return "; ".join(f"{lvl}: {why_text(s)}" for lvl, s in j.levels.items() if why_text(s))
    if not j.why:
        return ""
    kind, *terms = j.why
    if kind == "undefined":
        return f"no value on {terms[0]:.0%} of the resamples"
    if kind == "tie":
        return "a tie: no single level is the largest"
    if kind == "categorical":
        return ""  # said by its interval
    return f"{terms[0]:.0f} clusters resampled: too few for a firm verdict (at least {terms[1]})"


def widened_text(j) -> str:
    """A one-seed judgement's intervals widened by the seed reference: each quantity's (the value, an
    order's differences), with the between-seed SD and seed count it was widened by; every level's."""
    if j.levels:
        return "; ".join(f"{lvl}: {widened_text(s)}" for lvl, s in j.levels.items() if s.estimates)
    parts = []
    for i, e in enumerate(j.estimates, start=1):
        if e is not None:
            name = f"difference {i} " if j.order else ""
            low, high = e.bounds()
            parts.append(f"{name}[{fmt(low)}, {fmt(high)}] (SD {fmt(e.reference[0])}, {e.reference[1]} seeds)")
    return "; ".join(parts)


def task_text(t: dict) -> str:
    """A fine-tuned task's learnt test: its metric, score, the majority class's and the gain's interval."""
    return (
        f"{t['task']} {t['metric']} {fmt(t['finetuned'])} vs majority class {fmt(t['majority'])}, "
        f"gain 95% CI [{fmt(t['low'])}, {fmt(t['high'])}]"
    )


NOT_LEARNT = "the fine-tuned model did not learn its task (the gain's interval is not above 0): "


def _draw_name(d: int) -> str:
    return "the random-init control" if d == 1 else f"random-init draw {d}"


def difference_text(d) -> str:
    """The model's lead over a control draw (a :class:`analysis.scorecard.control.Difference`)."""
    if d is None:
        return ""
    if d.kind == "point only":
        return f"{d.point:+.3g} (point only)"
    if d.kind == "no replicates":
        return f"{d.point:+.3g}"
    if d.kind == "few units":
        return f"{d.point:+.3g} ({d.units:.0f} clusters)"
    return f"{d.point:+.3g} [{d.low:+.3g}, {d.high:+.3g}]"


def reason_text(item) -> str:
    """One reason of a verdict: text as given, or a tuple (kind, numbers and judgements) in words."""
    if item is None or isinstance(item, str):
        return item or ""
    kind, *a = item
    if kind == "not run":
        missing, not_selected = a
        return f"table {', '.join(missing)} {'not selected (overview.scorecard_rules)' if not_selected else 'not produced'}"
    if kind in ("premise", "resolved"):
        return f"{a[0]} (measured: {value_text(a[1])})"
    if kind == "refuted":
        measured = [value_text(j) if lvl is None else f"{lvl}: {value_text(j)}" for lvl, j in a[1]]
        return f"{a[0]} (measured: {'; '.join(measured)})"
    if kind == "not learnt":
        return NOT_LEARNT + "; ".join(task_text(t) for t in a[0])
    if kind == "left out":
        return f"left out, not learnt: {'; '.join(task_text(t) for t in a[0])}" if a[0] else ""
    if kind == "no row":
        return f"no row: {', '.join(a[0])}" if a[0] else ""
    if kind == "undecided":
        why = why_text(a[0])
        return f"the 95% interval {interval_text(a[0])} does not decide it" + (f" ({why})" if why else "")
    if kind == "calibrated":
        return (
            f"firm at the nominal 2.5% a side, not at its calibrated tail {a[0]:.3g} (the level at which it is wrong "
            f"2.5% of the time on the run's own documents; {a[1]})"
        )
    if kind == "seed":
        return (
            f"firm on this training seed, but its 95% interval widened by the seed reference's between-seed SD, "
            f"{widened_text(a[0])}, does not decide it"
        )
    if kind == "not further":
        return f"not firmly further than {_draw_name(a[0])} (model minus it {difference_text(a[1])})"
    if kind == "no more":
        return f"no more of the structure than {_draw_name(a[0])} (it minus the model {difference_text(a[1])})"
    if kind == "spread":
        n, model, bound = a
        return f"within the spread of {n} random-init draws (model {model:+.3g} vs a new draw's bound {bound:+.3g})"
    if kind == "reference spread":
        draws, sd, model, bound = a
        return (
            f"within the spread of random-init draws (between-draw SD {sd:.3g} from the control reference's "
            f"{draws} draws; model {model:+.3g} vs a new draw's bound {bound:+.3g})"
        )
    if kind == "multiplicity":
        return f"not a Benjamini-Hochberg discovery at 5% over the {a[0]} claims with a p (q = {a[1]:.3g})"
    if kind == "p above":
        return f"its two-sided p {a[0]:.3g} is above 5% (a bootstrap p counts the point value too)"
    if kind == "control too":
        return f"the random-init control {a[0]} too"
    if kind == "no control":
        return "read off fine-tuned maps, with no control: no random-init network is fine-tuned the same way"
    raise ValueError(f"unknown reason {kind!r}")


def reasons_text(items) -> str:
    return "; ".join(filter(None, (reason_text(i) for i in items)))
