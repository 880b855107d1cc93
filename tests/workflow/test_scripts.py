"""Each rule script runs on its own for debugging (``python workflow/<rule>.py key=value ...``):
a stand-in ``snakemake`` object of the job it would run (analysis.shared.rule_io.mock_snakemake)."""

import subprocess
import sys

from conftest import FIXTURE_ITEMS, ROOT, WORKFLOW, copy_into


def test_every_script_can_stand_in_for_its_job():
    for path in sorted((ROOT / "workflow").glob("*.py")):
        text = path.read_text()
        # rule_io.start: the job's object, or run by hand the stand-in mock_snakemake builds
        assert "snakemake, log = start(globals(), __file__" in text, path.name


def test_the_stand_in_is_the_job_of_the_dag(monkeypatch):
    from analysis.shared.rule_io import mock_snakemake

    monkeypatch.chdir(ROOT)  # mock_snakemake moves to the workflow's root; come back after
    job = mock_snakemake(
        str(ROOT / "workflow" / "finetune.py"), ["model=tiny-random-bert", "task=RTE", "config/smoke.yaml"]
    )
    assert job.rule == "finetune" and dict(job.wildcards) == {"model": "tiny-random-bert", "task": "RTE"}
    assert job.params.spec == "tiny-random-bert" and job.params.settings["max_steps"] == 3  # smoke.yaml's
    assert job.input[0] == "resources/raw/glue/SHA256SUMS"
    assert job.log[0] == "logs/tiny-random-bert/finetune.RTE.log"


def test_a_script_run_by_hand_writes_its_outputs(tmp_path):
    work = copy_into(tmp_path, WORKFLOW)
    copy_into(work / "tests" / "fixtures", FIXTURE_ITEMS, ROOT / "tests" / "fixtures")
    run = subprocess.run(
        [
            sys.executable,
            "workflow/fetch_source.py",
            "source=gum_sd",
            "config/smoke.yaml",
            "tests/fixtures/smoke_mirror.yaml",
        ],
        cwd=work,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(work), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    sums = (work / "resources" / "raw" / "gum_sd" / "SHA256SUMS").read_text()
    assert "splits.md" in sums and (work / "logs" / "fetch_source" / "gum_sd.log").exists()


def test_a_job_logs_a_refused_model_by_its_sentence_and_anything_else_with_its_traceback(tmp_path):
    script = (
        "import sys, types\n"
        "from analysis.shared.rule_io import setup_logging\n"
        "setup_logging(types.SimpleNamespace(log=[sys.argv[1]], rule='disable_heads'))\n"
        "from analysis.shared.attention_modules import UnsupportedHeads\n"
        "raise (UnsupportedHeads if sys.argv[2] == 'heads' else ValueError)('layer 1 has 0 pairs')\n"
    )
    logs = {}
    for kind in ("heads", "bug"):
        log = tmp_path / f"{kind}.log"
        run = subprocess.run([sys.executable, "-c", script, str(log), kind], cwd=ROOT, capture_output=True, text=True)
        assert run.returncode == 1, run.stderr
        # the job's own lines, less setup_logging's start-up and done lines (the start-up table's)
        logs[kind] = [line for line in log.read_text().splitlines() if " INFO " not in line]
    assert logs["heads"] == ["UnsupportedHeads: layer 1 has 0 pairs"]
    assert logs["bug"][0].startswith("Traceback") and logs["bug"][-1] == "ValueError: layer 1 has 0 pairs"
