"""tools/docs/run_times.py: docs/performance.md's measured times, written from a run's benchmark
files and logs (the folders beside its results/), skipped without a run."""

import json

import pytest

from conftest import ROOT
from tools.docs import run_times
from tools.docs.page_block import Skipped, markers

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def bench(path, s, rss):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{s}\t0:00:00\t{rss}\t0\t0\t0\t0\t0\t0\t0\n")


def log(path, rule, began_s, startup, total):
    """A job's log as rule_io.setup_logging writes it: start-up line, done line, with times."""
    path.parent.mkdir(parents=True, exist_ok=True)
    at = lambda s: f"2026-11-27 10:{int(s) // 60:02d}:{s % 60:06.3f}".replace(".", ",")  # noqa: E731
    path.write_text(
        f"{at(began_s + startup)} rule.{rule} INFO start-up {startup} s (process start to this log)\n"
        f"{at(began_s + total)} rule.{rule} INFO done {total} s after process start\n"
    )


@pytest.fixture
def run(tmp_path):
    run = tmp_path / "run"
    bench(run / "benchmarks" / "m" / "entropy.tsv", 2.0, 200.5)
    bench(run / "benchmarks" / "m--random-init" / "entropy.tsv", 4.0, 300.0)
    bench(run / "benchmarks" / "m" / "finetune.SST-2.tsv", 30.0, 2000.0)
    log(run / "logs" / "m" / "entropy.log", "entropy", 10, 1.0, 2.5)
    log(run / "logs" / "m--random-init" / "entropy.log", "entropy", 20, 3.0, 4.5)
    log(run / "logs" / "m" / "finetune.SST-2.log", "finetune", 0, 2.0, 31.0)
    log(run / "logs" / "m" / "glue_attention.SST-2.log", "glue_attention", 40, 1.0, 5.0)  # no benchmark file
    machine = run / "resources" / "machine" / "matmul_rates.json"
    machine.parent.mkdir(parents=True)
    machine.write_text(json.dumps({"fingerprint": {"device": "cpu", "features": ["avx2"], "name": "Some CPU"}}))
    (run / "results").mkdir()
    return run


def test_per_rule_rows_total_span_and_machine(run):
    text = run_times.table(run)
    lines = text.splitlines()
    assert lines[2] == "| `finetune` | 1 | 30 | 30.0 | 2.0 | 2000 | benchmarks |"  # most summed seconds first
    assert lines[3] == "| `entropy` | 2 | 6 | 3.0 | 2.0 | 300 | benchmarks |"
    assert lines[4] == "| `glue_attention` | 1 | 5 | 5.0 | 1.0 | - | logs |"  # its log's done line
    assert lines[5] == "| **all** | 4 | 41 | | 1.5 | 2000 | |"
    assert "ran from 2026-11-27 10:00:00 to 10:00:45: 45 s from the first job's start" in lines[7]
    assert "Machine: Some CPU (cpu; avx2)" in lines[7]


def test_results_names_the_run_beside_it(run, tmp_path):
    assert run_times.run_folder(ROOT, run / "results") == run
    assert run_times.run_folder(tmp_path, None) == tmp_path
    page = tmp_path / "docs" / "performance.md"
    page.parent.mkdir()
    begin, end = markers("run-times")
    page.write_text(f"# times\n\n{begin}\nold\n{end}\n")
    assert run_times.generate(tmp_path, True, run / "results") == ["docs/performance.md: run-times block"]
    assert "old" in page.read_text()  # --check writes nothing
    assert run_times.generate(tmp_path, False, run / "results") == ["docs/performance.md: run-times block"]
    assert run_times.table(run) in page.read_text()
    assert run_times.generate(tmp_path, True, run / "results") == []


def test_skipped_without_a_run_and_refuses_a_foreign_tsv(run, tmp_path):
    with pytest.raises(Skipped, match=r"no nothing/benchmarks/\*\*/\*\.tsv \(needs a finished run"):
        run_times.generate(tmp_path, True, tmp_path / "nothing" / "results")
    (run / "benchmarks" / "m" / "other.tsv").write_text("a\tb\n1\t2\n")
    with pytest.raises(SystemExit, match="other.tsv: not a Snakemake benchmark file"):
        run_times.table(run)


def test_the_page_has_the_block():
    text = (ROOT / run_times.PAGE).read_text()
    begin, end = markers("run-times")
    assert text.count(begin) == 1 and text.count(end) == 1
