"""Every supported encoder family (analysis.core.model_families.FAMILIES), built tiny here with random
weights and no download (tests/helpers/families.py), saved both ways a user's checkpoint comes: with
its masked-LM head (as published) and without it (the bare encoder, as a fine-tuned encoder is often
saved: rule mlm_head fits a head), and ELECTRA's discriminator; all through the whole smoke DAG on the
fixture mirror in one Snakemake run, to each checkpoint's scorecard (its time: docs/performance.md).
A cut DAG (`--until` the model-loading rules) stops in Snakemake itself ("Out of jobs ready to be
started", snakemake/snakemake#823), so the whole DAG is what runs.

    FAMILY_CHECKPOINTS=modernbert.bare,bert.mlm pytest -m slow tests/e2e/test_families.py   # a part of it
"""

import json
import os
import subprocess

import pandas as pd
import pytest
import yaml

from conftest import SNAKEMAKE, failed_run, smoke_workdir
from helpers.families import CHECKPOINTS, build_family

pytestmark = pytest.mark.slow
# smaller than the smoke run where the rules do not change: one shard per corpus, one GLUE task
OVERLAY = {
    "overview": {"random_init_control": False},
    "kovaleva_finetune": {"tasks": ["RTE"]},
}
# (directory name = results slug, family, form) of the checkpoints run: all, or those named (to debug one)
ONLY = [c for c in os.environ.get("FAMILY_CHECKPOINTS", "").split(",") if c]
RUN = [c for c in CHECKPOINTS if not ONLY or c[0] in ONLY]


@pytest.fixture(scope="module")
def families_run(tmp_path_factory):
    assert RUN, f"FAMILY_CHECKPOINTS={','.join(ONLY)}: none of {[c[0] for c in CHECKPOINTS]}"
    root = tmp_path_factory.mktemp("families")
    dirs = [build_family(name, root / "models" / slug, form) for slug, name, form in RUN]
    work, env, configfiles = smoke_workdir(root / "work", "fixture mirror")
    smoke = yaml.safe_load((work / "config" / "smoke.yaml").read_text())
    corpora = {name: {**c, "n_shards": 1} for name, c in smoke["corpora"].items() if "n_shards" in c}
    overlay = {**OVERLAY, "model": [str(d) for d in dirs], "corpora": corpora}
    (work / "families.yaml").write_text(yaml.safe_dump(overlay))
    cmd = [SNAKEMAKE, "--cores", "2", "--configfile", *configfiles, "families.yaml"]
    run = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=2 * 3600)
    if run.returncode != 0:
        pytest.fail(failed_run(run, work))
    return work, env, [*configfiles, "families.yaml"]


def test_the_matrix_has_every_family_with_and_without_its_head():
    from analysis.core.model_families import FAMILIES

    for family in FAMILIES:
        assert {form for _, name, form in CHECKPOINTS if name == family} >= {"mlm", "bare"}, family


def test_every_checkpoint_ran_every_rule(families_run):
    work, env, configfiles = families_run
    dry = subprocess.run(
        [SNAKEMAKE, "-n", "--configfile", *configfiles], cwd=work, env=env, capture_output=True, text=True
    )
    assert dry.returncode == 0 and "Nothing to be done" in dry.stdout + dry.stderr, dry.stdout[-2000:]
    for slug, _, _ in RUN:
        assert (work / "results" / slug / "tables" / "mlm_head.csv").exists(), slug
        assert (work / "results" / slug / "tables" / "gradient_importance.csv").exists(), slug
        assert (work / "resources" / "disable_heads" / slug / "RTE.csv").exists(), slug


def test_each_checkpoint_reaches_its_heads_and_its_masked_lm_head(families_run):
    work = families_run[0]
    for slug, name, form in RUN:
        cost = json.loads((work / "resources" / "disable_heads" / slug / "RTE.cost.json").read_text())
        assert cost["cached"] == (name != "albert"), slug  # ALBERT's one shared layer: every layer re-run
        head = json.loads((work / "results" / slug / "tables" / "mlm_head.json").read_text())
        assert ("fitted" in head["head_source"]) == (form != "mlm"), (slug, head["head_source"])
        table = pd.read_csv(work / "results" / slug / "tables" / "mlm_head.csv")
        held = table[table.split == "held-out"].iloc[-1]
        assert held["head"] == ("pre-trained" if form == "mlm" else "fitted on frozen encoder"), slug
        assert 0.0 <= held.accuracy <= 1.0 and held.n_tokens > 0, slug  # the held-out accuracy, reported
        grads = json.loads((work / "results" / slug / "tables" / "gradient_importance.json").read_text())
        assert grads["head"].startswith(head["head_source"]) and "held-out MLM loss" in grads["head"], slug
        scores = pd.read_csv(work / "resources" / "disable_heads" / slug / "RTE.csv")
        assert scores.layer.max() == 3 and scores["head"].max() == 4, slug


def test_every_checkpoint_reaches_its_scorecard(families_run):
    work = families_run[0]
    for slug, _, _ in RUN:
        card = pd.read_csv(work / "results" / slug / "tables" / "scorecard.csv")
        assert len(card) > 40 and card.verdict.notna().all(), slug
