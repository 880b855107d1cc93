"""The DAG parses for every shipped config, on a checkout without ../shared and without torch."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, WORKFLOW, copy_into

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
CONFIGS = {
    "default": [],
    "smoke": ["config/smoke.yaml"],
    "branches": ["config/smoke.yaml", "config/test/branches.yaml"],
    "paper": ["config/paper.yaml"],
}


def dry_run(configfiles, *extra, env=None, cwd=ROOT):
    cmd = [SNAKEMAKE, "-n", "--quiet", "rules", *extra]
    if configfiles:
        cmd += ["--configfile", *configfiles]
    env = {**os.environ, "ATTN_MIRROR": "/nonexistent-mirror", **(env or {})}
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("name", CONFIGS)
def test_dry_run(name, tmp_path):
    run = dry_run(CONFIGS[name], cwd=copy_into(tmp_path, WORKFLOW))
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    out = run.stdout + run.stderr
    for rule in ("extract_attention", "dep_heads", "probes", "finetune", "erasure"):
        assert rule in out, f"{name}: {rule} not in the DAG"
    if name == "branches":
        assert "gap_heads" not in out
    elif name != "paper":
        assert "gap_heads" in out


def test_dry_run_imports_no_torch(tmp_path):
    """Parsing the DAG must stay cheap: a torch that fails on import breaks nothing in `snakemake -n`."""
    fake = tmp_path / "fake" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('torch imported while parsing the DAG')\n")
    run = dry_run(["config/smoke.yaml"], env={"PYTHONPATH": str(fake.parent)})
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]


def test_misspelt_config_key_fails_with_its_name():
    run = dry_run([], "--config", "max_len_polcy=error")
    assert run.returncode != 0 and "max_len_polcy" in run.stdout + run.stderr


def test_training_replicates_run_only_the_trained_tables(tmp_path):
    """config/trainings.yaml: training runs 1 and 2 of the model retrain every family (seeds + 1, + 2)
    and make only the trained claims' tables; the scorecard reads them."""
    run = subprocess.run(
        [SNAKEMAKE, "-n", "--configfile", "config/smoke.yaml", "config/trainings.yaml"],
        cwd=copy_into(tmp_path, WORKFLOW),
        env={**os.environ, "ATTN_MIRROR": "/nonexistent-mirror"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-4000:]
    for r in (1, 2):
        for stem in ("probes", "finetune_scores", "erasure.summary", "staying_true_models", "gradient_importance"):
            assert f"--training-{r}/tables/{stem}.csv" in out, (r, stem)
        # what no training changes is not made again
        assert f"--training-{r}/tables/relative_position.csv" not in out
        assert f"--training-{r}/tables/special_tokens.by_layer.csv" not in out
    assert "--training-3" not in out


def test_the_users_config_overrides_the_default_run_and_a_configfile_overrides_both(tmp_path):
    """config/config.yaml (untracked, the user's) is read over config/config.default.yaml; a
    --configfile goes over both. A model's figures exist in the DAG only when it is configured."""
    work = copy_into(tmp_path, WORKFLOW)
    env = {**os.environ, "ATTN_MIRROR": "/nonexistent-mirror"}

    def plans(slug, *configfiles) -> bool:
        cmd = [SNAKEMAKE, "-n", f"results/{slug}/figures/entropy.png", "--quiet", "rules"]
        cmd += ["--configfile", *configfiles] if configfiles else []
        return subprocess.run(cmd, cwd=work, env=env, capture_output=True, timeout=300).returncode == 0

    (work / "config" / "config.yaml").write_text("model: tiny-random-bert\n")
    assert plans("tiny-random-bert") and not plans("all-MiniLM-L6-v2")
    (work / "overlay.yaml").write_text("model: embedded:all-MiniLM-L6-v2\n")
    assert plans("all-MiniLM-L6-v2", "overlay.yaml") and not plans("tiny-random-bert", "overlay.yaml")


@pytest.mark.parametrize(
    "select_on, says",
    [("{gum_sd_dev: gum_sd_dev}", "is chosen on itself"), ("{gum_sd_dev: no_such_corpus}", "both must be corpora")],
)
def test_a_table1_selection_corpus_that_cannot_work_is_refused_in_one_line(tmp_path, select_on, says):
    """clark_syntax.select_on names corpora of the config, never the scored corpus itself."""
    work = copy_into(tmp_path, WORKFLOW)
    (work / "overlay.yaml").write_text(f"clark_syntax:\n  select_on: {select_on}\n")
    run = dry_run(["overlay.yaml"], cwd=work)
    assert run.returncode != 0
    assert "Error: clark_syntax.select_on: gum_sd_dev" in run.stderr and says in run.stderr, run.stderr[-2000:]
    assert "Traceback" not in run.stderr


def test_gpu_workstation_profile_sizes_each_gpu_job(tmp_path):
    """profiles/gpu-workstation: the default DAG schedules under a card's memory cap, each GPU job
    asking for the card memory its model needs (fine-tuning holds more than extracting)."""
    cmd = [SNAKEMAKE, "-n", "--profile", "profiles/gpu-workstation", "--resources", "gpu=2", "gpu_mem_mb=8000"]
    env = {**os.environ, "ATTN_MIRROR": "/nonexistent-mirror"}
    run = subprocess.run(cmd, cwd=copy_into(tmp_path, WORKFLOW), env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    asks = {}
    for block in run.stdout.split("\nrule ")[1:]:
        rule = block.split(":", 1)[0]
        for line in block.splitlines():
            if "gpu_mem_mb=" in line:
                asks.setdefault(rule, set()).add(int(line.split("gpu_mem_mb=")[1].split(",")[0]))
    assert {"extract_attention", "finetune", "measure_matmul"} <= set(asks)
    assert min(asks["finetune"]) > max(asks["extract_attention"]) >= 1000
