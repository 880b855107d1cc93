"""docs/scorecard.md's calibration table, between ``<!-- calibration:begin -->`` and
``<!-- calibration:end -->``, rendered from docs/calibration.csv: the simulation itself is
``python -m tools.measure.calibration`` (minutes), which writes both; this only renders the csv, so
that ``python -m tools.docs --check`` finds a table that no longer matches its csv."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tools.docs.page_block import refresh

PAGE, CSV = "docs/scorecard.md", "docs/calibration.csv"


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
    """The table of ``root``'s docs/scorecard.md from its docs/calibration.csv: its stale part, written unless ``check``."""
    return refresh(root / PAGE, "calibration", markdown(pd.read_csv(root / CSV)), check, PAGE)
