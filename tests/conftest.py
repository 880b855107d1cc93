import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"

torch.set_num_threads(1)
# No test reaches the Hugging Face hub (CI has no network). Without this, every dry run of
# config/paper.yaml waited ~47 s for the hub's connection timeouts before sizing bert-base-uncased
# as bert-large (analysis/core/resources.py); offline, the same fallback is taken at once. An
# HF_HUB_OFFLINE set by whoever runs the tests is kept.
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def pytest_collection_modifyitems(config, items):
    """Every test of tests/e2e/ runs the workflow: marked e2e (not in the fast tier `pytest` runs)."""
    for item in items:
        if "e2e" in Path(str(item.fspath)).relative_to(ROOT / "tests").parts[:1]:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def tokenizer():
    from analysis.core.models import TINY, load_tokenizer

    return load_tokenizer(TINY)


@pytest.fixture(scope="session")
def tiny_model():
    from analysis.core.models import TINY, load_model

    return load_model(TINY, device="cpu")


@pytest.fixture(scope="session")
def workflow():
    """The workflow as Snakemake parses it with config/config.default.yaml (its rules and globals)."""
    from analysis.shared.rule_io import parsed_workflow

    return parsed_workflow(ROOT)


@pytest.fixture(scope="session")
def registry(workflow):
    """The claim tables' registry (CLAIM_TABLES: claim_table(...) in the rules' outputs)."""
    return workflow.globals["CLAIM_TABLES"]


WORKFLOW = ["Snakefile", "rules", "workflow", "config", "report", "analysis", "envs", "profiles"]


def copy_into(dest: Path, items, src_dir: Path = ROOT) -> Path:
    """Copy files / folders ``items`` of ``src_dir`` into ``dest`` (e.g. the workflow alone: no
    ../shared beside it, nothing made yet)."""
    for item in items:
        src, dst = src_dir / item, dest / item
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dst)
    return dest


def mirror_dir() -> Path | None:
    """The offline mirror of the sources (ATTN_MIRROR, else ../shared/data beside the repo)."""
    for cand in [os.environ.get("ATTN_MIRROR"), ROOT.parent / "shared" / "data"]:
        if cand and Path(cand).is_dir():
            return Path(cand).resolve()
    return None


def random_maps(L, H, n, seed=0):
    """Row-stochastic maps (L, H, n, n)."""
    return np.random.default_rng(seed).dirichlet(np.ones(n), size=(L, H, n)).astype(np.float32)


SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
FIXTURE_ITEMS = ["mirror", "sources.yaml", "smoke_mirror.yaml", "patterns"]


def smoke_workdir(dest: Path, mirror: str) -> tuple[Path, dict, list[str]]:
    """A copy of the workflow in ``dest`` set up for the smoke run on ``mirror``: "fixture mirror"
    (tests/fixtures, always there) or "shared mirror" (None where there is none): (workdir,
    environment, configfiles)."""
    work = copy_into(dest, WORKFLOW)
    configfiles = ["config/smoke.yaml"]
    if mirror == "fixture mirror":
        copy_into(work / "tests" / "fixtures", FIXTURE_ITEMS, ROOT / "tests" / "fixtures")
        path = work / "tests" / "fixtures" / "mirror"
        configfiles.append("tests/fixtures/smoke_mirror.yaml")
    else:
        path = mirror_dir()
        if path is None:
            return None
    return work, {**os.environ, "ATTN_MIRROR": str(path), "PYTHONPATH": str(work)}, configfiles


def dag_summary(work: Path, env: dict, configfiles: list[str]) -> str:
    """``snakemake --summary`` of the whole DAG in ``work``: a tab-separated table (output_file, date,
    rule, ...) of every output, read to choose targets without a cut DAG."""
    run = subprocess.run(
        [SNAKEMAKE, "--summary", "--configfile", *configfiles], cwd=work, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


def summary_rows(summary: str) -> list[tuple[str, str]]:
    """(output file, rule) of every row of a :func:`dag_summary` table."""
    rows = [line.split("\t") for line in summary.splitlines()[1:] if "\t" in line]
    return [(row[0], row[2]) for row in rows]


def failed_run(run, work: Path) -> str:
    """A failed Snakemake run's stderr and the tails of its job logs."""
    logs = "\n".join(f"== {p}\n{p.read_text()[-3000:]}" for p in sorted((work / "logs").rglob("*.log")))
    return f"snakemake failed:\n{run.stderr[-6000:]}\n{logs[-12000:]}"


@pytest.fixture(scope="session", params=["fixture mirror"])
def smoke_run(request, tmp_path_factory):
    """The smoke run (--cores 2) on the tiny fixture mirror in tests/fixtures (a clean clone needs
    nothing else; the full mirror's sources are read by tests/e2e/test_real_mirror.py). One run per
    session: tests/e2e/test_workflow_smoke.py checks it, tests/e2e/test_slurm.py compares the SLURM
    run's files with it (before any test reruns a rule)."""
    setup = smoke_workdir(tmp_path_factory.mktemp("smoke"), request.param)
    work, env, configfiles = setup
    cmd = [SNAKEMAKE, "--cores", "2", "--configfile", *configfiles]
    run = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=1500)
    if run.returncode != 0:
        pytest.fail(failed_run(run, work))
    return work, env, configfiles
