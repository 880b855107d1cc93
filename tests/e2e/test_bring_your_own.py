"""docs/data.md's bring-your-own config: a CoNLL-2012 directory, a CoNLL-U treebank and a local
model directory, as local sources, for Table 1 (dep_heads) and Table 2 (coref_heads).

The config is the page's own ``byo.yaml`` block, as written (``doc_blocks.byo_user_files``), with
fixture files at the paths it names: an OntoNotes-style tree of ``*_gold_conll`` files, the UD EWT
excerpt of the fixture mirror, and the tiny random BERT saved to a directory. The DAG is checked
with a dry run; the run itself (21 s measured on 2 shared cores) is marked slow.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import WORKFLOW, copy_into
from helpers.doc_blocks import byo_user_files

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
TARGETS = ["results/my-bert/tables/dep_heads.my_ud.csv", "results/my-bert/tables/coref_heads.csv"]


@pytest.fixture
def byo(tmp_path):
    """A workflow copy with the user's folder (my-data/) and byo.yaml as the page shows them."""
    work = copy_into(tmp_path / "work", WORKFLOW)
    byo_user_files(work)
    env = {**os.environ, "ATTN_MIRROR": "/nonexistent-mirror", "PYTHONPATH": str(work)}
    return work, env


def snakemake(byo, *args):
    work, env = byo
    cmd = [SNAKEMAKE, *args, *TARGETS, "--configfile", "byo.yaml"]
    return subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600)


def test_byo_config_dry_runs(byo):
    done = snakemake(byo, "-n")
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    for rule, n in [("fetch_source", 2), ("verify_local_source", 2), ("extract_attention", 2), ("dep_heads", 1)]:
        assert any(line.split() == [rule, str(n)] for line in done.stdout.splitlines()), (rule, done.stdout[-2000:])


@pytest.mark.slow
def test_byo_config_runs_tables_1_and_2(byo):
    work = byo[0]
    done = snakemake(byo, "--cores", "1")
    assert done.returncode == 0, done.stderr[-4000:]
    for target in TARGETS:
        assert (work / target).stat().st_size > 0
    sums = (work / "resources/raw/my_conll2012/SHA256SUMS").read_text()
    assert sums.endswith("  data/english/annotations/bc/cctv/00/cctv_0000.v4_gold_conll\n")
    again = snakemake(byo, "-n")
    assert "Nothing to be done" in again.stdout + again.stderr
