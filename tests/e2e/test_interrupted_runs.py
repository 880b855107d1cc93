"""Interrupted runs resume to identical outputs; two models never write to the same path.

The smoke workflow on the fixture mirror (as in tests/e2e/test_workflow_smoke.py), restricted to the
outputs the killed rules feed: the attention shards and Table 1 of one treebank (extract_attention)
and one fine-tuned GLUE task (finetune). One uninterrupted reference run; then a run killed with
SIGKILL (a crash: Snakemake gets no chance to clean up) while a shard is being extracted, rerun
(after `--unlock`, as Snakemake asks after a crash), and a run killed the same way while
the model is being fine-tuned, rerun. Every file under resources/ and results/ must
then be byte-identical to the reference (the fine-tuning's wall-clock timings aside), and
no `.part` file or incomplete marker may remain.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, WORKFLOW, copy_into

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
MODEL = "tiny-random-bert"
CONFIGFILES = ["config/smoke.yaml", "tests/fixtures/smoke_mirror.yaml", "tests/fixtures/interrupt.yaml"]
# the smoke run's 3 fine-tuning steps can end before the kill lands: here (reference run included)
# the tiny model trains for 40 epochs of its 3 steps, a few seconds
LONGER_FINETUNING = {"kovaleva_finetune": {"finetune": {"epochs": 40, "max_steps": None}}}
# precision: auto decides on this machine's matmul rates, measured once per machine: the interrupted
# runs get the reference run's record, as a second run on one machine would find it
MACHINE_RECORD = "resources/machine/matmul_rates.json"
TARGETS = [
    f"results/{MODEL}/tables/dep_heads.gum_sd_dev.csv",  # prepare_inputs, 2 x extract_attention, dep_heads
    f"resources/finetune/{MODEL}/RTE/dev_metrics.json",  # finetune
]
FIXTURE_ITEMS = ["mirror", "sources.yaml", "smoke_mirror.yaml", "patterns"]


def workflow_copy(dest: Path) -> Path:
    copy_into(dest, WORKFLOW)
    work = copy_into(dest / "tests" / "fixtures", FIXTURE_ITEMS, ROOT / "tests" / "fixtures").parents[1]
    (work / "tests" / "fixtures" / "interrupt.yaml").write_text(yaml.safe_dump(LONGER_FINETUNING))
    return work


def command(*extra):
    return [SNAKEMAKE, "--cores", "1", *TARGETS, *extra, "--configfile", *CONFIGFILES]


def env_for(work: Path) -> dict:
    return {**os.environ, "ATTN_MIRROR": str(work / "tests/fixtures/mirror"), "PYTHONPATH": str(work)}


def run(work: Path, *extra) -> None:
    done = subprocess.run(command(*extra), cwd=work, env=env_for(work), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]


def kill_when_started(work: Path, job_log: str, sig: int, *extra) -> None:
    """Run the workflow and send ``sig`` to its whole process group (Snakemake and its job) as soon
    as the job writing ``job_log`` has started its script; wait until every process is gone."""
    proc = subprocess.Popen(
        command(*extra), cwd=work, env=env_for(work), start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 300
    while not (work / job_log).exists():
        assert proc.poll() is None, f"the run ended before {job_log} was written"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.killpg(proc.pid, sig)
    proc.wait(timeout=120)
    while True:  # the job itself, when Snakemake did not wait for it
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)


WALL_CLOCK = {"seconds", "train_seconds"}  # the fine-tuning's timings: the only values a rerun cannot reproduce
# ... and the matmul rates and timings behind precision: auto (in the extraction's run-info sidecars)
PRECISION_TIMINGS = {"matmul_rate", "forward_s", "reason"}


def without_wall_clock(path: Path) -> bytes:
    """The bytes of ``path``; for the fine-tuning's records (``history.csv``, ``dev_metrics.json``,
    ``model/finetune.json``) the same with the wall-clock timings left out."""
    if path.name.startswith("extract_attention.") and path.suffix == ".json":
        record = json.loads(path.read_text())
        record["precision"] = {k: v for k, v in record["precision"].items() if k not in PRECISION_TIMINGS}
        return json.dumps(record, sort_keys=True).encode()
    if "finetune" not in path.parts:
        return path.read_bytes()
    if path.suffix == ".csv":
        import pandas as pd

        table = pd.read_csv(path)
        return table.drop(columns=[c for c in table if c in WALL_CLOCK]).to_csv(index=False).encode()
    if path.suffix == ".json":
        record = json.loads(path.read_text())
        return json.dumps({k: v for k, v in record.items() if k not in WALL_CLOCK}, sort_keys=True).encode()
    return path.read_bytes()


def outputs(work: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(work)): without_wall_clock(p)
        for top in ("resources", "results")
        for p in sorted((work / top).rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    work = workflow_copy(tmp_path_factory.mktemp("reference"))
    run(work)
    return outputs(work)


def incomplete_markers(work: Path) -> list[str]:
    folder = work / ".snakemake" / "incomplete"
    return [p.name for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


@pytest.mark.slow  # end to end, but small: runs in CI (`pytest`), about 1 minute (56 s measured, 2 shared cores)
def test_killed_extraction_and_finetuning_resume_to_identical_outputs(reference, tmp_path):
    work = workflow_copy(tmp_path)
    (work / MACHINE_RECORD).parent.mkdir(parents=True)
    (work / MACHINE_RECORD).write_bytes(reference[MACHINE_RECORD])
    shard = f"resources/attention/{MODEL}/gum_sd_dev/shard-0"
    # a crash (SIGKILL: Snakemake cleans nothing up) while a shard is being extracted
    kill_when_started(work, f"logs/{MODEL}/extract_attention.gum_sd_dev.0.log", signal.SIGKILL)
    assert not (work / f"{shard}.json").exists(), "the extraction was not interrupted"
    assert incomplete_markers(work), "Snakemake should have marked the killed job's outputs incomplete"
    run(work, "--unlock")  # what Snakemake asks for after a crash (the lock of the killed run)
    run(work)  # the same command again (the profile reruns incomplete jobs)
    # killed again (SIGKILL to Snakemake and its job) while a GLUE task is being fine-tuned; a
    # SIGINT (Ctrl-C) was not always delivered before the tiny fine-tuning ended on the CI machine
    finetune_log = work / f"logs/{MODEL}/finetune.RTE.log"
    finetune_log.unlink()  # written again when the job starts
    kill_when_started(work, str(finetune_log.relative_to(work)), signal.SIGKILL, "--forcerun", "finetune")
    assert not (work / TARGETS[1]).exists(), "the fine-tuning was not interrupted"
    run(work, "--unlock")
    run(work)
    got = outputs(work)
    assert sorted(got) == sorted(reference)
    assert [name for name in got if got[name] != reference[name]] == []
    assert not [name for name in got if name.endswith(".part")]
    assert incomplete_markers(work) == []


def dry_run_jobs(work: Path, models: list[str]) -> tuple[int, list[dict], str]:
    """Every job of a forced dry run of the whole smoke DAG with ``models``: wildcards and outputs."""
    (work / "models.yaml").write_text(yaml.safe_dump({"model": models}))
    cmd = [SNAKEMAKE, "-n", "-F", "--configfile", *CONFIGFILES, "models.yaml"]
    done = subprocess.run(cmd, cwd=work, env=env_for(work), capture_output=True, text=True, timeout=300)
    jobs = []
    for block in re.split(r"\n(?=rule \w+:)", done.stdout):
        out = re.search(r"^\s+output: (.*)$", block, re.M)
        if block.startswith("rule ") and out:
            wildcards = re.search(r"^\s+wildcards: (.*)$", block, re.M)
            jobs.append({"outputs": out.group(1).split(", "), "wildcards": wildcards.group(1) if wildcards else ""})
    return done.returncode, jobs, done.stdout + done.stderr


def test_two_models_never_write_to_the_same_path(tmp_path):
    work = workflow_copy(tmp_path)
    code, jobs, log = dry_run_jobs(work, ["tiny-random-bert", "embedded:all-MiniLM-L6-v2"])
    assert code == 0, log[-3000:]
    paths = [p for job in jobs for p in job["outputs"]]
    assert len(paths) == len(set(paths)), sorted({p for p in paths if paths.count(p) > 1})
    slugs = {"tiny-random-bert", "all-MiniLM-L6-v2"}
    slugs |= {f"{s}--random-init" for s in slugs}  # their random-init controls (overview.random_init_control)
    per_model = [job for job in jobs if re.search(r"\bmodel=", job["wildcards"])]
    assert {re.search(r"model=([^,]+)", job["wildcards"]).group(1) for job in per_model} == slugs
    for job in per_model:
        slug = re.search(r"model=([^,]+)", job["wildcards"]).group(1)
        assert all(slug in Path(p).parts for p in job["outputs"]), job  # results/<slug>/, resources/.../<slug>/
    # a hub id and a local directory of the same name would share results/<slug>/: refused by name
    (tmp_path / "local" / "bert-base-uncased").mkdir(parents=True)
    code, _, log = dry_run_jobs(work, ["bert-base-uncased", str(tmp_path / "local" / "bert-base-uncased")])
    assert code != 0 and "would both write to results/bert-base-uncased/" in log
