"""The scorecard's counts, as the pages say them: verdicts per claim, the paper's claims and this
project's extensions (claims file ``extension: true``: a setting the paper did not test) always apart,
never summed; what the intervals rest on; what Benjamini-Hochberg decided."""

from __future__ import annotations

import pandas as pd

from analysis.scorecard.evaluate import INCONCLUSIVE, MULTIPLICITY, SEED, VERDICTS


def interval_note(table: pd.DataFrame) -> str:
    """How many claims (paper claims, extensions apart) rest on a bootstrap interval, a t interval over
    seeds, or their point value alone."""
    basis = table.get("basis", pd.Series("", index=table.index)).fillna("")
    ext = extensions(table)
    boot = table[basis == "bootstrap"]
    reps = sorted(set(boot["replicates"]))
    clusters = pd.to_numeric(boot.get("clusters", pd.Series(dtype=float)), errors="coerce").dropna()
    widened = (
        f"; {len(clusters)} of them drew whole clusters, and are widened for their number" if len(clusters) else ""
    )
    on = lambda b: apart((basis == b) & ~ext, (basis == b) & ext)  # noqa: E731
    return (
        f"A 95% bootstrap interval: {on('bootstrap')} ({' / '.join(map(str, reps)) or 'no'} resamples of their "
        f"tables' units{widened}); a t interval over training seeds: {on('seeds')}; their point value alone "
        f"(point only, counted apart): {on('point only')}; a claim whose interval does not decide its criterion "
        f"is {INCONCLUSIVE}."
    )


def firm_note(table: pd.DataFrame) -> str:
    """What Benjamini-Hochberg decided across the claims with a p (the paper's claims and this
    project's extensions, two families, counted apart), and the split between claims about the
    model and claims the same for any model."""
    p = pd.to_numeric(table.get("p_value", pd.Series(dtype=float)), errors="coerce")
    bh = table.get("bh", pd.Series(False, index=table.index)).fillna(False).astype(bool)
    demoted = table["verdict"] == MULTIPLICITY
    ext = extensions(table)
    about = table.get("about", pd.Series("", index=table.index))
    own = table[about == "your model"]
    mc = pd.to_numeric(table.get("p_mc_se", pd.Series(dtype=float)), errors="coerce").dropna()
    monte_carlo = (
        f"; a bootstrap p's Monte Carlo standard error, column p_mc_se, is at most {mc.max():.2g}" if len(mc) else ""
    )
    return (
        f"{apart(p[~ext].notna(), p[ext].notna())} carry a two-sided p (every claim with an interval{monte_carlo}); "
        "Benjamini-Hochberg at a 5% false-discovery rate, over the paper claims and over the extensions apart, "
        f"decides: discoveries (columns q_value, bh): {apart(bh[~ext], bh[ext])}; firm verdicts that are no "
        f"discovery, read '{MULTIPLICITY}': {apart(demoted[~ext], demoted[ext])}. {len(table) - len(own)} claims "
        f"are the same for any model (Tutek & Snajder's GloVe BiLSTMs); about your model: {headline(own)}."
    )


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def apart(paper: pd.Series, extension: pd.Series) -> str:
    """How many of each are true in two boolean series: "44 paper claims, 1 extension"."""
    return f"{plural(int(paper.sum()), 'paper claim')}, {plural(int(extension.sum()), 'extension')}"


def extensions(table: pd.DataFrame) -> pd.Series:
    """Which claims are this project's extensions (``extension: true`` in the claims file: a setting
    the paper did not test): every count gives them apart from the paper's claims, never summed."""
    return table.get("extension", pd.Series(False, index=table.index)).fillna(False).astype(bool)


def seeds_note(table: pd.DataFrame) -> str:
    """How many claims (paper claims, extensions apart) rest on a training, how many of them on one
    seed only (config trainings)."""
    seeds = pd.to_numeric(table.get("seeds", pd.Series(dtype=float)), errors="coerce").fillna(0)
    ext = extensions(table)
    if not (seeds > 0).any():
        return ""
    if "seed_reference" in table.columns:
        covered = table["seed_reference"].fillna("").astype(str).str.startswith("between")
        reference = (
            f" The seed reference gives {apart(covered & ~ext, covered & ext)} of them a between-seed SD: such a "
            f"firm verdict stands only where its interval widened by that SD decides too, else it reads '{SEED}' "
            "(column seed_reference)."
        )
    else:
        reference = (
            " No seed reference was read (overview.seed_reference: no file), so no verdict is widened for the seed."
        )
    return (
        f"Resting on a training (probes, fine-tuning, classifiers, regularised models, MLM head): "
        f"{apart((seeds > 0) & ~ext, (seeds > 0) & ext)}; of them, {apart((seeds > 1) & ~ext, (seeds > 1) & ext)} "
        "cover the training's seed (several seeds, config trainings: the mean over seeds, with a t interval on the "
        f"between-seed plus bootstrap variance), {apart((seeds == 1) & ~ext, (seeds == 1) & ext)} "
        "rest on 1 seed, so their intervals cover the choice of inputs, not the seed (marked '1 seed')." + reference
    )


def point_only(table: pd.DataFrame) -> pd.Series:
    """Which claims' verdicts rest on their point value alone (no interval): counted apart."""
    return table.get("basis", pd.Series("", index=table.index)).fillna("").eq("point only")


def verdict_counts(table: pd.DataFrame, alone: bool = False) -> dict[str, int]:
    """Claims per verdict, those on their point value alone left out (``alone``: those alone)."""
    counts = table.loc[point_only(table) == alone, "verdict"].value_counts()
    return {v: int(counts.get(v, 0)) for v in VERDICTS}


def counts_text(table: pd.DataFrame, zeros: bool = False) -> str:
    """The verdict counts of ``table``, those on a point value alone (no interval) apart:
    "20 holds, 5 does not hold; on their point value alone (no interval): 2 holds" (``zeros``: every verdict)."""
    text = ", ".join(f"{n} {v}" for v, n in verdict_counts(table).items() if n or zeros)
    alone = ", ".join(f"{n} {v}" for v, n in verdict_counts(table, alone=True).items() if n)
    return (text or "none") + (f"; on their point value alone (no interval): {alone}" if alone else "")


def headline(table: pd.DataFrame, zeros: bool = False, sep: str = "; ") -> str:
    """The verdict counts of the paper's claims, then (after ``sep``) those of this project's extensions
    apart: "49 paper claims: 23 holds, ...; 1 extension (settings the papers did not test): 1 does not
    hold" (``zeros``: every verdict of the paper claims)."""
    ext = extensions(table)
    text = f"{plural(int((~ext).sum()), 'paper claim')}: {counts_text(table[~ext], zeros)}"
    if ext.any():
        text += (
            f"{sep}{plural(int(ext.sum()), 'extension')} (settings the papers did not test): {counts_text(table[ext])}"
        )
    return text
