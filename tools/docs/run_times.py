"""docs/performance.md's measured times, between ``<!-- run-times:begin -->`` and
``<!-- run-times:end -->``, written from a finished run so that no page types a timing by hand.

The run is the folder of its ``results/`` (``--results``, default ``<root>/results``): its
``benchmarks/**/*.tsv`` (Snakemake's ``benchmark:`` files: wall seconds ``s`` and ``max_rss`` in MB,
one per job of the rules that have one), its ``logs/**/*.log`` (each job's start-up and done lines,
read by ``tools.measure.startup_table``: the start-up, the time of the rules without a benchmark
file, and when the run began and ended) and ``resources/machine/matmul_rates.json`` (the machine).
Without a benchmark file the block is skipped, saying why.

    python -m tools.docs.run_times [--check] [--results DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from tools.docs.page_block import Skipped, refresh, update_block
from tools.measure.startup_table import COLUMNS, jobs_table

ROOT = Path(__file__).resolve().parents[2]
PAGE, NAME = "docs/performance.md", "run-times"


def run_folder(root: Path, results: Path | None) -> Path:
    """The folder of the run whose ``results/`` is ``results`` (default ``root``/results)."""
    return (root / "results" if results is None else Path(results)).parent


def benchmark_jobs(benchmarks: Path) -> pd.DataFrame:
    """One row per benchmark file: job (its path under ``benchmarks`` without .tsv), rule (the
    file name up to its first "."), wall_s, max_rss_mb; exits naming a file without those columns."""
    rows = []
    for path in sorted(benchmarks.rglob("*.tsv")):
        t = pd.read_csv(path, sep="\t")
        if not {"s", "max_rss"} <= set(t.columns) or len(t) != 1:
            sys.exit(f"{path}: not a Snakemake benchmark file (one row with columns s and max_rss)")
        job = str(path.relative_to(benchmarks).with_suffix(""))
        rows.append(
            {"job": job, "rule": path.name.split(".")[0], "wall_s": t["s"].iat[0], "max_rss_mb": t["max_rss"].iat[0]}
        )
    return pd.DataFrame(rows, columns=["job", "rule", "wall_s", "max_rss_mb"])


def log_jobs(logs: Path) -> pd.DataFrame:
    """``startup_table.jobs_table`` of ``logs`` (empty without the folder)."""
    jobs = jobs_table(logs)[0] if logs.is_dir() else pd.DataFrame(columns=COLUMNS)
    return jobs.astype({"startup_s": float, "total_s": float})


def rule_rows(bench: pd.DataFrame, logged: pd.DataFrame) -> pd.DataFrame:
    """Per rule: jobs, summed and median wall seconds, median start-up, max RSS, and where the wall
    seconds come from (the benchmark files; a rule without any: its jobs' logs, process run time)."""
    rows = []
    for rule in sorted(set(bench["rule"]) | set(logged["rule"])):
        b, g = bench[bench["rule"] == rule], logged[logged["rule"] == rule]
        wall = b["wall_s"] if len(b) else g["total_s"]
        rows.append(
            {
                "rule": rule,
                "jobs": len(wall),
                "wall_s": wall.sum(),
                "median_s": wall.median(),
                "startup_s": g["startup_s"].median() if len(g) else float("nan"),
                "max_rss_mb": b["max_rss_mb"].max() if len(b) else float("nan"),
                "source": "benchmarks" if len(b) else "logs",
            }
        )
    out = pd.DataFrame(rows)
    return out.sort_values(["wall_s", "rule"], ascending=[False, True], ignore_index=True)


def _num(x: float, fmt: str) -> str:
    return "-" if pd.isna(x) else format(x, fmt)


def machine_line(run: Path) -> str:
    """The machine the run measured its matmul rates on (rule measure_matmul's record), if any."""
    path = run / "resources" / "machine" / "matmul_rates.json"
    if not path.is_file():
        return ""
    fp = pd.read_json(path, typ="series")["fingerprint"]
    features = ", ".join(fp.get("features", [])) or "no listed features"
    return f" Machine: {fp.get('name', '?')} ({fp.get('device', '?')}; {features}), as `{path.name}` records it."


def markdown(rules: pd.DataFrame, logged: pd.DataFrame, run: Path) -> str:
    """The per-rule table, its total row, and the run's span and machine."""
    lines = [
        "| rule | jobs | wall s, sum | wall s, median | start-up s, median | max RSS MB | from |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rules.itertuples():
        lines.append(
            f"| `{r.rule}` | {r.jobs} | {r.wall_s:.0f} | {r.median_s:.1f} | {_num(r.startup_s, '.1f')} "
            f"| {_num(r.max_rss_mb, '.0f')} | {r.source} |"
        )
    lines.append(
        f"| **all** | {rules['jobs'].sum()} | {rules['wall_s'].sum():.0f} | | "
        f"{_num(logged['startup_s'].median() if len(logged) else float('nan'), '.1f')} "
        f"| {_num(rules['max_rss_mb'].max(), '.0f')} | |"
    )
    span = ""
    if len(logged) and logged["began"].notna().all() and logged["ended"].notna().all():
        began, ended = logged["began"].min(), logged["ended"].max()
        span = (
            f" The run's jobs ran from {began:%Y-%m-%d %H:%M:%S} to {ended:%H:%M:%S}: "
            f"{(ended - began).total_seconds():.0f} s from the first job's start to the last one's end."
        )
    lines += [
        "",
        "Wall seconds and max RSS: `benchmarks/**/*.tsv`; start-up, and the wall seconds of the rules "
        "without a benchmark file (`from`: logs), the jobs' logs (`tools/measure/startup_table.py`)."
        + span
        + machine_line(run),
    ]
    return "\n".join(lines)


def table(run: Path, root: Path = ROOT) -> str:
    """The block's text from the run folder ``run``; Skipped without a benchmark file (named
    relative to ``root``)."""
    benchmarks = run / "benchmarks"
    bench = benchmark_jobs(benchmarks) if benchmarks.is_dir() else pd.DataFrame()
    if bench.empty:
        shown = benchmarks.relative_to(root) if benchmarks.is_relative_to(root) else benchmarks
        raise Skipped(f"no {shown}/**/*.tsv (needs a finished run: snakemake --cores all)")
    logged = log_jobs(run / "logs")
    return markdown(rule_rows(bench, logged), logged, run)


def generate(root: Path, check: bool, results: Path | None = None) -> list[str]:
    """The block of ``root``'s docs/performance.md from the run of ``results``: its stale part,
    written unless ``check``; Skipped without the run's benchmark files."""
    return refresh(root / PAGE, NAME, table(run_folder(root, results), root), check, PAGE)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help=f"exit 1 if {PAGE}'s block is stale")
    ap.add_argument("--results", type=Path, help="the run's results folder (default: results); benchmarks/ beside it")
    args = ap.parse_args(argv)
    try:
        text = table(run_folder(ROOT, args.results))
    except Skipped as e:
        print(f"skipped: {e}")
        return 0
    return update_block(ROOT / PAGE, NAME, text, args.check, "python -m tools.docs.run_times")


if __name__ == "__main__":
    sys.exit(main())
