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
    """config/replicates.yaml: replicates 1 and 2 of the model retrain every family (seeds + 1, + 2)
    and make only the trained claims' tables; the scorecard reads them."""
    run = subprocess.run(
        [SNAKEMAKE, "-n", "--configfile", "config/smoke.yaml", "config/replicates.yaml"],
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
            assert f"--replicate-{r}/tables/{stem}.csv" in out, (r, stem)
        # what no training changes is not made again
        assert f"--replicate-{r}/tables/relative_position.csv" not in out
        assert f"--replicate-{r}/tables/special_tokens.by_layer.csv" not in out
    assert "--replicate-3" not in out
