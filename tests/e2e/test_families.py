"""Every supported encoder family (analysis.core.model_families.FAMILIES), built tiny here with random
weights and no download (tests/helpers/families.py), through the smoke DAG on the fixture mirror in
one Snakemake run: by default every model-dependent rule of it (every rule whose script loads the
model, its tokenizer or a model built from its config, and their inputs); with
ATTN_FAMILIES_DAG=all the whole DAG to each family's scorecard (about 20 minutes on 2 cores)."""

import json
import os
import re
import subprocess

import pandas as pd
import pytest
import yaml

from conftest import ROOT, SNAKEMAKE, failed_run, smoke_workdir
from helpers.families import FAMILIES, build_family

pytestmark = pytest.mark.slow
WHOLE_DAG = os.environ.get("ATTN_FAMILIES_DAG") == "all"
# the rules whose scripts load the model, its tokenizer or a model built from its config
MODEL_RULES = (
    "prepare_inputs",
    "extract_attention",
    "mlm_head",
    "gradient_importance",
    "probes_train",
    "finetune",
    "glue_attention",
    "disable_heads_scores",
    "head_importance_scores",
    "head_pruning_scores",
    "rollout",
    "rank_agreement",
    "attn_classifiers",
    "erasure",
    "erasure_cls",
    "permutation",
    "adversarial",
)
# smaller than the smoke run where the rules do not change: one shard per corpus, one GLUE task
OVERLAY = {
    "overview": {"random_init_control": False},
    "kovaleva_finetune": {"tasks": ["RTE"]},
}
LOADS_A_MODEL = re.compile(
    r"load_model|load_mlm|load_tokenizer|analysis\.kovaleva(\.finetune)? import finetune|analysis\.explanation\.setup"
    r"|frozen_transformer|finetuned_transformer|random_init_control|analysis\.beyond\.rollout"
)


def test_model_rules_are_every_script_that_loads_a_model():
    scripts = {p.stem for p in (ROOT / "workflow").glob("*.py") if LOADS_A_MODEL.search(p.read_text())}
    assert scripts - {"benchmark", "scorecard"} == set(MODEL_RULES)  # benchmark: not in `all`


@pytest.fixture(scope="module")
def families_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("families")
    dirs = {name: build_family(name, root / "models" / name) for name in FAMILIES}
    work, env, configfiles = smoke_workdir(root / "work", "fixture mirror")
    smoke = yaml.safe_load((work / "config" / "smoke.yaml").read_text())
    corpora = {name: {**c, "n_shards": 1} for name, c in smoke["corpora"].items() if "n_shards" in c}
    overlay = {**OVERLAY, "model": [str(d) for d in dirs.values()], "corpora": corpora}
    (work / "families.yaml").write_text(yaml.safe_dump(overlay))
    until = [] if WHOLE_DAG else ["--until", *MODEL_RULES]
    cmd = [SNAKEMAKE, "--cores", "2", "--configfile", *configfiles, "families.yaml", *until]
    run = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=3600)
    if run.returncode != 0:
        pytest.fail(failed_run(run, work))
    return work, env, [*configfiles, "families.yaml"], until


def test_every_family_ran_every_model_rule(families_run):
    work, env, configfiles, until = families_run
    dry = subprocess.run(
        [SNAKEMAKE, "-n", "--configfile", *configfiles, *until], cwd=work, env=env, capture_output=True, text=True
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


@pytest.mark.skipif(not WHOLE_DAG, reason="the whole DAG per family: ATTN_FAMILIES_DAG=all")
def test_every_family_reaches_its_scorecard(families_run):
    work = families_run[0]
    for name in FAMILIES:
        card = pd.read_csv(work / "results" / name / "tables" / "scorecard.csv")
        assert len(card) > 40 and card.verdict.notna().all(), name
