"""The smoke DAG on a SLURM cluster: a one-node cluster from the Debian packages (tests/helpers/slurm_cluster.py;
.ci/run installs them) runs a part of config/smoke.yaml's DAG (every kind of job) through profiles/slurm as it is, with
the SLURM executor plugin and only the account given (`--default-resources slurm_account=ci`), and
every result file it writes equals the local smoke run's. Skips, saying why, only where the cluster
cannot be installed or started (e.g. not root, no packages)."""

import json
import re
import subprocess
import time

import pandas as pd
import pytest

from conftest import SNAKEMAKE, failed_run, smoke_workdir
from helpers.slurm_cluster import ACCOUNT, ClusterUnavailable, SlurmCluster

pytestmark = pytest.mark.slow
# the local smoke run gives heavy jobs 1 thread (job_threads auto = half of --cores 2); the cluster
# run is given no --cores (auto = 2): thread counts move float reductions, so both use 1
SAME_THREADS = ["--config", "job_threads=1"]
# the plugin waits 40 s (its default, polite to a real cluster's sacct) before each first status
# check of newly submitted jobs: on the tiny DAG that wait, not the jobs, was most of the run (11 min
# for 2 min of jobs); the test cluster answers sacct at once
QUICK_POLL = ["--slurm-init-seconds-before-status-checks", "2"]
# a part of the smoke DAG, not all of it: every kind of job (extraction, the MLM head, fine-tuning,
# disabling heads, classifier training: partition gpu; input preparation, map readers, the
# classifiers' tests: cpu). Each SLURM job starts a Snakemake of its own (~3 s) and the one declared
# GPU runs one job at a time: the whole DAG took 10 min here for 3 min of local run, three of its
# sections (33 jobs) about as long again as these targets
TARGETS = [
    "results/tiny-random-bert/tables/special_tokens.csv",
    "results/tiny-random-bert/tables/mlm_head.csv",
    "results/tiny-random-bert/tables/finetune_scores.csv",
    "resources/disable_heads/tiny-random-bert/RTE.csv",
    "results/tiny-random-bert/tables/erasure.summary.csv",
]
MUST_RUN = {"prepare_inputs", "extract_attention", "surface_sums", "mlm_head", "finetune", "disable_heads_scores"}
MUST_RUN |= {"attn_classifiers", "erasure", "special_tokens", "finetune_scores"}
# the only fields allowed to differ between the two runs: how long something took, and the matmul
# rates measured for precision auto (with the text that quotes them); the precision chosen is compared
TIMING = re.compile(r"seconds|_s$|time|elapsed|matmul_rate|per_example")


# session-scoped: pytest groups the tests of the session's smoke run (a parametrized session fixture)
# together and may run this module's tests apart; a module-scoped cluster and SLURM run would then
# be set up twice
@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    pytest.importorskip("snakemake_executor_plugin_slurm", reason="pip install snakemake-executor-plugin-slurm")
    c = SlurmCluster(tmp_path_factory.mktemp("slurm"))
    try:
        c.start()
    except ClusterUnavailable as err:
        pytest.skip(f"no test SLURM cluster here: {err}")
    yield c
    c.stop()


@pytest.fixture(scope="session")
def slurm_run(cluster, tmp_path_factory):
    work, env, configfiles = smoke_workdir(tmp_path_factory.mktemp("smoke_slurm"), "fixture mirror")
    cmd = [SNAKEMAKE, *TARGETS, "--profile", "profiles/slurm", "--configfile", *configfiles]
    cmd += ["--default-resources", f"slurm_account={ACCOUNT}", *SAME_THREADS, *QUICK_POLL]
    start = time.monotonic()
    # the cluster adds only its config: the run's own ATTN_MIRROR (the fixture mirror) must win over one
    # the test session was started with (CI exports the full mirror's)
    env = {**env, "SLURM_CONF": cluster.env["SLURM_CONF"]}
    run = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - start
    if run.returncode != 0:
        pytest.fail(failed_run(run, work) + "\n" + cluster.tail())
    print(f"{len(TARGETS)} smoke targets through profiles/slurm: {seconds:.0f} s, {len(cluster.jobs())} SLURM jobs")
    return work, run, cluster.jobs()


def rule_of(job: dict) -> str:
    """The rule a SLURM job ran (the plugin's job comment: rule_<rule>[_wildcards_...])."""
    return re.match(r"rule_(\w+?)(_wildcards_.*)?$", job["Comment"]).group(1)


def test_every_job_ran_on_slurm_routed_and_sized_by_the_rules(slurm_run):
    work, run, jobs = slurm_run
    log = run.stdout + run.stderr
    assert "No wall time information" not in log and "No job memory information" not in log
    profile = (work / "profiles" / "slurm" / "config.yaml").read_text()
    gpu_rules = set(re.findall(r"^  (\w+):", profile.split("set-resources:")[1], re.M))
    rules = {rule_of(job) for job in jobs}
    assert MUST_RUN <= rules, MUST_RUN - rules
    for job in jobs:
        rule = rule_of(job)
        assert job["State"] == "COMPLETED" and job["Account"] == ACCOUNT, job
        assert job["Partition"] == ("gpu" if rule in gpu_rules else "cpu"), job
        assert ("gres/gpu=1" in job["AllocTRES"]) == (rule in gpu_rules), job
        # the tiny smoke run asks for little: at most 2 GB and the shortest run time
        assert int(job["ReqMem"].rstrip("M")) <= 2000 and job["Timelimit"] == "00:10:00", job


def untimed(obj):
    """A JSON value without its timing fields (and the precision's reason, which quotes rates)."""
    if isinstance(obj, dict):
        return {k: untimed(v) for k, v in obj.items() if not TIMING.search(k) and k != "reason"}
    return [untimed(v) for v in obj] if isinstance(obj, list) else obj


def comparable(path):
    """A result file's content without its timings: JSON parsed, CSV without timing columns, else bytes."""
    if path.suffix == ".json":
        return untimed(json.loads(path.read_text()))
    if path.suffix == ".csv":
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
        return table.drop(columns=[c for c in table.columns if TIMING.search(c)]).to_csv(index=False)
    return path.read_bytes()


@pytest.mark.parametrize("smoke_run", ["fixture mirror"], indirect=True)
def test_every_result_equals_the_local_run(slurm_run, smoke_run):
    """Every result the SLURM run of the sections wrote is in the local run of the whole DAG, equal."""
    slurm, local = slurm_run[0] / "results", smoke_run[0] / "results"
    files = sorted(p.relative_to(slurm) for p in slurm.rglob("*") if p.is_file())
    assert len(files) >= 15  # the five targets write 19 under results/
    assert not [str(f) for f in files if not (local / f).is_file()]
    differ = [str(f) for f in files if comparable(local / f) != comparable(slurm / f)]
    assert not differ, f"{len(differ)} of {len(files)} files differ: {differ}"


def test_a_cluster_job_runs_the_threads_it_asked_for(slurm_run, cluster):
    """With job_threads auto (no --cores: 2), an extraction job asks SLURM for 2 CPUs and runs 2
    torch threads, though the job's own Snakemake is given --cores all (the node's CPUs)."""
    work = slurm_run[0]
    sidecar = "results/tiny-random-bert/tables/extract_attention.wiki.0.json"
    cmd = [SNAKEMAKE, "--profile", "profiles/slurm", "--configfile", "config/smoke.yaml"]
    cmd += ["tests/fixtures/smoke_mirror.yaml", "--default-resources", f"slurm_account={ACCOUNT}"]
    cmd += [*QUICK_POLL, "--forcerun", "extract_attention", "--notemp", sidecar]
    env = {**cluster.env, "ATTN_MIRROR": str(work / "tests" / "fixtures" / "mirror"), "PYTHONPATH": str(work)}
    run = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, failed_run(run, work)
    assert json.loads((work / sidecar).read_text())["threads"] == 2
    job = [j for j in cluster.jobs() if j["Comment"].startswith("rule_extract_attention")][-1]
    assert "cpu=2," in job["AllocTRES"], job
