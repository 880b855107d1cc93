"""docs/calibration.md's calibration tables, between ``<!-- calibration:begin -->`` and
``<!-- calibration:end -->`` (from docs/calibration.csv) and ``<!-- seed-calibration:begin -->`` and
``<!-- seed-calibration:end -->`` (from docs/seed_calibration.csv), ``<!-- own-calibration:begin -->`` (from docs/own_calibration.csv):
the simulations themselves are ``python -m tools.measure.calibration``, ``python -m
tools.measure.seed_calibration`` and ``python -m tools.measure.own_calibration`` (minutes), which
write both; this only renders the csv, so that ``python -m tools.docs --check`` finds a table
that no longer matches its csv."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tools.docs.page_block import refresh
from tools.measure.own_rates import GRID

PAGE, CSV, SEED_CSV = "docs/calibration.md", "docs/calibration.csv", "docs/seed_calibration.csv"
OWN_CSV = "docs/own_calibration.csv"
GRID_END = GRID[-1]  # the largest shift the own-data calibration measures power at, in SE


def markdown(table: pd.DataFrame) -> str:
    """The rates of each shape as percentages, and the line saying how they were measured."""
    lines = [
        "| shape (truth: not firmly decidable) | engine | wrong `holds` | wrong `does not hold` |",
        "|---|---|---:|---:|",
    ]
    for r in table.itertuples():
        lines.append(f"| {r.shape} | {r.engine} | {r.wrong_holds:.1%} | {r.wrong_does_not_hold:.1%} |")
    n = table.iloc[0]
    lines += [
        "",
        f"{n.datasets} simulated datasets per shape, {n.resamples} resamples each (`python -m tools.measure.calibration`); "
        f"a rate of 2.5% is measured to within +-{2 * n['mc_se_at_2.5pct']:.1%} (two Monte Carlo standard errors).",
    ]
    return "\n".join(lines)


def generate(root: Path, check: bool) -> list[str]:
    """The table of ``root``'s docs/calibration.md from its docs/calibration.csv: its stale part, written unless ``check``."""
    return refresh(root / PAGE, "calibration", markdown(pd.read_csv(root / CSV)), check, PAGE)


def seed_markdown(table: pd.DataFrame) -> str:
    """The seed rule's rates by engine and truth (in standard errors above the threshold), each with
    two Monte Carlo standard errors, and the line saying how they were measured."""
    lines = [
        "| engine | seeds | truth (SE above the threshold) | `holds` | `does not hold` |",
        "|---|---:|---:|---:|---:|",
    ]
    pm = lambda p, se: f"{p:.1%} +- {2 * se:.1%}"  # noqa: E731
    for r in table.itertuples():
        lines.append(
            f"| {r.engine} ({r.when}) | {r.seeds} | {r.truth_se:g} | {pm(r.holds, r.mc_se_holds)} | "
            f"{pm(r.does_not_hold, r.mc_se_does_not_hold)} |"
        )
    n = table.iloc[0]
    lines += [
        "",
        f"{n.datasets} simulated datasets per row, {n.resamples} resamples each "
        "(`python -m tools.measure.seed_calibration`); +- two Monte Carlo standard errors.",
    ]
    return "\n".join(lines)


def generate_seeds(root: Path, check: bool) -> list[str]:
    """The seed rule's table of ``root``'s docs/calibration.md from its docs/seed_calibration.csv."""
    return refresh(root / PAGE, "seed-calibration", seed_markdown(pd.read_csv(root / SEED_CSV)), check, PAGE)


def is_true(x) -> bool:
    """A csv cell's True (a bool, or the text "True" of a csv read back)."""
    return str(x).lower() == "true"


def _tails(row) -> str:
    return ", calibrated tails" if getattr(row, "tails", "nominal") == "calibrated" else ""


def _units(r) -> str:
    """The clusters a row's datasets draw, and the training seeds of a trained claim (their SD's source)."""
    seeds, source = getattr(r, "seeds", np.nan), getattr(r, "seed_sd_from", "")
    if not isinstance(source, str) or not source or pd.isna(seeds):
        return f"{int(r.clusters)}"
    return f"{int(r.clusters)} x {int(seeds)} seed{'s' if seeds > 1 else ''} (SD: {source})"


def own_markdown(table: pd.DataFrame) -> str:
    """Per claim on the project's own data: size per direction, power at +2 SE and the 80% MDE
    (tools/measure/own_calibration.py), and the line saying how they were measured."""
    head = (
        "| claim | interval | clusters | levels | SE | wrong `holds` | wrong `does not hold` | power at +2 SE (`holds` / `does not hold`) "
        "| 80% MDE in SE (`holds` / `does not hold`) |\n|---|---|---:|---:|---:|---:|---:|---:|---:|"
    )
    pct = lambda x: "not run" if pd.isna(x) else f"{100 * x:.1f}%"  # noqa: E731
    # a size-only row has no power; an MDE beyond the largest shift measured reads "> 4"
    num = lambda x: "not run" if pd.isna(x) else f"> {GRID_END}" if np.isinf(x) else f"{x:.2g}"  # noqa: E731
    lines = [head]
    for r in table.itertuples():
        if isinstance(r.note, str) and r.note:
            lines.append(f"| `{r.claim}` | | | | | {r.note} | | | |")
            continue
        lines.append(
            f"| `{r.claim}` | {r.interval}{_tails(r)}{'' if is_true(r.now) else ' (not read now)'} | {_units(r)} | {int(r.levels)} | {r.se:.2g} | {pct(r.wrong_holds)} | {pct(r.wrong_does_not_hold)} "
            f"| {pct(r.power_holds_2se)} / {pct(r.power_does_not_hold_2se)} "
            f"| {num(r.mde80_holds_se)} / {num(r.mde80_does_not_hold_se)} |"
        )
    measured = table.dropna(subset=["datasets"]) if "datasets" in table else table.iloc[:0]
    if not len(measured):  # every claim named not covered
        return "\n".join(lines)
    runs = measured.groupby(["datasets", "resamples", "mc_se_size"], sort=False)["data"].unique()
    sizes = [
        f"{int(d)} resampled datasets per claim{_of(data) if len(runs) > 1 else ''}, {int(r)} resamples each, "
        f"where a rate of 2.5% is measured to within +-{2 * mc:.1%}"
        for (d, r, mc), data in runs.items()
    ]
    lines.append(f"\n{'; '.join(sizes)} (two Monte Carlo standard errors; `python -m tools.measure.own_calibration`).")
    return "\n".join(lines)


def _of(data) -> str:
    """ " (Clark's Table 1; ...)": where the rows of one dataset count stand in their papers."""
    return f" ({covered(pd.Series(data))})"


# the data a row of the own-data calibration resamples (column data) -> (whose, where they report it)
SOURCES = {
    "surface_sums": ("Clark's", "sec. 3"),
    "dep_heads": ("Clark's", "Table 1"),
    "coref_heads": ("Clark's", "Table 2"),
    "explanation": ("Serrano & Smith's and Jain & Wallace's", "tests"),
    "staying_true": ("Tutek & Snajder's", "permutation and single-token tests"),
}


def covered(data: pd.Series) -> str:
    """Where the calibrated claims stand in their papers: "Clark's sec. 3, Table 1 and Table 2; ..."."""
    places: dict[str, list[str]] = {}
    for stem, (whose, where) in SOURCES.items():
        if data.astype(str).str.startswith(stem).any():
            places.setdefault(whose, []).append(where)
    listed = lambda parts: ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]  # noqa: E731
    return "; ".join(f"{whose} {listed(wheres)}" for whose, wheres in places.items())


def own_summary(table: pd.DataFrame) -> str:
    """README's sentence on what a verdict guarantees: the largest wrong-verdict rates and the span of
    MDEs over the claims as they read now (docs/own_calibration.csv)."""
    now = table[table["now"].map(is_true)]
    bounds = 0.025 + 2 * now["mc_se_size"].astype(float)  # each row's own: its datasets' Monte Carlo SE
    worst = now[["wrong_holds", "wrong_does_not_hold"]].max()
    over = now[(now["wrong_holds"] > bounds) | (now["wrong_does_not_hold"] > bounds)]["claim"]
    mdes = pd.concat([now["mde80_holds_se"], now["mde80_does_not_hold_se"]])
    finite = mdes[np.isfinite(mdes)]
    counts = " or ".join(str(int(d)) for d in dict.fromkeys(now["datasets"]))
    limits = " or ".join(f"{b:.1%}" for b in dict.fromkeys(bounds))
    text = (
        f"How sure a verdict is, measured on the default run's own data ({len(now)} claims: "
        f"{covered(now['data'])}, `python -m tools.measure.own_calibration`): with a claim's quantity on its threshold, the engine gave "
        f"a wrong firm `holds` in at most {worst['wrong_holds']:.1%} and a wrong firm `does not hold` in at most "
        f"{worst['wrong_does_not_hold']:.1%} of {counts} resampled datasets "
        f"(target 2.5% + two Monte Carlo SE: {limits}"
    )
    text += f"; above it: {', '.join(f'`{c}`' for c in over)})" if len(over) else ")"
    powered = now["mde80_holds_se"].notna().sum()
    beyond = int((np.isinf(now["mde80_holds_se"]) | np.isinf(now["mde80_does_not_hold_se"])).sum())
    text += (
        f"; a firm verdict needs the quantity {finite.min():.2g} to {finite.max():.2g} standard errors from its "
        "threshold to be reached 80% of the time"
        + (f" (on the {powered} claims whose power was measured)" if powered < len(now) else "")
        + (f", more than {GRID_END} on {beyond} of them" if beyond else "")
        + " ([calibration](docs/calibration.md))."
    )
    return text


def generate_own(root: Path, check: bool) -> list[str]:
    """The own-data table of ``root``'s docs/calibration.md and README's sentence, from its docs/own_calibration.csv."""
    table = pd.read_csv(root / OWN_CSV)
    stale = refresh(root / PAGE, "own-calibration", own_markdown(table), check, PAGE)
    return stale + refresh(root / "README.md", "verdict-calibration", own_summary(table), check, "README.md")
