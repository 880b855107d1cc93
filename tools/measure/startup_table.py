"""Per rule of a finished run: how long its jobs took to start against how long they worked.

    python -m tools.measure.startup_table [--logs logs] [--out startup.csv]

Reads the jobs' own logs (``logs/**/*.log``): ``analysis.shared.rule_io.setup_logging`` writes as a
job's first line how long its process took to reach it (the interpreter, Snakemake's preamble and
the script's imports: ``start-up``) and, at exit, how long the process ran (``done``). Work is the
rest: for a heavy rule it includes loading the model and the precision calibration. Logs without
both lines (a job that failed, or a run before these lines were written) are counted as ``skipped``.
Writes one row per rule (jobs, median start-up, work and total seconds, start-up's share of the
rule's summed time, and whether the rule is heavy: ``analysis/scheduling/heavy_rules.py``), slowest start-up
first, and prints it with the median start-up of the light rules' jobs.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pandas as pd

from analysis.scheduling.heavy_rules import HEAVY

START = re.compile(r" rule\.(?P<rule>\w+) INFO start-up (?P<s>[0-9.]+) s\b")
DONE = re.compile(r" rule\.(?P<rule>\w+) INFO done (?P<s>[0-9.]+) s after process start")
AT = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}")  # logging's asctime, which starts each line
COLUMNS = ["rule", "log", "startup_s", "total_s", "began", "ended"]


def _at(match: re.Match) -> pd.Timestamp | None:
    """The time a log line was written (None without logging's asctime)."""
    at = AT.match(match.string)
    return pd.Timestamp(at[0].replace(",", ".")) if at else None


def job_times(path: Path) -> dict | None:
    """(rule, startup_s, total_s, began, ended) of one job's log; None without both lines. ``began``:
    the process start (the start-up line's time less the start-up), ``ended``: the done line's time
    (None without timestamps)."""
    start = done = None
    for line in path.read_text(errors="replace").splitlines():
        start = start or START.search(line)
        done = DONE.search(line) or done
    if not (start and done) or start["rule"] != done["rule"]:
        return None
    startup = float(start["s"])
    began = _at(start)
    return {
        "rule": start["rule"],
        "log": str(path),
        "startup_s": startup,
        "total_s": float(done["s"]),
        "began": None if began is None else began - pd.Timedelta(seconds=startup),
        "ended": _at(done),
    }


def jobs_table(logs: Path) -> tuple[pd.DataFrame, int]:
    """One row per job with both lines, and the number of logs without."""
    rows, skipped = [], 0
    for path in sorted(logs.rglob("*.log")):
        row = job_times(path)
        if row is None:
            skipped += 1
        else:
            rows.append(row)
    jobs = pd.DataFrame(rows, columns=COLUMNS)
    jobs["work_s"] = jobs["total_s"] - jobs["startup_s"]
    return jobs, skipped


def rule_table(jobs: pd.DataFrame) -> pd.DataFrame:
    """Per rule: jobs, the medians of start-up, work and total, start-up's share of its summed time."""
    by = jobs.groupby("rule")
    out = pd.DataFrame(
        {
            "jobs": by.size(),
            "startup_s": by["startup_s"].median(),
            "work_s": by["work_s"].median(),
            "total_s": by["total_s"].median(),
            "startup_share": by["startup_s"].sum() / by["total_s"].sum(),
        }
    ).reset_index()
    out.insert(1, "heavy", out["rule"].isin(list(HEAVY)))
    return out.sort_values(["startup_s", "rule"], ascending=[False, True], ignore_index=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logs", default="logs", help="the run's logs folder (default: logs)")
    ap.add_argument("--out", help="write the per-rule table here (CSV)")
    args = ap.parse_args(argv)
    logs = Path(args.logs)
    if not logs.is_dir():
        print(f"no logs folder {logs} (--logs: the logs/ of a finished run)", file=sys.stderr)
        return 2
    jobs, skipped = jobs_table(logs)
    if jobs.empty:
        print(f"no log under {logs} has the start-up and done lines ({skipped} logs skipped)", file=sys.stderr)
        return 1
    table = rule_table(jobs)
    if args.out:
        table.to_csv(args.out, index=False, float_format="%.3f")
    print(table.to_string(index=False, float_format=lambda x: f"{x:.2f}"))
    light = jobs[~jobs["rule"].isin(list(HEAVY))]
    if len(light):
        print(f"light rules: median start-up {light['startup_s'].median():.2f} s over {len(light)} jobs")
    print(f"{len(jobs)} jobs, {skipped} logs without start-up and done lines skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
