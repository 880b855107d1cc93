"""Every generated part of README.md and docs/ in one go: each generator of tools/docs/ writes its
blocks (or, with ``--check``, writes nothing and exits 1 naming each part that is out of date).

    python -m tools.docs            # rewrite every generated part
    python -m tools.docs --check    # exit 1 naming each stale part (CI: .ci/run)

The scorecard's parts need a finished run (``results/<model>/tables/scorecard.csv``), the measured
times its ``benchmarks/`` (beside ``results/``): without them they are reported as skipped, with
the reason, and the others are still checked. ``--root`` names
another copy of the pages (README.md and docs/) to fill; the sources (schema, code) are this
checkout's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.docs import (
    calibration_table,
    config_reference,
    families_table,
    resource_table,
    run_times,
    scorecard_readme,
)
from tools.docs.page_block import Skipped
from tools.docs.scorecard_values import SpanError

ROOT = Path(__file__).resolve().parents[2]

# name -> what it writes, and its call: the stale parts (``file[:line]: what``), written unless --check
GENERATORS = {
    "config-reference": (
        "docs/configuration.md from config/schema/*.schema.yaml",
        lambda a: config_reference.generate(a.root, a.check),
    ),
    "families": (
        "docs/families.md from analysis.core.model_families",
        lambda a: families_table.generate(a.root, a.check),
    ),
    "resource-table": (
        "docs/cluster.md from analysis/core/resources.py",
        lambda a: resource_table.generate(a.root, a.check),
    ),
    "calibration": (
        "docs/calibration.md from docs/calibration.csv",
        lambda a: calibration_table.generate(a.root, a.check),
    ),
    "seed-calibration": (
        "docs/calibration.md from docs/seed_calibration.csv",
        lambda a: calibration_table.generate_seeds(a.root, a.check),
    ),
    "own-calibration": (
        "docs/calibration.md and README.md from docs/own_calibration.csv",
        lambda a: calibration_table.generate_own(a.root, a.check),
    ),
    "run-times": (
        "docs/performance.md from the run's benchmarks/ and logs/ (beside its results/)",
        lambda a: run_times.generate(a.root, a.check, a.results),
    ),
    "scorecard": (
        "README.md and docs/*.md from results/<model>/",
        lambda a: scorecard_readme.generate(a.root, a.check, a.results, a.model),
    ),
}


def run_one(name: str, args: argparse.Namespace) -> tuple[str, list[str]]:
    """(status, stale parts) of one generator: up to date, stale, written, skipped: why, or error: what."""
    try:
        stale = GENERATORS[name][1](args)
    except Skipped as e:
        return f"skipped: {e}", []
    except SystemExit as e:  # a generator's own message: a page without its block, a missing file
        return f"error: {e.code}", []
    except (SpanError, OSError) as e:
        return f"error: {e}", []
    if not stale:
        return "up to date", []
    return ("stale" if args.check else "written"), stale


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each stale part")
    ap.add_argument(
        "--root", type=Path, default=ROOT, help="the folder of README.md and docs/ (default: this checkout)"
    )
    ap.add_argument(
        "--results",
        type=Path,
        help="the run's results folder (default: <root>/results); its benchmarks/ and logs/ sit beside it",
    )
    ap.add_argument("--model", default=scorecard_readme.MODEL, help="model slug under the results folder")
    args = ap.parse_args(argv)
    failed = []
    for name, (what, _) in GENERATORS.items():
        status, stale = run_one(name, args)
        print(f"{name} ({what}): {status}")
        for part in stale:
            print(f"  {part}")
        if status.startswith("error") or (args.check and stale):
            failed.append(name)
    if failed:
        fix = "; rewrite with: python -m tools.docs" if args.check else ""
        print(f"{len(failed)} generator(s) failed or stale: {', '.join(failed)}{fix}")
    return int(bool(failed))


if __name__ == "__main__":
    sys.exit(main())
