"""tools/measure/startup_table.py: per rule, the jobs' start-up against their work, read from the lines
rule_io.setup_logging writes into every job's log."""

import subprocess
import sys

import pandas as pd
import pytest

from conftest import ROOT
from tools.measure import startup_table


def job_log(path, rule, startup, total, extra="INFO work\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"2026-11-27 10:00:00,000 rule.{rule} INFO start-up {startup} s (process start to this log: imports)\n"]
    lines.append(f"2026-11-27 10:00:01,000 rule.{rule} {extra}")
    if total is not None:
        lines.append(f"2026-11-27 10:00:02,000 rule.{rule} INFO done {total} s after process start\n")
    path.write_text("".join(lines))


@pytest.fixture
def logs(tmp_path):
    logs = tmp_path / "logs"
    job_log(logs / "m" / "entropy.log", "entropy", 1.0, 1.5)
    job_log(logs / "m--random-init" / "entropy.log", "entropy", 2.0, 3.0)
    job_log(logs / "m" / "entropy.other.log", "entropy", 3.0, 6.0)
    job_log(logs / "m" / "extract_attention.wiki.0.log", "extract_attention", 4.0, 24.0)
    job_log(logs / "m" / "coref_heads.log", "coref_heads", 1.0, None)  # failed: no done line
    (logs / "m" / "old.log").write_text("2026-01-01 00:00:00,000 rule.old INFO a log from before\n")
    return logs


def test_per_rule_medians_and_shares(logs):
    jobs, skipped = startup_table.jobs_table(logs)
    assert skipped == 2 and len(jobs) == 4
    table = startup_table.rule_table(jobs).set_index("rule")
    assert list(table.index) == ["extract_attention", "entropy"]  # slowest start-up first
    entropy = table.loc["entropy"]
    assert entropy.jobs == 3 and not entropy.heavy
    assert (entropy.startup_s, entropy.work_s, entropy.total_s) == (2.0, 1.0, 3.0)
    assert entropy.startup_share == pytest.approx(6.0 / 10.5)
    first = jobs.set_index("log").loc[str(logs / "m" / "entropy.log")]
    assert first.began == pd.Timestamp("2026-11-27 09:59:59")  # the start-up line's time less the start-up
    assert first.ended == pd.Timestamp("2026-11-27 10:00:02")
    heavy = table.loc["extract_attention"]
    assert heavy.heavy and (heavy.startup_s, heavy.work_s, heavy.startup_share) == (4.0, 20.0, 4.0 / 24.0)


def test_main_writes_the_table_and_the_light_rules_median(logs, tmp_path, capsys):
    out = tmp_path / "startup.csv"
    assert startup_table.main(["--logs", str(logs), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "light rules: median start-up 2.00 s over 3 jobs" in printed
    assert "4 jobs, 2 logs without start-up and done lines skipped" in printed
    assert out.read_text().splitlines()[0] == "rule,heavy,jobs,startup_s,work_s,total_s,startup_share"
    assert startup_table.main(["--logs", str(tmp_path / "none")]) == 2
    assert "no logs folder" in capsys.readouterr().err


JOB = """
import sys
from types import SimpleNamespace
from analysis.shared.rule_io import setup_logging
log = setup_logging(SimpleNamespace(log=[sys.argv[1]], rule="entropy"))
log.info("working")
"""


def test_a_jobs_log_carries_its_start_up_and_its_total(tmp_path):
    path = tmp_path / "logs" / "entropy.log"
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", JOB, str(path)], env=env, check=True, timeout=120)
    got = startup_table.job_times(path)
    assert got is not None and got["rule"] == "entropy"
    assert 0 < got["startup_s"] <= got["total_s"] < 120
    assert path.read_text().splitlines()[1].endswith("rule.entropy INFO working")
