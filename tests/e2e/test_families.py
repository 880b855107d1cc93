"""Every supported encoder family (analysis.core.model_families.FAMILIES), built tiny here with random
weights and no download (tests/helpers/families.py), through the whole smoke DAG on the fixture
mirror in one Snakemake run, to each family's scorecard (about 19 minutes on 2 cores). A cut DAG
(`--until` the model-loading rules) stops in Snakemake itself ("Out of jobs ready to be started",
snakemake/snakemake#823), so the whole DAG is what runs."""

import json
import subprocess

import pandas as pd
import pytest
import yaml

from conftest import SNAKEMAKE, failed_run, smoke_workdir
from helpers.families import FAMILIES, build_family

pytestmark = pytest.mark.slow
# smaller than the smoke run where the rules do not change: one shard per corpus, one GLUE task
OVERLAY = {
    "overview": {"random_init_control": False},
    "kovaleva_finetune": {"tasks": ["RTE"]},
}


@pytest.fixture(scope="module")
def families_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("families")
    dirs = {name: build_family(name, root / "models" / name) for name in FAMILIES}
    work, env, configfiles = smoke_workdir(root / "work", "fixture mirror")
    smoke = yaml.safe_load((work / "config" / "smoke.yaml").read_text())
    corpora = {name: {**c, "n_shards": 1} for name, c in smoke["corpora"].items() if "n_shards" in c}
    overlay = {**OVERLAY, "model": [str(d) for d in dirs.values()], "corpora": corpora}
    (work / "families.yaml").write_text(yaml.safe_dump(overlay))
    cmd = [SNAKEMAKE, "--cores", "2", "--configfile", *configfiles, "families.yaml"]
    run = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=3600)
    if run.returncode != 0:
        pytest.fail(failed_run(run, work))
    return work, env, [*configfiles, "families.yaml"]


def test_every_family_ran_every_rule(families_run):
    work, env, configfiles = families_run
    dry = subprocess.run(
        [SNAKEMAKE, "-n", "--configfile", *configfiles], cwd=work, env=env, capture_output=True, text=True
    )
    assert dry.returncode == 0 and "Nothing to be done" in dry.stdout + dry.stderr, dry.stdout[-2000:]
    for name in FAMILIES:
        assert (work / "results" / name / "tables" / "mlm_head.csv").exists(), name
        assert (work / "resources" / "disable_heads" / name / "RTE.csv").exists(), name


def test_each_family_reaches_its_heads_and_its_masked_lm_head(families_run):
    work = families_run[0]
    for name, (_, _, saved) in FAMILIES.items():
        cost = json.loads((work / "resources" / "disable_heads" / name / "RTE.cost.json").read_text())
        assert cost["cached"] == (name != "albert"), name  # ALBERT's one shared layer: every layer re-run
        head = json.loads((work / "results" / name / "tables" / "mlm_head.json").read_text())
        assert ("fitted" in head["head_source"]) == (saved != "mlm"), (name, head["head_source"])
        scores = pd.read_csv(work / "resources" / "disable_heads" / name / "RTE.csv")
        assert scores.layer.max() == 3 and scores["head"].max() == 4, name


def test_every_family_reaches_its_scorecard(families_run):
    work = families_run[0]
    for name in FAMILIES:
        card = pd.read_csv(work / "results" / name / "tables" / "scorecard.csv")
        assert len(card) > 40 and card.verdict.notna().all(), name
